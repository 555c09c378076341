/**
 * One persistent session (CONTRACT section #sessions) on a substrate of its own: runs queue and
 * go one at a time, each a {@link RunSession} on the same substrate with the session's budgets;
 * between runs the substrate waits idle, any message from it then is a protocol violation, and
 * the idle timer ends the session. A run that cannot keep the substrate (a compute timeout, a
 * death, a guest that did not stop) ends the session as `lost`; later runs resolve `worker-exit`
 * naming the session and why.
 */
import {
  CodeRuntimeError,
  type CodeRunFailureFacts,
  type CodeRunFailureKind,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionEndReason,
} from '@code-runtime/core'
import { validateRunRequest, type ValidatedRunRequest } from '@code-runtime/core/internal'
import { abortMessage, failBeforeRun, RunSession } from './run-session.js'
import type { ResolvedSessionOptions } from './session-options.js'
import { transformSessionProgram } from './session-transform.js'
import type { Substrate } from './substrate.js'

/** The engine's limits a session's runs share with one-shot runs. */
export interface SessionRunLimits {
  readonly maxOutputBytes: number
  readonly maxLogEntries: number
  readonly maxPendingCallBytes: number
  readonly maxOldGenerationSizeMb: number
}

const DISPOSED_MESSAGE = 'The session was disposed before the program finished.'

function closedError(): CodeRuntimeError {
  return new CodeRuntimeError(
    'CODE_RUNTIME_SESSION_CLOSED',
    'This session was disposed; open a new session to run programs.',
  )
}

export class EngineSession implements CodeSession {
  readonly id: string
  private readonly substrate: Substrate
  private readonly options: ResolvedSessionOptions
  private readonly limits: SessionRunLimits
  private readonly onEnded: (session: EngineSession, exited: Promise<void>) => void
  private ended: CodeSessionEndReason | undefined
  /** Why the session ended, as the next run's failure says it (beside its `session` fact). */
  private endMessage = ''
  private closed = false
  /** The queue: each run starts when the one before it settled. */
  private tail: Promise<unknown> = Promise.resolve()
  private current: RunSession | undefined
  private idleTimer: NodeJS.Timeout | undefined
  private disposal: Promise<void> | undefined

  constructor(
    id: string,
    substrate: Substrate,
    options: ResolvedSessionOptions,
    limits: SessionRunLimits,
    onEnded: (session: EngineSession, exited: Promise<void>) => void,
  ) {
    this.id = id
    this.substrate = substrate
    this.options = options
    this.limits = limits
    this.onEnded = onEnded
    this.waitIdle()
  }

  get endReason(): CodeSessionEndReason | undefined {
    return this.ended
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.closed) return Promise.reject(closedError())
    let validated: ValidatedRunRequest
    try {
      validated = validateRunRequest(request)
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
    const signal = validated.signal
    if (signal?.aborted === true)
      return Promise.resolve(this.failWithoutRun(validated, performance.now(), 'abort', abortMessage(signal)))
    const place = { started: false, abandoned: false }
    const turn = this.tail.then(() => {
      if (place.abandoned) return undefined
      place.started = true
      return this.runNow(validated)
    })
    this.tail = turn.catch(() => {})
    return signal === undefined
      ? (turn as Promise<CodeRunResult>)
      : this.abortWhileQueued(validated, signal, turn, place)
  }

