/**
 * A runner's slots: the runs and sessions it is running, at most `concurrency` in all and
 * `maxRunsPerCaller` per caller identity, and the ids of recent starts, so a start sent again
 * (replayed) never runs twice. Told `onFull` and `onFree` so the runner leaves the claim queue
 * group while it cannot take a run. Everything kept here is bounded: slots by `concurrency`,
 * identities by the slots, recent starts by the starts within two ticket windows.
 */

/** A slot taken: a one-shot run or a session, charged to its caller's identity. */
export interface Slot {
  readonly identity: string
  readonly controller: AbortController
  done?: Promise<void>
}

export interface RunnerSlotsOptions {
  readonly concurrency: number
  readonly maxRunsPerCaller: number
  /** How long a start's id is remembered: as long as its ticket could still be good. */
  readonly rememberStartsMs: number
  readonly onFull: () => void
  readonly onFree: () => void
}

export class RunnerSlots {
  readonly #options: RunnerSlotsOptions
  readonly #slots = new Map<string, Slot>()
  readonly #perCaller = new Map<string, number>()
  // Start ids by when they may be forgotten, oldest first (a Map keeps insertion order).
  readonly #recentStarts = new Map<string, number>()
  #draining = false

  constructor(options: RunnerSlotsOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#slots.size
  }

  get isDraining(): boolean {
    return this.#draining
  }

  /** Takes no more runs from now on. */
  drain(): void {
    this.#draining = true
  }

  /** True while no run can start at all (draining, or every slot taken). */
  get isFull(): boolean {
    return this.#draining || this.#slots.size >= this.#options.concurrency
  }

  /** True while `identity` may not start one more run here. */
  isFullFor(identity: string): boolean {
    return this.isFull || (this.#perCaller.get(identity) ?? 0) >= this.#options.maxRunsPerCaller
  }

  /** True the first time a conversation id starts here while its ticket could be good; remembered from then on. */
  isFirstStart(conversation: string): boolean {
    const now = performance.now()
    for (const [started, until] of this.#recentStarts) {
      if (until > now) break
      this.#recentStarts.delete(started)
    }
    if (this.#recentStarts.has(conversation) || this.#slots.has(conversation)) return false
    this.#recentStarts.set(conversation, now + this.#options.rememberStartsMs)
    return true
  }

  take(conversation: string, identity: string): Slot {
    const slot: Slot = { identity, controller: new AbortController() }
    this.#slots.set(conversation, slot)
    this.#perCaller.set(identity, (this.#perCaller.get(identity) ?? 0) + 1)
    if (this.isFull) this.#options.onFull()
    return slot
  }

  release(conversation: string): void {
    const slot = this.#slots.get(conversation)
    if (slot === undefined) return
    this.#slots.delete(conversation)
    const held = (this.#perCaller.get(slot.identity) ?? 1) - 1
    if (held === 0) this.#perCaller.delete(slot.identity)
    else this.#perCaller.set(slot.identity, held)
    if (!this.isFull) this.#options.onFree()
  }

  values(): IterableIterator<Slot> {
    return this.#slots.values()
  }
}
