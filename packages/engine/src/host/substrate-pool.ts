/**
 * Keeps a number of fresh, never-used substrates spawned ahead of demand, so a run does not wait
 * for a spawn (~25 ms for a worker). By default every substrate serves exactly one run and the
 * pool refills in the background after each hand-out; in the opt-in reuse mode a substrate that
 * ended its run cleanly is recycled (fresh context, same thread) for up to
 * {@link MAX_RUNS_PER_SUBSTRATE} runs, and only for later runs of the same reuse key.
 */
import { IdleSubstrates, type ReuseKey, type IdleLimits } from './idle-substrates.js'
import type { Substrate, SubstrateFactory } from './substrate.js'

/** Longest a refill waits for the run that took a substrate to settle. */
const REFILL_DELAY_MS = 20

/** In reuse mode, a substrate is replaced after this many runs, to bound what leaks across runs. */
export const MAX_RUNS_PER_SUBSTRATE = 1_000

export class SubstratePool {
  private readonly factory: SubstrateFactory
  private readonly spawnAhead: number
  private readonly ready: Substrate[] = []
  private readonly live = new Set<Substrate>()
  private readonly spawning = new Set<Promise<Substrate>>()
  private readonly reuse: boolean
  private readonly runs = new WeakMap<Substrate, number>()
  /** The reuse key each handed-out substrate was taken for: it goes back to that key only. */
  private readonly keys = new WeakMap<Substrate, ReuseKey>()
  private readonly idle: IdleSubstrates
  private disposed = false
  private refillTimer: NodeJS.Timeout | undefined

  constructor(factory: SubstrateFactory, spawnAhead: number, reuse = false, idleLimits?: IdleLimits) {
    this.factory = factory
    this.spawnAhead = spawnAhead
    this.reuse = reuse
    this.idle = new IdleSubstrates(idleLimits)
    this.refill()
  }

  /**
   * Takes back a substrate whose run ended cleanly: in reuse mode (when it can be recycled and
   * has runs left) it waits idle for a later run of the key it was taken for, killed otherwise.
   */
  release(substrate: Substrate): void {
    const runs = (this.runs.get(substrate) ?? 0) + 1
    this.runs.set(substrate, runs)
    // A substrate this pool never handed out has no key to go back to.
    const handedOut = this.keys.has(substrate)
    const key = this.keys.get(substrate)
    if (!this.reuse || this.disposed || substrate.recycle === undefined || runs >= MAX_RUNS_PER_SUBSTRATE || !handedOut) {
      substrate.terminate()
      return
    }
    substrate.recycle().then(
      () => {
        if (this.disposed || !this.live.has(substrate)) substrate.terminate()
        else this.idle.park(substrate, key)
      },
      () => {
        substrate.terminate()
        this.refill()
      },
    )
  }

  /**
   * A substrate for a run of `key`: in reuse mode one recycled after an earlier run of the same
   * key when one waits idle; otherwise a fresh one, spawned ahead when there is one, else a new
   * spawn. A substrate that served one key never serves another.
   */
  async acquire(key?: ReuseKey): Promise<Substrate> {
    const substrate = (this.reuse ? this.idle.take(key) : undefined) ?? (await this.acquireFresh())
    this.keys.set(substrate, key)
    return substrate
  }

  private async acquireFresh(): Promise<Substrate> {
    const waiting = this.ready.shift()
    if (waiting !== undefined) {
      this.scheduleRefill()
      return waiting
    }
    const substrate = await this.spawn()
    this.scheduleRefill()
    return substrate
  }

  /** Refills now: the run that took a substrate has settled and no longer competes for CPU. */
  refillNow(): void {
    clearTimeout(this.refillTimer)
    this.refillTimer = undefined
    this.refill()
  }

  // Spawning a replacement costs tens of milliseconds of CPU; started at the moment a run takes
  // its substrate, it competes with that run and triples the latency of a short one (measured:
  // median 4.8 ms → 1.3 ms for `return 1` on 2 cores). So the refill waits until the run settles
  // (refillNow) or REFILL_DELAY_MS passes, whichever comes first.
  private scheduleRefill(): void {
    if (this.refillTimer !== undefined || this.disposed) return
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      this.refill()
    }, REFILL_DELAY_MS)
    this.refillTimer.unref()
  }

  /** Every substrate this pool spawned that has not exited yet, handed out or not. */
  get liveSubstrates(): ReadonlySet<Substrate> {
    return this.live
  }

  /** Kills the substrates waiting in the pool and any being spawned; resolves once they exited. */
  async dispose(): Promise<void> {
    this.disposed = true
    clearTimeout(this.refillTimer)
    const pendingSpawns = [...this.spawning]
    for (const substrate of this.ready.splice(0)) substrate.terminate()
    this.idle.clear()
    await Promise.allSettled(pendingSpawns)
    for (const substrate of this.live) substrate.terminate()
    await Promise.all([...this.live].map((substrate) => substrate.exited))
  }

  private spawn(): Promise<Substrate> {
    const spawning = this.startSpawn().then((substrate) => {
      this.live.add(substrate)
      void substrate.exited.then(() => {
        this.live.delete(substrate)
        const waitingIndex = this.ready.indexOf(substrate)
        if (waitingIndex !== -1) this.ready.splice(waitingIndex, 1)
        this.idle.forget(substrate)
      })
      if (this.disposed) substrate.terminate()
      return substrate
    })
    this.spawning.add(spawning)
    const forget = (): void => {
      this.spawning.delete(spawning)
    }
    spawning.then(forget, forget)
    return spawning
  }

  // A factory is a backend's code and should reject, but one that throws instead must not throw
  // out of a refill timer (an uncaught exception in the host) or out of the engine's constructor.
  private startSpawn(): Promise<Substrate> {
    try {
      return this.factory.spawn()
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
  }

  // A substrate can die between its spawn (or recycle) and this moment; its exit was already
  // observed, so parked it would never leave the pool alive and its run would hang to maxWallMs.
  private park(substrate: Substrate): void {
    if (this.disposed || !this.live.has(substrate)) substrate.terminate()
    else this.ready.push(substrate)
  }

  private refill(): void {
    if (this.disposed) return
    const missing = this.spawnAhead - this.ready.length - this.spawning.size
    for (let index = 0; index < missing; index++) {
      this.spawn().then(
        (substrate) => this.park(substrate),
        () => {
          // A failed spawn ahead of time is retried by the next acquire(); nothing waits on it.
        },
      )
    }
  }
}