  /** A run still waiting for its turn settles as `abort` when its signal fires, and never starts. */
  private abortWhileQueued(
    request: ValidatedRunRequest,
    signal: AbortSignal,
    turn: Promise<CodeRunResult | undefined>,
    place: { started: boolean; abandoned: boolean },
  ): Promise<CodeRunResult> {
    const calledAt = performance.now()
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (place.started) return
        place.abandoned = true
        resolve(this.failWithoutRun(request, calledAt, 'abort', abortMessage(signal)))
      }
      signal.addEventListener('abort', onAbort, { once: true })
      turn.then(
        result => {
          signal.removeEventListener('abort', onAbort)
          if (result !== undefined) resolve(result)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort)
          reject(error instanceof Error ? error : new Error(String(error)))
        },
      )
    })
  }

  private failWithoutRun(
    request: ValidatedRunRequest,
    startedAt: number,
    kind: CodeRunFailureKind,
    message: string,
    facts?: CodeRunFailureFacts,
  ): CodeRunResult {
    return failBeforeRun(request, startedAt, this.limits.maxOutputBytes, kind, message, facts)
  }

  /** Ends the session: a run in flight settles as `abort`, queued runs reject; resolves once the substrate exited. */
  dispose(): Promise<void> {
    this.disposal ??= this.disposeOnce()
    return this.disposal
  }

  private async disposeOnce(): Promise<void> {
    this.closed = true
    this.end('disposed', '')
    this.current?.stop('abort', DISPOSED_MESSAGE)
    await this.substrate.exited
  }

  private async runNow(request: ValidatedRunRequest): Promise<CodeRunResult> {
    if (this.closed) throw closedError()
    const startedAt = performance.now()
    const fail = (kind: CodeRunFailureKind, message: string): CodeRunResult =>
      this.failWithoutRun(request, startedAt, kind, message)
    if (this.ended !== undefined)
      return this.failWithoutRun(request, startedAt, 'worker-exit', this.endMessage, {
        session: { id: this.id, ended: this.ended === 'expired' ? 'expired' : 'lost' },
      })
    if (request.signal?.aborted === true) return fail('abort', abortMessage(request.signal))
    const transformed = transformSessionProgram(request.program, {
      namespaceGlobals: request.namespaces.map(namespace => namespace.global),
    })
    if (!transformed.ok) return fail('exception', transformed.error)
    clearTimeout(this.idleTimer)
    const run = new RunSession(this.substrate, {
      request,
      startedAt,
      source: transformed.value.source,
      budgets: this.options.budgets,
      ...this.limits,
      session: {
        spec: {
          keptNames: transformed.value.keptNames,
          publishedFunctions: transformed.value.publishedFunctions,
          maxKeptNames: this.options.maxKeptNames,
        },
        id: this.id,
        lostNote:
          ' This session is lost: its sandbox had to be stopped, and its variables are gone. Open a new session.',
        maxHeapBytes: this.options.maxHeapBytes,
      },
    })
    this.current = run
    run.start()
    const result = await run.result
    this.current = undefined
    if (this.ended === undefined) {
      if (run.endedCleanly && run.spokeLate)
        this.end(
          'lost',
          'This session was lost between runs: its sandbox sent a message out of turn and was stopped. Open a new session.',
        )
      else if (run.endedCleanly) this.waitIdle()
      else
        this.end(
          'lost',
          `This session was lost: ${run.lostBecause ?? 'its sandbox stopped.'} Its variables are gone; open a new session.`,
        )
    }
    return result
  }

  /** Between runs: the substrate must stay silent, and the idle timer runs. */
  private waitIdle(): void {
    const lose = (why: string): void =>
      this.end('lost', `This session was lost between runs: ${why} Open a new session.`)
    this.substrate.attach({
      message: () => lose('its sandbox sent a message out of turn and was stopped.'),
      exit: () => lose('its sandbox exited.'),
    })
    this.substrate.idle?.()
    this.idleTimer = setTimeout(() => {
      this.end(
        'expired',
        `This session expired after ${this.options.idleMs} ms without a run (idleMs); its variables are gone. Open a new session.`,
      )
    }, this.options.idleMs)
    this.idleTimer.unref()
  }

  /** Ends the session once: the substrate is killed and the engine forgets it. */
  private end(reason: CodeSessionEndReason, message: string): void {
    if (this.ended !== undefined) return
    this.ended = reason
    this.endMessage = message
    clearTimeout(this.idleTimer)
    // A run in flight kills the substrate itself (disposal stops it first, with its own message).
    if (this.current === undefined) this.substrate.terminate()
    this.onEnded(this, this.substrate.exited)
  }
}
