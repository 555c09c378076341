/**
 * One run on one substrate, from `run-start` to the settled result: it routes the guest's
 * messages (logs to the ledger, calls to the bridge, the end to the result), watches the budgets
 * and the abort signal, and settles exactly once. Settling closes the bridge, stops the budgets
 * and kills the substrate; the substrate's exit is awaited by the engine, not by the result.
 *
 * A run of a persistent session keeps its substrate whenever the guest can still hear: an abort,
 * a wall-clock timeout or the output cap sends `run-stop` and waits a short grace for
 * `run-stopped`; only a guest that does not answer (it is computing), a compute timeout, a death
 * or a protocol violation kills the substrate, and the run's message then says the session is lost.
 */
import {
  type CodeRunBudget,
  type CodeRunFailureFacts,
  type CodeRunFailureKind,
  type CodeRunOutcome,
  type CodeRunResult,
  type CodeRunUsage,
} from '@code-runtime/core'
import { type ValidatedRunRequest } from '@code-runtime/core/internal'
import { jsonValueByteLength, OutputLedger, safeSnapshotLosslessJson } from '@code-runtime/core/json'
import { BindingBridge } from './binding-bridge.js'
import { expiredBudgetOf, RunBudgets, type ExpiredBudget, type RunBudgetLimits } from './budgets.js'
import {
  decodeGuestMessage,
  type GuestToHostMessage,
  type NamespaceSpec,
  type SessionRunSpec,
} from '../protocol/messages.js'
import type { Substrate, SubstrateExit } from './substrate.js'

/** What a session needs besides the substrate. */
export interface RunSessionOptions {
  readonly request: ValidatedRunRequest
  /** When `run()` was called, from `performance.now()`: the origin of wall time and call offsets. */
  readonly startedAt: number
  /** The transformed, wrapped program. */
  readonly source: string
  readonly budgets: RunBudgetLimits
  readonly maxOutputBytes: number
  /** Most log entries a run may print (the ledger's second bound). */
  readonly maxLogEntries: number
  /** Budget for the argument bytes of binding calls in flight, held on the host. */
  readonly maxPendingCallBytes: number
  /** Heap cap, named in the out-of-memory message. */
  readonly maxOldGenerationSizeMb: number
  /** Present for a run of a persistent session. */
  readonly session?: SessionRunOptions
}

/** What a run of a persistent session adds. */
export interface SessionRunOptions {
  /** What the run's program keeps (from the session transform). */
  readonly spec: SessionRunSpec
  /** The session's id: a run that lost the substrate says which session in its failure's `session` fact. */
  readonly id: string
  /** Appended to the failure message of a run that lost the substrate, e.g. ` This session is lost.` */
  readonly lostNote: string
  /** The heap budget the caller gave the session, named when the substrate runs out of memory or reports more heap. */
  readonly maxHeapBytes: number | undefined
}

/** How long a session's guest has to answer `run-stop` before its substrate is killed. */
export const RUN_STOP_GRACE_MS = 250

/** How a settled run leaves its substrate: idle (it ended or stopped), asked to stop, or killed. */
type Leaving = 'idle' | 'stop' | 'kill'

/** The text of an `abort` failure: the signal's reason, as `String(reason)`. */
export function abortMessage(signal: AbortSignal): string {
  try {
    return String(signal.reason)
  } catch {
    return 'The run was aborted.'
  }
}

/** The result of a run that failed before any program ran: no substrate time, no calls. */
export function failBeforeRun(
  request: ValidatedRunRequest,
  startedAt: number,
  maxOutputBytes: number,
  kind: CodeRunFailureKind,
  message: string,
  facts?: CodeRunFailureFacts,
): CodeRunResult {
  const ledger = new OutputLedger(maxOutputBytes, request.onLog)
  const result = ledger.settleFailure(kind, message, facts)
  const usage = { wallMs: performance.now() - startedAt, busyMs: 0, bindingCalls: 0, outputBytes: ledger.outputBytes }
  return { ...result, usage, calls: [] }
}

