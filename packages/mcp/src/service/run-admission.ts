/**
 * Who may start a run now, on a server several principals share. Runs in flight are bounded in
 * total and per principal; a run past either bound waits in a bounded queue, and past that it is
 * refused at once ("busy, retry later") instead of holding memory without bound. When a run ends,
 * the next run to start is taken from the principals in turn (round robin over those that have
 * runs waiting and are under their own bound), so one principal's flood delays its own runs, not
 * another's.
 *
 * Each admitted run's wait is recorded (admission-metrics.ts: the wait's histogram, the runs
 * waiting, the runs refused) and set on the span active when {@link RunAdmission.admit} was
 * called (`serve`'s `tools/call` span) as `code_runtime.admission.wait_ms`.
 */
import { trace, type Span } from '@opentelemetry/api'
import { countAdmission, recordAdmissionRefused, recordAdmissionWait } from './admission-metrics.js'

/** Bounds of {@link RunAdmission}. */
export interface RunAdmissionLimits {
  /** Runs in flight at once, all principals together. */
  readonly maxRuns: number
  /** Runs in flight at once of one principal. */
  readonly maxRunsPerPrincipal: number
  /** Runs waiting to start, all principals together. */
  readonly maxQueued: number
  /** Runs waiting to start of one principal. */
  readonly maxQueuedPerPrincipal: number
}

export const DEFAULT_RUN_ADMISSION_LIMITS: RunAdmissionLimits = Object.freeze({
  maxRuns: 32,
  maxRunsPerPrincipal: 4,
  maxQueued: 256,
  maxQueuedPerPrincipal: 32,
})

/** A run that may go: call `release` exactly once when it ends (later calls do nothing). */
export interface AdmittedRun {
  /** How long the run waited to start, in milliseconds. */
  readonly waitedMs: number
  release(): void
}

/** The answer to a run that cannot even wait: the queue is full. */
export class RunRefusedBusy extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RunRefusedBusy'
  }
}

interface Waiter {
  readonly queuedAt: number
  /** The span active when the run asked to start. */
  readonly span: Span | undefined
  readonly resolve: (run: AdmittedRun) => void
  readonly reject: (reason: unknown) => void
  readonly detach: () => void
}

interface PrincipalState {
  running: number
  readonly waiting: Waiter[]
}

function checkLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > 1_000_000) {
    throw new RangeError(`${name} must be a whole number from 1 to 1000000; got ${String(value)}.`)
  }
}

export class RunAdmission {
  private readonly limits: RunAdmissionLimits
  private readonly principals = new Map<string, PrincipalState>()
  /** Principals with runs waiting, in the order they are served next. */
  private readonly turn: string[] = []
  private running = 0
  private queued = 0

  constructor(limits: Partial<RunAdmissionLimits> = {}) {
    this.limits = { ...DEFAULT_RUN_ADMISSION_LIMITS, ...limits }
    for (const [name, value] of Object.entries(this.limits)) checkLimit(name, value as number)
    countAdmission(this)
  }

  /** Runs waiting to start now, all principals together (what `code_runtime.admission.waiting` observes). */
  get waitingRuns(): number {
    return this.queued
  }

  /** Principals with a run in flight or waiting: the only ones the admission keeps anything for. */
  get activePrincipals(): number {
    return this.principals.size
  }

  /** Runs in flight and waiting, in total and for `principal`. */
  load(principal?: string): { running: number; queued: number } {
    if (principal === undefined) return { running: this.running, queued: this.queued }
    const state = this.principals.get(principal)
    return { running: state?.running ?? 0, queued: state?.waiting.length ?? 0 }
  }

  /**
   * Admits a run of `principal`: at once when it is under both bounds, else when its turn comes.
   * @throws {RunRefusedBusy} at once when the queue (in total or the principal's) is full.
   * Rejects with `signal.reason` when `signal` aborts while the run waits (it never starts).
   */
  admit(principal: string, signal?: AbortSignal): Promise<AdmittedRun> {
    if (signal?.aborted === true) return Promise.reject(signal.reason)
    const state = this.stateOf(principal)
    const span = trace.getActiveSpan()
    if (state.waiting.length === 0 && this.mayStart(state))
      return Promise.resolve(this.start(principal, state, 0, span))
    if (this.queued >= this.limits.maxQueued) {
      // A principal seen first here would otherwise keep an empty entry: a flood of new names must not grow the map.
      this.forget(principal, state)
      recordAdmissionRefused('total')
      return Promise.reject(
        new RunRefusedBusy(
          `The server is busy (${this.running} runs in flight, ${this.queued} waiting); nothing ran. Retry later.`,
        ),
      )
    }
    if (state.waiting.length >= this.limits.maxQueuedPerPrincipal) {
      recordAdmissionRefused('principal')
      return Promise.reject(
        new RunRefusedBusy(
          `You have ${state.running} runs in flight and ${state.waiting.length} waiting, the most this server keeps for one caller; nothing ran. Retry when one has finished.`,
        ),
      )
    }
    return new Promise<AdmittedRun>((resolve, reject) => {
      const onAbort = (): void => {
        const index = state.waiting.indexOf(waiter)
        if (index < 0) return
        state.waiting.splice(index, 1)
        this.queued--
        this.forget(principal, state)
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        queuedAt: performance.now(),
        span,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      state.waiting.push(waiter)
      this.queued++
      if (!this.turn.includes(principal)) this.turn.push(principal)
    })
  }

  private stateOf(principal: string): PrincipalState {
    let state = this.principals.get(principal)
    if (state === undefined) {
      state = { running: 0, waiting: [] }
      this.principals.set(principal, state)
    }
    return state
  }

  private mayStart(state: PrincipalState): boolean {
    return this.running < this.limits.maxRuns && state.running < this.limits.maxRunsPerPrincipal
  }

  private start(principal: string, state: PrincipalState, waitedMs: number, span: Span | undefined): AdmittedRun {
    recordAdmissionWait(waitedMs)
    if (span?.isRecording() === true) span.setAttribute('code_runtime.admission.wait_ms', waitedMs)
    this.running++
    state.running++
    let isReleased = false
    return {
      waitedMs,
      release: () => {
        if (isReleased) return
        isReleased = true
        this.running--
        state.running--
        this.forget(principal, state)
        this.startWaiting()
      },
    }
  }

  /** Starts waiting runs, principals in turn, while the bounds allow. */
  private startWaiting(): void {
    let skipped = 0
    while (this.turn.length > 0 && this.running < this.limits.maxRuns && skipped < this.turn.length) {
      const principal = this.turn.shift() as string
      const state = this.principals.get(principal)
      const waiter = state?.waiting[0]
      if (state === undefined || waiter === undefined) continue
      if (!this.mayStart(state)) {
        // At its own bound: it keeps its place behind the others.
        this.turn.push(principal)
        skipped++
        continue
      }
      skipped = 0
      state.waiting.shift()
      this.queued--
      waiter.detach()
      if (state.waiting.length > 0) this.turn.push(principal)
      waiter.resolve(this.start(principal, state, performance.now() - waiter.queuedAt, waiter.span))
    }
  }

  /** Drops a principal's state once it has nothing running or waiting. */
  private forget(principal: string, state: PrincipalState): void {
    if (state.running > 0 || state.waiting.length > 0) return
    this.principals.delete(principal)
    const index = this.turn.indexOf(principal)
    if (index >= 0) this.turn.splice(index, 1)
  }
}
