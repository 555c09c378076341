/**
 * The run path of a substrate backend, as a table of contents: validate → transform → take a
 * fresh substrate → run session (bridge, ledger, budgets) → result. It also owns disposal to
 * quiescence: every in-flight run settles as `abort` and every substrate has exited before
 * {@link RunEngine.dispose} resolves.
 */
import {
  CodeRuntimeError,
  OutputLedger,
  validateRunRequest,
  type CodeRunFailureKind,
  type CodeRunRequest,
  type CodeRunResult,
  type SharedBackendConfig,
  type ValidatedRunRequest,
} from '@code-runtime/core'
import type { RunBudgetLimits } from './budgets.js'
import { abortMessage, RunSession } from './run-session.js'
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
  }
}

const DISPOSED_MESSAGE = 'The runtime was disposed before the program finished.'

type Acquired = { readonly kind: 'substrate'; readonly substrate: Substrate } | { readonly kind: 'stopped'; readonly failure: CodeRunFailureKind; readonly message: string }

export class RunEngine {
  private readonly options: RunEngineOptions
  private readonly pool: SubstratePool
  private readonly sessions = new Set<RunSession>()
  private readonly waiting = new Set<(acquired: Acquired) => void>()
  private disposed = false
  private disposal: Promise<void> | undefined

  constructor(options: RunEngineOptions) {
    this.options = options
    this.pool = new SubstratePool(options.factory, options.spawnAhead, options.reuseSubstrates ?? false, undefined, options.reuseIdle)
  }

  /** Runs one program; see CodeRuntime.run for the contract. */
  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    const startedAt = performance.now()
    if (this.disposed) {
      throw new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'This code runtime was disposed; start a new one to run programs.')
    }
    const validated = validateRunRequest(request)
    const signal = validated.signal
    const fail = (kind: CodeRunFailureKind, message: string): CodeRunResult => this.fail(validated, startedAt, kind, message)
    if (signal?.aborted === true) return fail('abort', abortMessage(signal))
    const transformed = transformProgram(validated.program)
    if (!transformed.ok) return fail('exception', transformed.message)
    const acquired = await this.acquire(validated)
    if (acquired.kind === 'stopped') return fail(acquired.failure, acquired.message)
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
      source: transformed.source,
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

  /** Settles every in-flight run as `abort` and resolves once every substrate has exited. */
  dispose(): Promise<void> {
    this.disposal ??= this.disposeOnce()
    return this.disposal
  }

  private async disposeOnce(): Promise<void> {
    this.disposed = true
    for (const settle of this.waiting) settle({ kind: 'stopped', failure: 'abort', message: DISPOSED_MESSAGE })
    this.waiting.clear()
    for (const session of this.sessions) session.stop('abort', DISPOSED_MESSAGE)
    await this.pool.dispose()
  }

  /** A failure settled before any program ran: no substrate time, no calls. */
  private fail(request: ValidatedRunRequest, startedAt: number, kind: CodeRunFailureKind, message: string): CodeRunResult {
    const ledger = new OutputLedger(this.options.maxOutputBytes, request.onLog)
    const result = ledger.settleFailure(kind, message)
    const usage = { wallMs: performance.now() - startedAt, busyMs: 0, bindingCalls: 0, outputBytes: ledger.outputBytes }
    return { ...result, usage, calls: [] }
  }

  /** Takes a substrate for the request's reuse key, unless the signal fires or the runtime is disposed first. */
  private acquire(request: ValidatedRunRequest): Promise<Acquired> {
    const { signal, reuseKey } = request
    return new Promise((resolve) => {
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
        (substrate) => settle({ kind: 'substrate', substrate }),
        () => settle({ kind: 'stopped', failure: 'worker-exit', message: 'The sandbox for this program could not be started.' }),
      )
    })
  }
}