/** The heap budget the out-of-memory message names. */
function heapBudgetOf(options: RunSessionOptions): string {
  return options.session?.maxHeapBytes === undefined
    ? `maxOldGenerationSizeMb: ${options.maxOldGenerationSizeMb} MiB`
    : `the session's maxHeapBytes: ${options.session.maxHeapBytes} bytes`
}

function describeExit(reason: SubstrateExit, heapBudget: string): string {
  switch (reason.kind) {
    case 'out-of-memory':
      return `The program ran out of memory (${heapBudget}) and was stopped. Hold less data at once.`
    case 'crashed':
      return 'The sandbox running the program crashed before the program finished.'
    case 'over-budget':
      return reason.message
    case 'exited':
      return `The sandbox running the program exited before the program finished (exit code ${String(reason.code)}).`
  }
}

export class RunSession {
  /** Resolves once, with the run's result. */
  readonly result: Promise<CodeRunResult>
  private readonly substrate: Substrate
  private readonly options: RunSessionOptions
  private readonly ledger: OutputLedger
  private readonly bridge: BindingBridge
  private readonly budgets: RunBudgets
  private resolveResult!: (result: CodeRunResult) => void
  private settled = false
  /** Set when the guest sent anything after the run settled: in a session, a message out of turn. */
  private spokeAfterSettling = false
  private cleanEnd = false
  private heapBytes: number | undefined
  /** While a session's guest is asked to stop: how to finish once it answered or did not. */
  private stopping: { readonly finish: (survived: boolean) => void } | undefined
  /** Why the substrate was killed, when it was: a lost session names it. */
  private lossReason: string | undefined
  /** Set when the caller ends the session anyway (disposal): no failure then says it is lost. */
  private endedFromOutside = false
  private readonly onAbort = (): void => {
    const signal = this.options.request.signal
    if (signal !== undefined) this.settleFailure('abort', abortMessage(signal), this.stopOrKill())
  }

  constructor(substrate: Substrate, options: RunSessionOptions) {
    this.substrate = substrate
    this.options = options
    this.result = new Promise(resolve => {
      this.resolveResult = resolve
    })
    this.ledger = new OutputLedger(options.maxOutputBytes, options.request.onLog, {
      maxLogEntries: options.maxLogEntries,
    })
    this.bridge = new BindingBridge(options.request.namespaces, message => this.substrate.send(message), {
      startedAt: options.startedAt,
      recordValuesBytes: options.request.recordCallValuesBytes,
      maxPendingCallBytes: options.maxPendingCallBytes,
      resultPartChars: substrate.resultPartChars,
    })
    this.budgets = new RunBudgets(substrate, options.budgets, (message, budget: ExpiredBudget) =>
      // Past its compute budget the program is computing: only killing stops it.
      this.settleFailure(
        'timeout',
        message,
        budget === 'compute' ? 'kill' : this.stopOrKill(),
        expiredBudgetOf(budget, options.budgets),
      ),
    )
  }

  /** The run's substrate was killed (a session's is then lost); the failure that did it. */
  get lostBecause(): string | undefined {
    return this.lossReason
  }

  /**
   * True when the guest sent a message after the run settled, before its session could watch
   * the substrate again (both can arrive in one read): the session treats it as out of turn.
   */
  get spokeLate(): boolean {
    return this.spokeAfterSettling
  }

  /**
   * True when the run settled because the guest reported its end (or, in a session, answered
   * `run-stop`): the substrate is idle and alive, and the engine decides whether to kill, keep
   * or (in the opt-in reuse mode) recycle it. Any other ending already killed it.
   */
  get endedCleanly(): boolean {
    return this.cleanEnd
  }

