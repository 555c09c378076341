/**
 * The web globals a program expects (`TextEncoder`, `TextDecoder`, `atob`, `btoa`,
 * `structuredClone`, `URL`, `URLSearchParams`, `crypto`), built INSIDE the program's vm context
 * from that context's own intrinsics, so no object of the substrate's realm is reachable from them.
 *
 * Each family is an in-context script of its own (one file, one function, one filename such as
 * `code-runtime:globals/url`), compiled once per substrate here and run in each fresh context by
 * {@link createWebGlobals}. The families share nothing through the context's globals, which the
 * program may replace: each receives the context's {@link Primordials} and the small records of
 * the scripts it builds on (errors shaped as Node's, the text plumbing, the link from URL to
 * URLSearchParams), all frozen and null-prototype.
 *
 * Rules every family keeps, because the program runs after it and may replace any global or
 * prototype member:
 * - it uses only the primordials (captured before the program runs), calling methods through
 *   their uncurried copies, never looking them up on a value at call time;
 * - internal lists, records and property descriptors have a null prototype, and results are filled
 *   with `defineProperty`, so setters planted on `Object.prototype` or `Array.prototype` never run
 *   and never see an internal value;
 * - internal arrays are never iterated with `for...of` or spread, which use the replaceable array
 *   iterator; values of the program are, exactly as Node does;
 * - the host's functions stay in local constants, receive and return primitives only, and every
 *   call sits in a try/catch that throws a fresh error of the context instead of the caught value;
 * - the body is strict, so program code it calls (getters, callbacks, `toString`) cannot reach
 *   its functions through `caller` or `arguments.callee`.
 */
import type vm from 'node:vm'
import { compileContextScript } from '../context-script.js'
import type { Primordials } from '../primordials.js'
import type { createBase64 } from './base64.js'
import type { createCrypto, RandomHost } from './crypto.js'
import type { createNodeErrors } from './node-errors.js'
import type { createStructuredClone } from './structured-clone.js'
import type { createTextCodec, WebEncodeIntoResult } from './text-codec.js'
import type { createTextUnits } from './text-units.js'
import type { createURL, UrlHost } from './url.js'
import type { createURLSearchParams } from './url-search-params.js'

export type { WebEncodeIntoResult }

/** Substrate-realm services the context cannot build itself. Primitives in, primitives out; never throws. */
export interface WebGlobalsHost extends RandomHost, UrlHost {}

export interface WebTextEncoder {
  readonly encoding: string
  encode(input?: string): Uint8Array
  encodeInto(source: string, destination: Uint8Array): WebEncodeIntoResult
}

export type WebBufferSource = ArrayBuffer | SharedArrayBuffer | ArrayBufferView

export interface WebTextDecoder {
  readonly encoding: string
  readonly fatal: boolean
  readonly ignoreBOM: boolean
  decode(input?: WebBufferSource, options?: { stream?: boolean }): string
}

export type WebURLSearchParamsInit = string | Iterable<Iterable<string>> | Readonly<Record<string, string>>

export interface WebURLSearchParams {
  readonly size: number
  append(name: string, value: string): void
  delete(name: string, value?: string): void
  get(name: string): string | null
  getAll(name: string): string[]
  has(name: string, value?: string): boolean
  set(name: string, value: string): void
  sort(): void
  toString(): string
  forEach(callback: (value: string, name: string, parent: WebURLSearchParams) => void, thisArg?: unknown): void
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  entries(): IterableIterator<[string, string]>
  [Symbol.iterator](): IterableIterator<[string, string]>
}

export interface WebURL {
  href: string
  readonly origin: string
  protocol: string
  username: string
  password: string
  host: string
  hostname: string
  port: string
  pathname: string
  search: string
  readonly searchParams: WebURLSearchParams
  hash: string
  toString(): string
  toJSON(): string
}

export interface WebURLConstructor {
  new (input: string, base?: string): WebURL
  canParse(input: string, base?: string): boolean
  parse(input: string, base?: string): WebURL | null
}

export interface WebCrypto {
  getRandomValues<T extends ArrayBufferView>(array: T): T
  randomUUID(): string
}

export interface WebGlobals {
  TextEncoder: new () => WebTextEncoder
  TextDecoder: new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }) => WebTextDecoder
  atob: (data: string) => string
  btoa: (data: string) => string
  structuredClone: <T>(value: T, options?: { transfer?: readonly unknown[] }) => T
  URL: WebURLConstructor
  URLSearchParams: new (init?: WebURLSearchParamsInit) => WebURLSearchParams
  crypto: WebCrypto
}

/** Each family's script, in the order they are built (a family comes after what it builds on). */
const SCRIPTS = Object.freeze({
  nodeErrors: compileContextScript<typeof createNodeErrors>('code-runtime:globals/node-errors'),
  textUnits: compileContextScript<typeof createTextUnits>('code-runtime:globals/text-units'),
  textCodec: compileContextScript<typeof createTextCodec>('code-runtime:globals/text-codec'),
  base64: compileContextScript<typeof createBase64>('code-runtime:globals/base64'),
  structuredClone: compileContextScript<typeof createStructuredClone>('code-runtime:globals/structured-clone'),
  urlSearchParams: compileContextScript<typeof createURLSearchParams>('code-runtime:globals/url-search-params'),
  url: compileContextScript<typeof createURL>('code-runtime:globals/url'),
  crypto: compileContextScript<typeof createCrypto>('code-runtime:globals/crypto'),
})

/**
 * Builds the web globals inside `context` with the primordials captured there. The answer is a
 * frozen record of this realm whose values are objects of the context, to install as its globals.
 */
export function createWebGlobals(context: vm.Context, primordials: Primordials, host: WebGlobalsHost): WebGlobals {
  const errors = SCRIPTS.nodeErrors.runIn(context)(primordials)
  const units = SCRIPTS.textUnits.runIn(context)(primordials)
  const codec = SCRIPTS.textCodec.runIn(context)(primordials, errors, units)
  const base64 = SCRIPTS.base64.runIn(context)(primordials, errors, units)
  const clone = SCRIPTS.structuredClone.runIn(context)(primordials, errors)
  const searchParams = SCRIPTS.urlSearchParams.runIn(context)(primordials, errors, units)
  const url = SCRIPTS.url.runIn(context)(primordials, errors, searchParams, host)
  const random = SCRIPTS.crypto.runIn(context)(primordials, errors, units, host)
  const globals: WebGlobals = {
    TextEncoder: codec.TextEncoder as unknown as WebGlobals['TextEncoder'],
    TextDecoder: codec.TextDecoder as unknown as WebGlobals['TextDecoder'],
    atob: base64.atob,
    btoa: base64.btoa,
    structuredClone: clone.structuredClone as WebGlobals['structuredClone'],
    URL: url.URL as unknown as WebURLConstructor,
    URLSearchParams: searchParams.URLSearchParams as unknown as WebGlobals['URLSearchParams'],
    crypto: random.crypto as unknown as WebCrypto,
  }
  return Object.freeze(Object.assign(Object.create(null) as object, globals) as WebGlobals)
}
