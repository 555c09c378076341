/**
 * Keeps a number of fresh, never-used substrates spawned ahead of demand, so a run does not wait
 * for a spawn (~25 ms for a worker). By default every substrate serves exactly one run and the
 * pool refills in the background after each hand-out; in the opt-in reuse mode a substrate that
 * ended its run cleanly is recycled (fresh context, same thread) for up to
 * {@link MAX_RUNS_PER_SUBSTRATE} runs.
 *
 * A run that finds nothing ready waits in line for the next substrate that becomes ready: one
 * already being spawned started earlier than a spawn of its own would, so it never waits longer
 * than a cold start; a spawn is started for each waiting run that the spawns in flight do not
 * cover. A substrate being recycled covers no run: a recycle may take up to its deadline.
 */
import { availableParallelism } from 'node:os'
import type { Substrate, SubstrateFactory } from './substrate.js'

/** Longest a refill waits for the run that took a substrate to settle, when no core is idle. */
const REFILL_DELAY_MS = 20

/** In reuse mode, a substrate is replaced after this many runs, to bound what leaks across runs. */
export const MAX_RUNS_PER_SUBSTRATE = 1_000

/** In reuse mode, recycled substrates kept idle besides those spawned ahead. */
const REUSE_IDLE_EXTRA = 4

/** A run waiting for a substrate. */
interface Waiter {
  resolve(substrate: Substrate): void
  reject(error: Error): void
}

export class SubstratePool {
  private readonly factory: SubstrateFactory
  private readonly spawnAhead: number
  private readonly cores: number
  private readonly ready: Substrate[] = []
  private readonly waiters: Waiter[] = []
  private readonly live = new Set<Substrate>()
  private readonly spawning = new Set<Promise<Substrate>>()
  private readonly reuse: boolean
  private readonly runs = new WeakMap<Substrate, number>()
  /** Substrates on their way back into the pool; they count as ready for refilling. */
  private recycling = 0
  private disposed = false
  private refillTimer: NodeJS.Timeout | undefined

  /** `cores` is how many runs and spawns the machine runs side by side; the host's count unless a test says otherwise. */
  constructor(factory: SubstrateFactory, spawnAhead: number, reuse = false, cores = availableParallelism()) {
    this.factory = factory
    this.spawnAhead = spawnAhead
    this.reuse = reuse
    this.cores = cores
    this.refill()
  }

  /**
   * Takes back a substrate whose run ended cleanly: recycled into the pool in reuse mode (when
   * it can be, has runs left and the pool has room), killed otherwise.
   */
  release(substrate: Substrate): void {
    const runs = (this.runs.get(substrate) ?? 0) + 1
    this.runs.set(substrate, runs)
    const hasRoom = this.ready.length < this.spawnAhead + REUSE_IDLE_EXTRA
    if (!this.reuse || this.disposed || substrate.recycle === undefined || runs >= MAX_RUNS_PER_SUBSTRATE || !hasRoom) {
      substrate.terminate()
      return
    }
    this.recycling++
    substrate.recycle().then(
      () => {
        this.recycling--
        this.park(substrate)
      },
      () => {
        this.recycling--
        substrate.terminate()
        this.refill()
      },
    )
  }

  /**
   * A fresh substrate: one spawned ahead when there is one, otherwise the next one that becomes
   * ready (a spawn is started for this run unless one already pending covers it).
   */
  acquire(): Promise<Substrate> {
    if (this.disposed) return Promise.reject(new Error('The substrate pool was disposed.'))
    const waiting = this.ready.shift()
    if (waiting !== undefined) {
      this.scheduleRefill()
      return Promise.resolve(waiting)
    }
    const substrate = new Promise<Substrate>((resolve, reject) => {
      this.waiters.push({ resolve, reject })
    })
    const uncovered = this.waiters.length - this.spawning.size
    for (let index = 0; index < uncovered; index++) this.spawn()
    return substrate
  }

