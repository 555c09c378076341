/**
 * Sessions named by handles, for clients that have no connection of their own (MCP 2026-07-28 over
 * HTTP: every request stands alone). A run without a handle opens a new session and its result
 * names the handle; the next call passes it back. A handle is a random name (128 bits) filed under
 * the principal that opened it: looked up by (principal, handle), so another principal sending the
 * same handle finds nothing, whatever it guesses. Each principal keeps a bounded number; opening
 * one more ends the least recently used that no run is using.
 */
import { randomBytes } from 'node:crypto'

/** Sessions one principal keeps by default. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 8

interface HandleEntry {
  readonly key: string
  inUse: number
}

export class SessionHandles {
  readonly #maxPerPrincipal: number
  /** Per principal, its handles from least to most recently used (a Map keeps insertion order). */
  readonly #byPrincipal = new Map<string, Map<string, HandleEntry>>()

  constructor(maxPerPrincipal = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL) {
    if (!Number.isSafeInteger(maxPerPrincipal) || maxPerPrincipal < 1) {
      throw new RangeError(`maxPerPrincipal must be a whole number from 1; got ${String(maxPerPrincipal)}.`)
    }
    this.#maxPerPrincipal = maxPerPrincipal
  }

  /**
   * Opens a handle for `principal`, marked in use: its session key, and the key of a session it
   * displaced (to end). Undefined when the principal is at its bound and every session is in use.
   */
  open(principal: string): { handle: string; key: string; displacedKey?: string } | undefined {
    let handles = this.#byPrincipal.get(principal)
    if (handles === undefined) {
      handles = new Map()
      this.#byPrincipal.set(principal, handles)
    }
    let displacedKey: string | undefined
    if (handles.size >= this.#maxPerPrincipal) {
      const idle = [...handles].find(([, entry]) => entry.inUse === 0)
      if (idle === undefined) return undefined
      handles.delete(idle[0])
      displacedKey = idle[1].key
    }
    const handle = `s_${randomBytes(16).toString('base64url')}`
    const key = `handle\0${principal}\0${handle}`
    handles.set(handle, { key, inUse: 1 })
    return { handle, key, ...(displacedKey === undefined ? {} : { displacedKey }) }
  }

  /** The session key of `principal`'s `handle`, marked in use and most recently used; undefined when it is not theirs. */
  acquire(principal: string, handle: string): string | undefined {
    const handles = this.#byPrincipal.get(principal)
    const entry = handles?.get(handle)
    if (handles === undefined || entry === undefined) return undefined
    handles.delete(handle)
    handles.set(handle, entry)
    entry.inUse++
    return entry.key
  }

  /** A run in `principal`'s session `handle` has ended. */
  release(principal: string, handle: string): void {
    const entry = this.#byPrincipal.get(principal)?.get(handle)
    if (entry !== undefined && entry.inUse > 0) entry.inUse--
  }

  /** Handles `principal` holds now. */
  count(principal: string): number {
    return this.#byPrincipal.get(principal)?.size ?? 0
  }

  /** Forgets every handle (the server closes). */
  clear(): void {
    this.#byPrincipal.clear()
  }
}
