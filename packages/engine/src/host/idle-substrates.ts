/**
 * The reuse mode's waiting room: substrates recycled after a clean run, each filed under the
 * reuse key of the run it served, so it is handed only to a later run of that same key. Bounded
 * twice, because every idle substrate holds a thread (or a process) and its heap: at most
 * `maxIdle` in total, the least recently parked killed first to make room, and none older than
 * `idleMs`, so a key that stopped sending runs stops holding memory.
 */
import type { Substrate } from './substrate.js'

/**
 * The key a run shares substrates under: the request's `reuseKey`, or `undefined` for runs
 * without one (which share among themselves only, never with a keyed run).
 */
export type ReuseKey = string | undefined

export interface IdleLimits {
  /** Recycled substrates kept waiting, over all keys together; 0 turns recycling off. */
  readonly maxIdle: number
  /** How long a recycled substrate waits for a run of its key before it is killed. */
  readonly idleMs: number
}

export const DEFAULT_IDLE_LIMITS: IdleLimits = { maxIdle: 8, idleMs: 30_000 }

interface IdleEntry {
  readonly substrate: Substrate
  readonly key: ReuseKey
  readonly expiry: NodeJS.Timeout
}

export class IdleSubstrates {
  private readonly limits: IdleLimits
  /** Oldest first: the front is the least recently used. */
  private readonly entries: IdleEntry[] = []

  constructor(limits: IdleLimits = DEFAULT_IDLE_LIMITS) {
    this.limits = limits
  }

  get size(): number {
    return this.entries.length
  }

  /** Files a recycled substrate under `key`, killing the least recently used one when full. */
  park(substrate: Substrate, key: ReuseKey): void {
    if (this.limits.maxIdle <= 0) {
      substrate.terminate()
      return
    }
    while (this.entries.length >= this.limits.maxIdle) this.evict(0)
    const expiry = setTimeout(() => {
      const index = this.entries.findIndex(entry => entry.substrate === substrate)
      if (index !== -1) this.evict(index)
    }, this.limits.idleMs)
    // An idle substrate must not keep the host process alive, nor must its expiry.
    expiry.unref()
    this.entries.push({ substrate, key, expiry })
  }

  /** The most recently parked substrate of `key` (the warmest), removed; undefined when none. */
  take(key: ReuseKey): Substrate | undefined {
    for (let index = this.entries.length - 1; index >= 0; index--) {
      const entry = this.entries[index]
      if (entry !== undefined && entry.key === key) return this.remove(index).substrate
    }
    return undefined
  }

  /** Drops a substrate that exited on its own, without killing it again. */
  forget(substrate: Substrate): void {
    const index = this.entries.findIndex(entry => entry.substrate === substrate)
    if (index !== -1) this.remove(index)
  }

  /** Kills every idle substrate. */
  clear(): void {
    while (this.entries.length > 0) this.evict(0)
  }

  private evict(index: number): void {
    this.remove(index).substrate.terminate()
  }

  private remove(index: number): IdleEntry {
    const [entry] = this.entries.splice(index, 1)
    if (entry === undefined) throw new Error(`no idle substrate at ${index}`)
    clearTimeout(entry.expiry)
    return entry
  }
}