  /** Starts the program. */
  start(): void {
    const { request, source, maxOutputBytes } = this.options
    this.substrate.attach({
      message: raw => this.receive(raw),
      exit: reason => {
        const message = describeExit(reason, heapBudgetOf(this.options))
        if (this.stopping !== undefined) {
          this.lossReason = message
          this.stopping.finish(false)
          return
        }
        this.settleFailure('worker-exit', message, 'kill')
      },
    })
    const signal = request.signal
    if (signal !== undefined) {
      if (signal.aborted) {
        this.onAbort()
        return
      }
      signal.addEventListener('abort', this.onAbort, { once: true })
    }
    const namespaces: NamespaceSpec[] = request.namespaces.map(namespace => ({
      global: namespace.global,
      members: [...namespace.functions.keys()],
      errorClass: namespace.errorClass === undefined ? null : { ...namespace.errorClass },
    }))
    this.budgets.start()
    const session = this.options.session?.spec
    this.substrate.send(
      session === undefined
        ? { kind: 'run-start', source, namespaces, maxOutputBytes }
        : { kind: 'run-start', source, namespaces, maxOutputBytes, session },
    )
  }

  /** Stops the run from outside (disposal): it settles with `kind` and the substrate is killed. */
  stop(kind: CodeRunFailureKind, message: string): void {
    this.endedFromOutside = true
    if (this.stopping !== undefined) {
      this.stopping.finish(false)
      return
    }
    this.settleFailure(kind, message, 'kill')
  }

  /** A session's guest can be asked to stop; a one-shot run's substrate is simply killed. */
  private stopOrKill(): Leaving {
    return this.options.session === undefined ? 'kill' : 'stop'
  }

  private receive(raw: unknown): void {
    if (this.stopping !== undefined) {
      this.receiveWhileStopping(raw)
      return
    }
    if (this.settled) {
      this.spokeAfterSettling = true
      return
    }
    const decoded = decodeGuestMessage(raw)
    if (!decoded.ok) {
      this.protocolViolation(decoded.error)
      return
    }
    this.handle(decoded.value)
  }

  // What the guest sent before it read `run-stop` is dropped; `run-stopped` is its answer.
  // Anything else (a second ready, a malformed frame) means the sandbox was subverted.
  private receiveWhileStopping(raw: unknown): void {
    const decoded = decodeGuestMessage(raw)
    const kind = decoded.ok ? decoded.value.kind : undefined
    if (kind === 'run-stopped') this.stopping?.finish(true)
    else if (kind === undefined || kind === 'guest-ready') {
      this.lossReason = `The sandbox sent ${decoded.ok ? 'a message out of turn' : decoded.error} and was stopped.`
      this.stopping?.finish(false)
    }
  }

  private handle(message: GuestToHostMessage): void {
    switch (message.kind) {
      case 'guest-ready':
        return
      case 'run-stopped':
        // Never asked for: only a subverted guest sends it.
        this.protocolViolation('a run-stopped out of turn')
        return
      case 'log-line':
        if (!this.ledger.appendLog(message.text)) this.settle(() => this.ledger.settleOverflow(), this.stopOrKill())
        return
      case 'call-request': {
        const problem = this.bridge.handle(message)
        if (problem !== undefined) this.protocolViolation(problem)
        return
      }
      case 'run-end': {
        this.heapBytes = message.heapBytes
        this.cleanEnd = true
        const maxHeapBytes = this.options.session?.maxHeapBytes
        // The used heap, not the reserved one: a young generation full of garbage is not state.
        if (maxHeapBytes !== undefined && message.usedHeapBytes !== undefined && message.usedHeapBytes > maxHeapBytes) {
          this.cleanEnd = false
          this.settleFailure(
            'worker-exit',
            `The session's heap grew to ${message.usedHeapBytes} bytes, over its maxHeapBytes budget of ${maxHeapBytes}, and its sandbox was stopped. Keep less data in the session.`,
            'kill',
          )
          return
        }
        if (message.outcome !== 'value') {
          this.settleFailure(message.outcome, message.message, 'idle')
          return
        }
        this.settleValue(message.valueJson)
        return
      }
    }
  }

