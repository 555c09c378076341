/**
 * Keeps a number of fresh, never-used substrates spawned ahead of demand, so a run does not wait
 * for a spawn (~25 ms for a worker). By default every substrate serves exactly one run and the
 * pool refills in the background after each hand-out; in the opt-in reuse mode a substrate that
 * ended its run cleanly is recycled (fresh context, same thread) for up to
 * {@link MAX_RUNS_PER_SUBSTRATE} runs, and only for later runs of the same reuse key.
 *
 * A run that finds nothing ready waits in line for the next fresh substrate that becomes ready:
 * one already being spawned started earlier than a spawn of its own would, so it never waits
 * longer than a cold start; a spawn is started for each waiting run that the spawns in flight do
 * not cover. A substrate being recycled covers no such run: a recycle may take up to its deadline.
 * While fresh substrates are asked for back to back, the pool spawns ahead on every idle core.
 */
import { availableParallelism } from 'node:os'
import type { SubstrateSource } from './acquire-span.js'
import { IdleSubstrates, type ReuseKey, type IdleLimits } from './idle-substrates.js'
import type { Substrate, SubstrateFactory } from './substrate.js'

/** Longest a refill waits for the run that took a substrate to settle, when no core is idle. */
const REFILL_DELAY_MS = 20

/**
 * Longest a run waits for a substrate of its key that is still being recycled before it takes a
 * fresh one instead: about a worker's cold start on a loaded machine.
 */
const CLAIM_WAIT_MS = 50

/**
 * Fresh hand-outs closer together than this make a stream of runs (agents' runs arriving back to
 * back, not a lone caller now and then); about two cold starts.
 */
const STREAM_GAP_MS = 100

/**
 * Most fresh substrates a stream keeps ready or spawning beyond `spawnAhead`. Each costs a thread
 * (or a child) and some megabytes while it waits, and the extras stay ready after the stream ends
 * to serve the next one's first runs, so the number stays small whatever the core count.
 */
const MAX_STREAM_EXTRA = 3

/** In reuse mode, a substrate is replaced after this many runs, to bound what leaks across runs. */
export const MAX_RUNS_PER_SUBSTRATE = 1_000

