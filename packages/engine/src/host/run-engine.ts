/**
 * The run path of a substrate backend, as a table of contents: validate → transform → take a
 * fresh substrate → run session (bridge, ledger, budgets) → result. It also owns disposal to
 * quiescence: every in-flight run settles as `abort` and every substrate has exited before
 * {@link RunEngine.dispose} resolves. Persistent sessions ({@link RunEngine.openSession}) each
 * get a substrate of their own, spawned for them and never pooled (engine-session.ts).
 */
import {
  CodeRuntimeError,
  type CodeRunFailureKind,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import {
  sessionLimitError,
  DEFAULT_SHARED_BACKEND_CONFIG,
  validateRunRequest,
  type SharedBackendConfig,
  type ValidatedRunRequest,
} from '@code-runtime/core/internal'
import { AcquireSpan } from './acquire-span.js'
import type { RunBudgetLimits } from './budgets.js'
import { EngineSession } from './engine-session.js'
import { abortMessage, failBeforeRun, RunSession } from './run-session.js'
import { resolveSessionOptions, sessionHeapMb } from './session-options.js'
import type { IdleLimits } from './idle-substrates.js'
import { SubstratePool } from './substrate-pool.js'
import type { Substrate, SubstrateFactory } from './substrate.js'
import { transformProgram } from './transform.js'

/** The validated config a run engine needs. */
export interface RunEngineOptions {
  readonly factory: SubstrateFactory
  readonly spawnAhead: number
  readonly budgets: RunBudgetLimits
  readonly maxOutputBytes: number
  readonly maxLogEntries: number
  readonly maxPendingCallBytes: number
  readonly maxOldGenerationSizeMb: number
  /**
   * Opt-in: recycle a substrate that ended a run cleanly for later runs of the same
   * `reuseKey` (or, for runs without one, of no key), each in a fresh context.
   */
  readonly reuseSubstrates?: boolean
  /** In reuse mode, how many recycled substrates wait idle and for how long (DEFAULT_IDLE_LIMITS). */
  readonly reuseIdle?: IdleLimits
  /** Most sessions open at once (default: core's DEFAULT_SHARED_BACKEND_CONFIG). */
  readonly maxSessions?: number
  /** A session's idle expiry when it does not set its own, in milliseconds (default: core's). */
  readonly sessionIdleMs?: number
}

/** The per-run limits of a validated backend config, as the engine takes them. */
export type RunLimits = Omit<RunEngineOptions, 'factory' | 'reuseSubstrates' | 'reuseIdle'>

/** The fields every backend's config shares with the engine: core's, read by `readSharedBackendConfig`. */
export type RunLimitsConfig = SharedBackendConfig

/**
 * Picks the engine's limits out of a backend's config, in one place: a limit added to the
 * engine is then passed by every backend, not by the one that was remembered.
 */
export function runLimitsOf(config: RunLimitsConfig): RunLimits {
  return {
    spawnAhead: config.spawnAhead,
    budgets: { computeMs: config.computeMs, maxWallMs: config.maxWallMs },
    maxOutputBytes: config.maxOutputBytes,
    maxLogEntries: config.maxLogEntries,
    maxPendingCallBytes: config.maxPendingCallBytes,
    maxOldGenerationSizeMb: config.maxOldGenerationSizeMb,
    maxSessions: config.maxSessions,
    sessionIdleMs: config.sessionIdleMs,
  }
}

const DISPOSED_MESSAGE = 'The runtime was disposed before the program finished.'

/** Session ids are unique within the process, across engines. */
let sessionCount = 0

type Acquired =
  | { readonly kind: 'substrate'; readonly substrate: Substrate }
  | { readonly kind: 'stopped'; readonly failure: CodeRunFailureKind; readonly message: string }

export class RunEngine {
  private readonly options: RunEngineOptions
  private readonly pool: SubstratePool
  private readonly sessions = new Set<RunSession>()
  private readonly waiting = new Set<(acquired: Acquired) => void>()
  /** Sessions that hold (or are spawning) a substrate; their number is capped by maxSessions. */
  private readonly liveSessions = new Set<EngineSession>()
  private opening = 0
  /** Substrates of sessions or session spawns on their way out: disposal waits for them. */
  private readonly exiting = new Set<Promise<unknown>>()
  private disposed = false
  private disposal: Promise<void> | undefined

  constructor(options: RunEngineOptions) {
    this.options = options
    this.pool = new SubstratePool(
      options.factory,
      options.spawnAhead,
      options.reuseSubstrates ?? false,
      undefined,
      options.reuseIdle,
    )
  }

  /** Runs one program; see CodeRuntime.run for the contract. */
  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    const startedAt = performance.now()
    this.refuseIfDisposed()
    const validated = validateRunRequest(request)
    const signal = validated.signal
    const fail = (kind: CodeRunFailureKind, message: string): CodeRunResult =>
      this.fail(validated, startedAt, kind, message)
    if (signal?.aborted === true) return fail('abort', abortMessage(signal))
    const transformed = transformProgram(validated.program)
    if (!transformed.ok) return fail('exception', transformed.error)
    const acquireSpan = new AcquireSpan(false)
    const acquired = await this.acquire(validated)
    if (acquired.kind === 'stopped') {
      acquireSpan.failed(acquired.failure)
      return fail(acquired.failure, acquired.message)
    }
    acquireSpan.acquired(this.pool.sourceOf(acquired.substrate) ?? 'spawned')
    // Disposal may have come while the substrate was on its way here. It stops only the sessions
    // it saw, and it kills this substrate without the kill reaching any listener as an exit, so a
    // session started now would wait for maxWallMs.
    if (this.disposed) {
      acquired.substrate.terminate()
      return fail('abort', DISPOSED_MESSAGE)
    }
    const session = new RunSession(acquired.substrate, {
      request: validated,
      startedAt,
      source: transformed.value,
      budgets: this.options.budgets,
      maxOutputBytes: this.options.maxOutputBytes,
      maxLogEntries: this.options.maxLogEntries,
      maxPendingCallBytes: this.options.maxPendingCallBytes,
      maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb,
    })
    this.sessions.add(session)
    session.start()
    try {
      return await session.result
    } finally {
      this.sessions.delete(session)
      if (session.endedCleanly) this.pool.release(acquired.substrate)
      this.pool.refillNow()
    }
  }

  /**
   * Opens a persistent session on a substrate spawned for it; see CodeRuntime.openSession.
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` for bad options,
   *   `CODE_RUNTIME_SESSION_LIMIT` past maxSessions, `CODE_RUNTIME_SESSION_START_FAILED` when the
   *   substrate could not start, `CODE_RUNTIME_DISPOSED` after disposal.
   */
  async openSession(input?: CodeSessionOptions): Promise<CodeSession> {
    this.refuseIfDisposed()
    const defaults = DEFAULT_SHARED_BACKEND_CONFIG
    const options = resolveSessionOptions(input, {
      sessionIdleMs: this.options.sessionIdleMs ?? defaults.sessionIdleMs,
      budgets: this.options.budgets,
      maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb,
    })
    const maxSessions = this.options.maxSessions ?? defaults.maxSessions
    if (this.liveSessions.size + this.opening >= maxSessions) {
      throw sessionLimitError(maxSessions)
    }
    this.opening++
    let substrate: Substrate
    // A session's substrate is spawned for it, never taken from the pool.
    const acquireSpan = new AcquireSpan(true)
    try {
      const heapMb = sessionHeapMb(options)
      substrate = await this.options.factory.spawn({
        persistent: true,
        ...(heapMb === undefined ? {} : { maxOldGenerationSizeMb: heapMb }),
      })
      acquireSpan.acquired('spawned')
    } catch {
      acquireSpan.failed('CODE_RUNTIME_SESSION_START_FAILED')
      throw new CodeRuntimeError(
        'CODE_RUNTIME_SESSION_START_FAILED',
        'The sandbox of the session could not be started.',
      )
    } finally {
      this.opening--
    }
    if (this.disposed) {
      substrate.terminate()
      this.track(substrate.exited)
      this.refuseIfDisposed()
    }
    const session = new EngineSession(
      `session-${++sessionCount}`,
      substrate,
      options,
      {
        maxOutputBytes: this.options.maxOutputBytes,
        maxLogEntries: this.options.maxLogEntries,
        maxPendingCallBytes: this.options.maxPendingCallBytes,
        maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb,
      },
      (ended, exited) => {
        this.liveSessions.delete(ended)
        this.track(exited)
      },
    )
    this.liveSessions.add(session)
    return session
  }

  /** Keeps `exited` until it settles, so disposal can wait for it. */
  private track(exited: Promise<unknown>): void {
    const tracked = exited.finally(() => this.exiting.delete(tracked))
    this.exiting.add(tracked)
  }

  private refuseIfDisposed(): void {
    if (this.disposed) {
      throw new CodeRuntimeError(
        'CODE_RUNTIME_DISPOSED',
        'This code runtime was disposed; start a new one to run programs.',
      )
    }
  }

  /** Settles every in-flight run as `abort`, disposes every session, and resolves once every substrate has exited. */
  dispose(): Promise<void> {
    this.disposal ??= this.disposeOnce()
    return this.disposal
  }

  private async disposeOnce(): Promise<void> {
    this.disposed = true
    for (const settle of this.waiting) settle({ kind: 'stopped', failure: 'abort', message: DISPOSED_MESSAGE })
    this.waiting.clear()
    for (const session of this.sessions) session.stop('abort', DISPOSED_MESSAGE)
    const sessions = [...this.liveSessions].map(session => session.dispose())
    await Promise.all([this.pool.dispose(), ...sessions])
    // A session spawn in flight settles (and its substrate exits) before quiescence.
    while (this.opening > 0 || this.exiting.size > 0) {
      await Promise.all([...this.exiting, new Promise(resolve => setTimeout(resolve, 5))])
    }
  }

  /** A failure settled before any program ran: no substrate time, no calls. */
  private fail(
    request: ValidatedRunRequest,
    startedAt: number,
    kind: CodeRunFailureKind,
    message: string,
  ): CodeRunResult {
    return failBeforeRun(request, startedAt, this.options.maxOutputBytes, kind, message)
  }

  /** Takes a substrate for the request's reuse key, unless the signal fires or the runtime is disposed first. */
  private acquire(request: ValidatedRunRequest): Promise<Acquired> {
    const { signal, reuseKey } = request
    return new Promise(resolve => {
      let done = false
      const settle = (acquired: Acquired): void => {
        if (done) {
          if (acquired.kind === 'substrate') acquired.substrate.terminate()
          return
        }
        done = true
        this.waiting.delete(settle)
        signal?.removeEventListener('abort', onAbort)
        resolve(acquired)
      }
      const onAbort = (): void => {
        if (signal !== undefined) settle({ kind: 'stopped', failure: 'abort', message: abortMessage(signal) })
      }
      this.waiting.add(settle)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pool.acquire(reuseKey).then(
        substrate => settle({ kind: 'substrate', substrate }),
        () =>
          settle({
            kind: 'stopped',
            failure: 'worker-exit',
            message: 'The sandbox for this program could not be started.',
          }),
      )
    })
  }
}
