/**
 * The worker-realm half of the web globals: the few services the program's context cannot build
 * from ECMAScript alone (secure randomness and WHATWG URL parsing). Each function takes and
 * returns primitives only and never throws, so nothing of this realm (no object, no error) can
 * cross into the context through it; the context turns a bad answer into its own error.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type { WebGlobalsHost } from './context-globals/web-globals.js'

/** The Web Crypto limit for one `getRandomValues` call, in bytes. */
const MAX_RANDOM_BYTES = 65536

/** Builds the host object handed to `createWebGlobals` inside the context. */
export function createWebGlobalsHost(): WebGlobalsHost {
  return {
    randomBytesHex(length: number): string {
      // An empty answer for a bad length makes the context refuse the call with its own error.
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || length > MAX_RANDOM_BYTES) return ''
      try {
        return randomBytes(length).toString('hex')
      } catch {
        return ''
      }
    },
    randomUUID(): string {
      try {
        return randomUUID()
      } catch {
        return ''
      }
    },
    parseUrl(input: string, base: string | undefined): string | undefined {
      // Only strings are ever parsed: an object here could run code of the program in this realm.
      if (typeof input !== 'string' || (base !== undefined && typeof base !== 'string')) return undefined
      try {
        const url = new URL(input, base)
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
      } catch {
        return undefined
      }
    },
  }
}