/** A substrate being recycled, and whether a waiting run of its key has claimed it. */
interface Recycling {
  readonly substrate: Substrate
  readonly key: ReuseKey
  readonly done: Promise<boolean>
  claimed: boolean
}

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
  /** The reuse key each handed-out substrate was taken for: it goes back to that key only. */
  private readonly keys = new WeakMap<Substrate, ReuseKey>()
  /** Where each handed-out substrate came from, for the run's `acquire` span. */
  private readonly sources = new WeakMap<Substrate, SubstrateSource>()
  private readonly idle: IdleSubstrates
  /** Substrates on their way back after a clean run, each for the key it served. */
  private readonly recycling = new Set<Recycling>()
  private disposed = false
  /** When the last fresh substrate was asked for, and whether it came within STREAM_GAP_MS of the one before. */
  private lastFreshRequest = Number.NEGATIVE_INFINITY
  private streaming = false
  private refillTimer: NodeJS.Timeout | undefined

  /**
   * `cores` is how many runs and spawns the machine runs side by side (the host's count unless a
   * test says otherwise); `idleLimits` bounds the reuse mode's idle substrates.
   */
  constructor(
    factory: SubstrateFactory,
    spawnAhead: number,
    reuse = false,
    cores = availableParallelism(),
    idleLimits?: IdleLimits,
  ) {
    this.factory = factory
    this.spawnAhead = spawnAhead
    this.reuse = reuse
    this.cores = cores
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
    if (
      !this.reuse ||
      this.disposed ||
      substrate.recycle === undefined ||
      runs >= MAX_RUNS_PER_SUBSTRATE ||
      !handedOut
    ) {
      substrate.terminate()
      return
    }
    const recycling: Recycling = {
      substrate,
      key,
      claimed: false,
      done: substrate.recycle().then(
        () => true,
        () => false,
      ),
    }
    this.recycling.add(recycling)
    void recycling.done.then(recycled => {
      this.recycling.delete(recycling)
      if (!recycled) {
        substrate.terminate()
        this.refill()
      } else if (!recycling.claimed) {
        // A claimed substrate goes to the run that waits for it (see claimRecycled).
        if (this.usable(substrate)) this.idle.park(substrate, key)
        else substrate.terminate()
      }
    })
  }

  /**
   * A substrate for a run of `key`: in reuse mode one recycled after an earlier run of the same
   * key when one waits idle or is being recycled; otherwise a fresh one, spawned ahead when there
   * is one, else a new spawn. A substrate that served one key never serves another.
   */
  async acquire(key?: ReuseKey): Promise<Substrate> {
    if (this.disposed) throw new Error('The substrate pool was disposed.')
    const reused = this.reuse ? (this.idle.take(key) ?? (await this.claimRecycled(key))) : undefined
    if (reused !== undefined) this.sources.set(reused, 'recycled')
    const substrate = reused ?? (await this.acquireFresh())
    this.keys.set(substrate, key)
    return substrate
  }

  /** Where the substrate {@link acquire} last handed out came from: spawned ahead, waited for, or recycled. */
  sourceOf(substrate: Substrate): SubstrateSource | undefined {
    return this.sources.get(substrate)
  }

  // A run that comes back to back after one of its key finds that key's substrate still being
  // recycled (the guest preparing its fresh context, a few milliseconds); waiting for it is far
  // cheaper than a spawn, and without it a steady stream of runs would never reuse at all. The
  // wait is capped near a cold start, so it never costs more than a spawn would: a recycle that
  // takes longer (a guest busy with what its last program left running) is not waited for.
  private async claimRecycled(key: ReuseKey): Promise<Substrate | undefined> {
    let claim: Recycling | undefined
    for (const recycling of this.recycling) {
      if (!recycling.claimed && recycling.key === key) {
        claim = recycling
        break
      }
    }
    if (claim === undefined) return undefined
    claim.claimed = true
    // A ref'd timer: a run waiting here keeps the host process alive, as a spawn would.
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<'late'>(resolve => {
      timer = setTimeout(() => resolve('late'), CLAIM_WAIT_MS)
    })
    const recycled = await Promise.race([claim.done, late])
    clearTimeout(timer)
    if (recycled === 'late') {
      // Unclaimed, it is parked for a later run of its key if its recycle still succeeds.
      claim.claimed = false
      return undefined
    }
    if (recycled && this.usable(claim.substrate)) return claim.substrate
    claim.substrate.terminate()
    return undefined
  }

  /** A substrate can die between its spawn (or recycle) and the moment it is parked or handed out. */
  private usable(substrate: Substrate): boolean {
    return !this.disposed && this.live.has(substrate)
  }

  /**
   * A fresh substrate: one spawned ahead when there is one, otherwise the next one that becomes
   * ready (a spawn is started for this run unless one already pending covers it).
   */
  private acquireFresh(): Promise<Substrate> {
    const now = performance.now()
    this.streaming = now - this.lastFreshRequest < STREAM_GAP_MS
    this.lastFreshRequest = now
    const waiting = this.ready.shift()
    if (waiting !== undefined) {
      this.sources.set(waiting, 'ready')
      this.scheduleRefill()
      return Promise.resolve(waiting)
    }
    const substrate = new Promise<Substrate>((resolve, reject) => {
      this.waiters.push({
        resolve: spawned => {
          this.sources.set(spawned, 'spawned')
          resolve(spawned)
        },
        reject,
      })
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
  // handed-out substrate and every spawn in flight takes another (a recycled one waiting idle
  // for its key takes none).
  private hasIdleCore(): boolean {
    const handedOut = this.live.size - this.ready.length - this.idle.size
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
    this.idle.clear()
    await Promise.allSettled(pendingSpawns)
    for (const substrate of this.live) substrate.terminate()
    await Promise.all([...this.live].map(substrate => substrate.exited))
  }

  private spawn(): void {
    const spawning = this.startSpawn().then(substrate => {
      this.live.add(substrate)
      void substrate.exited.then(() => {
        this.live.delete(substrate)
        const waitingIndex = this.ready.indexOf(substrate)
        if (waitingIndex !== -1) this.ready.splice(waitingIndex, 1)
        this.idle.forget(substrate)
      })
      return substrate
    })
    this.spawning.add(spawning)
    spawning.then(
      substrate => {
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
    if (!this.usable(substrate)) {
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
  // In a stream of runs, one spawn at a time caps the stream at one run per spawn time while the
  // other cores sit idle (measured on 2 cores, `return 1` back to back: 20.7 ms per run with one
  // spawn in flight, 12.6 ms with two); so then it spawns ahead on every core, a few at most.
  // `spawnAhead: 0` asks for no spawn ahead at all, so it never streams.
  private refill(): void {
    if (this.disposed) return
    const missing = this.spawnAhead + this.waiters.length - this.ready.length - this.spawning.size
    for (let index = 0; index < missing; index++) this.spawn()
    if (!this.streaming || this.spawnAhead === 0) return
    const streamTarget = this.spawnAhead + Math.min(this.cores - 1, MAX_STREAM_EXTRA)
    while (this.ready.length + this.spawning.size < streamTarget && this.spawning.size < this.cores) this.spawn()
  }
}