  /** Refills now: the run that took a substrate has settled and no longer competes for CPU. */
  refillNow(): void {
    clearTimeout(this.refillTimer)
    this.refillTimer = undefined
    this.refill()
  }

  // Spawning a replacement costs tens of milliseconds of CPU; started at the moment a run takes
  // its substrate, it competes with that run for a core and triples the latency of a short one
  // (measured on 2 cores: median 4.8 ms → 1.3 ms for `return 1`). So when no core is idle the
  // refill waits until the run settles (refillNow) or REFILL_DELAY_MS passes, whichever comes
  // first; when one is, it starts at once.
  private scheduleRefill(): void {
    if (this.refillTimer !== undefined || this.disposed) return
    if (this.hasIdleCore()) {
      this.refill()
      return
    }
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      this.refill()
    }, REFILL_DELAY_MS)
    this.refillTimer.unref()
  }

  // The host's own thread takes one core (it spawns, relays messages and settles runs); every
  // handed-out substrate and every spawn in flight takes another.
  private hasIdleCore(): boolean {
    const handedOut = this.live.size - this.ready.length
    return 1 + handedOut + this.spawning.size < this.cores
  }

  /** Every substrate this pool spawned that has not exited yet, handed out or not. */
  get liveSubstrates(): ReadonlySet<Substrate> {
    return this.live
  }

  /** Kills the substrates waiting in the pool and any being spawned; resolves once they exited. */
  async dispose(): Promise<void> {
    this.disposed = true
    clearTimeout(this.refillTimer)
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('The substrate pool was disposed.'))
    const pendingSpawns = [...this.spawning]
    for (const substrate of this.ready.splice(0)) substrate.terminate()
    await Promise.allSettled(pendingSpawns)
    for (const substrate of this.live) substrate.terminate()
    await Promise.all([...this.live].map((substrate) => substrate.exited))
  }

  private spawn(): void {
    const spawning = this.startSpawn().then((substrate) => {
      this.live.add(substrate)
      void substrate.exited.then(() => {
        this.live.delete(substrate)
        const waitingIndex = this.ready.indexOf(substrate)
        if (waitingIndex !== -1) this.ready.splice(waitingIndex, 1)
      })
      return substrate
    })
    this.spawning.add(spawning)
    spawning.then(
      (substrate) => {
        this.spawning.delete(spawning)
        this.park(substrate)
      },
      (error: unknown) => {
        this.spawning.delete(spawning)
        this.spawnFailed(error)
      },
    )
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

  // A failed spawn fails the newest waiting run when the spawns in flight no longer cover every
  // run (a spawn that failed once will likely fail again; retrying could loop); the older runs
  // keep their places in line. A failed spawn ahead that no run waited for is retried by the
  // next acquire().
  private spawnFailed(error: unknown): void {
    if (this.waiters.length <= this.spawning.size) return
    this.waiters.pop()?.reject(error instanceof Error ? error : new Error(String(error)))
  }

  // A substrate can die between its spawn (or recycle) and this moment; its exit was already
  // observed, so parked it would never leave the pool alive and its run would hang to maxWallMs.
  // For the run waiting on it, that is a failed spawn.
  private park(substrate: Substrate): void {
    if (this.disposed || !this.live.has(substrate)) {
      substrate.terminate()
      this.spawnFailed(new Error('The substrate exited before it was handed out.'))
      return
    }
    const waiter = this.waiters.shift()
    if (waiter === undefined) {
      this.ready.push(substrate)
      return
    }
    waiter.resolve(substrate)
    this.scheduleRefill()
  }

  // Spawns what the waiting runs and the spawn-ahead target need beyond what is ready or pending.
  private refill(): void {
    if (this.disposed) return
    const missing = this.spawnAhead + this.waiters.length - this.ready.length - this.spawning.size - this.recycling
    for (let index = 0; index < missing; index++) this.spawn()
  }
}