  private settleValue(valueJson: string | null): void {
    if (valueJson === null) {
      this.settle(() => this.ledger.settleValue(undefined, 0), 'idle')
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(valueJson)
    } catch {
      this.protocolViolation('a completion value that is not JSON')
      return
    }
    const value = safeSnapshotLosslessJson(parsed)
    if (!value.ok) {
      this.protocolViolation('a completion value that is not lossless JSON')
      return
    }
    this.settle(() => this.ledger.settleValue(value.value, jsonValueByteLength(value.value)), 'idle')
  }

  // The guest runtime is ours; traffic it could not have sent means the sandbox was subverted.
  // Such a substrate is killed, never recycled, even when the violation came inside a run-end.
  private protocolViolation(problem: string): void {
    this.cleanEnd = false
    this.settleFailure('worker-exit', `The sandbox sent ${problem} and was stopped.`, 'kill')
  }

  /**
   * Settles a failure. In a session, a failure that killed the substrate says so in its message,
   * except when the caller ends the session anyway (disposal).
   */
  private settleFailure(kind: CodeRunFailureKind, message: string, leaving: Leaving, budget?: CodeRunBudget): void {
    if (this.settled) return
    if (leaving === 'kill') this.lossReason = message
    const session = this.options.session
    const facts = budget === undefined ? {} : { budget }
    this.settle(lost => {
      if (!lost || this.endedFromOutside || session === undefined)
        return this.ledger.settleFailure(kind, message, facts)
      const ended = { id: session.id, ended: 'lost' } as const
      return this.ledger.settleFailure(kind, message + session.lostNote, { ...facts, session: ended })
    }, leaving)
  }

  /**
   * Settles once: `outcome` builds the result (told whether the substrate was lost), `leaving`
   * says what becomes of the substrate.
   */
  private settle(outcome: (lost: boolean) => CodeRunOutcome, leaving: Leaving): void {
    if (this.settled) return
    this.settled = true
    this.budgets.stop()
    this.bridge.close()
    this.options.request.signal?.removeEventListener('abort', this.onAbort)
    // Busy time is read before the substrate is killed; afterwards there is nothing to ask.
    const usage: { -readonly [K in keyof CodeRunUsage]: CodeRunUsage[K] } = {
      wallMs: performance.now() - this.options.startedAt,
      busyMs: this.substrate.busyMs(),
      bindingCalls: this.bridge.callCount,
      outputBytes: 0,
    }
    if (this.heapBytes !== undefined) usage.endHeapBytes = this.heapBytes
    const finish = (lost: boolean): void => {
      const built = outcome(lost)
      usage.outputBytes = this.ledger.outputBytes
      this.resolveResult({ ...built, usage, calls: this.bridge.records() })
    }
    if (leaving === 'stop') {
      this.askToStop(finish)
      return
    }
    if (leaving === 'kill' || !this.cleanEnd) {
      this.cleanEnd = false
      this.substrate.terminate()
    }
    finish(leaving === 'kill')
  }

  /** Sends `run-stop`; the guest's answer keeps the substrate, silence past the grace kills it. */
  private askToStop(finish: (lost: boolean) => void): void {
    const grace = setTimeout(() => {
      this.lossReason ??= `The sandbox did not stop within ${RUN_STOP_GRACE_MS} ms: the program was computing.`
      this.stopping?.finish(false)
    }, RUN_STOP_GRACE_MS)
    this.stopping = {
      finish: survived => {
        clearTimeout(grace)
        this.stopping = undefined
        this.cleanEnd = survived
        if (!survived) this.substrate.terminate()
        finish(!survived)
      },
    }
    this.substrate.send({ kind: 'run-stop' })
  }
}
