/**
 * The substrate-realm half of the web globals: the few services the program's context cannot build
 * from ECMAScript alone (secure randomness, and WHATWG URL parsing and setters on this realm's
 * own `URL`, so the program's URL follows the standard exactly as Node implements it). Each function takes and
 * returns primitives only and never throws, so nothing of this realm (no object, no error) can
 * cross into the context through it; the context turns a bad answer into its own error.
 */
import type * as NodeCrypto from 'node:crypto'

/**
 * `node:crypto` is loaded the first time a program asks for randomness, not when the substrate
 * starts: loading it costs a fresh worker ~2.5 ms (measured on Node 20), on every spawn, for the
 * few programs that call `crypto`. A built-in needs no file access, so this works under the
 * process backend's permission model and in the container too. `process.getBuiltinModule` (Node
 * 20.16+) rather than a `createRequire`: loading `node:module` for it cost every spawn more.
 */
let loadedCrypto: typeof NodeCrypto | undefined
const nodeCrypto = (): typeof NodeCrypto => (loadedCrypto ??= process.getBuiltinModule('node:crypto'))
import type { WebGlobalsHost } from './context-globals/web-globals.js'
import type { UrlSetterMember } from './context-globals/url.js'

/** The Web Crypto limit for one `getRandomValues` call, in bytes. */
const MAX_RANDOM_BYTES = 65536

/**
 * Node's URL parser runs in this thread's native code, which nothing interrupts. It is linear in
 * the input except for international domain names: punycode is quadratic in a label's length
 * (measured on Node 20, a host of 16 000 distinct non-ASCII characters: 1.8 s; 64 000: 8.8 s).
 * A DNS name has at most 253 characters, so a host of 1 024 is generous (about 5 ms at worst),
 * and 2 MiB of input parses in milliseconds.
 */
export const MAX_URL_INPUT_LENGTH = 2_097_152
export const MAX_URL_HOST_LENGTH = 1024

const SPECIAL_SCHEMES: ReadonlySet<string> = new Set(['ftp', 'file', 'http', 'https', 'ws', 'wss'])
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/
/** Tabs and newlines, which the URL parser removes wherever they are. */
const IGNORED_INSIDE = /[\t\n\r]/g

/** `text` without the C0 controls and spaces the URL parser strips from both ends. */
function trimControls(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && text.charCodeAt(start) <= 0x20) start++
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--
  return text.slice(start, end)
}

/**
 * An upper bound of the length of the host the URL parser would read in `text` (0 when it reads
 * none): from after the scheme and its slashes to the first `/`, `\`, `?` or `#`, after any
 * userinfo. Generous where the parser is subtle: a relative input with leading slashes, or a
 * special scheme without them, may carry a host, so both count.
 */
export function urlHostLengthBound(text: string): number {
  const cleaned = trimControls(text).replace(IGNORED_INSIDE, '')
  const scheme = SCHEME.exec(cleaned)
  let rest = scheme === null ? cleaned : cleaned.slice(scheme[0].length)
  const slashes = /^[/\\]*/.exec(rest)?.[0].length ?? 0
  const special = scheme !== null && SPECIAL_SCHEMES.has((scheme[1] as string).toLowerCase())
  // Without slashes, only a special scheme reads a host ("http:example.com"); otherwise a path.
  if (slashes < 2 && !(special && scheme !== null)) return 0
  rest = rest.slice(slashes)
  const end = rest.search(/[/\\?#]/)
  const authority = end === -1 ? rest : rest.slice(0, end)
  return authority.length - (authority.lastIndexOf('@') + 1)
}

/** Why `text` is refused before parsing, or `undefined` when it may be parsed. */
function urlRefusal(text: string): string | undefined {
  if (text.length > MAX_URL_INPUT_LENGTH) {
    return `Invalid URL: ${text.length} characters is more than this sandbox parses (at most ${MAX_URL_INPUT_LENGTH}).`
  }
  const hostLength = urlHostLengthBound(text)
  if (hostLength > MAX_URL_HOST_LENGTH) {
    return `Invalid URL: its host has ${hostLength} characters, more than this sandbox parses (at most ${MAX_URL_HOST_LENGTH}).`
  }
  return undefined
}

/** The setters `updateUrl` applies; any other member name is refused. */
const URL_SETTERS: ReadonlySet<string> = new Set<UrlSetterMember>([
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
])

/** The length of the host a `host` or `hostname` setter would read from `value` (up to its path, query or fragment). */
function setterHostLength(value: string): number {
  const cleaned = value.replace(IGNORED_INSIDE, '')
  const end = cleaned.search(/[/\\?#]/)
  return end === -1 ? cleaned.length : end
}

/** Whether a setter's `value` is refused before it reaches the parser (the same bounds as a parse). */
function isRefusedSetterValue(member: string, value: string): boolean {
  if (value.length > MAX_URL_INPUT_LENGTH) return true
  return (member === 'host' || member === 'hostname') && setterHostLength(value) > MAX_URL_HOST_LENGTH
}

/** The components of `url` as the context reads them: JSON of strings only. */
function urlComponentsJson(url: URL): string {
  return JSON.stringify({
    href: url.href,
    origin: url.origin,
    protocol: url.protocol,
    username: url.username,
    password: url.password,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
  })
}

/** Builds the host object handed to the web globals' scripts inside the context. */
export function createWebGlobalsHost(): WebGlobalsHost {
  return {
    randomBytesHex(length: number): string {
      // An empty answer for a bad length makes the context refuse the call with its own error.
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || length > MAX_RANDOM_BYTES) return ''
      try {
        return nodeCrypto().randomBytes(length).toString('hex')
      } catch {
        return ''
      }
    },
    randomUUID(): string {
      try {
        return nodeCrypto().randomUUID()
      } catch {
        return ''
      }
    },
    parseUrl(input: string, base: string | undefined): string | undefined {
      // Only strings are ever parsed: an object here could run code of the program in this realm.
      if (typeof input !== 'string' || (base !== undefined && typeof base !== 'string')) return undefined
      const refusal = urlRefusal(input) ?? (base === undefined ? undefined : urlRefusal(base))
      if (refusal !== undefined) return JSON.stringify({ refused: refusal })
      try {
        return urlComponentsJson(new URL(input, base))
      } catch {
        return undefined
      }
    },
    updateUrl(href: string, member: UrlSetterMember, value: string): string | undefined {
      if (
        typeof href !== 'string' ||
        typeof member !== 'string' ||
        typeof value !== 'string' ||
        !URL_SETTERS.has(member)
      )
        return undefined
      if (urlRefusal(href) !== undefined || isRefusedSetterValue(member, value)) return undefined
      try {
        const url = new URL(href)
        url[member] = value
        const updated = url.href
        if (updated === href) return undefined
        // Node's parser can leave a URL whose href does not parse back as itself (an empty host
        // with a port, 'foo://:81/p'); WHATWG has no URL in that state, so the setter does
        // nothing. A result past the parse bounds is refused as its parse would be.
        if (urlRefusal(updated) !== undefined || !URL.canParse(updated) || new URL(updated).href !== updated)
          return undefined
        return urlComponentsJson(url)
      } catch {
        return undefined
      }
    },
  }
}
