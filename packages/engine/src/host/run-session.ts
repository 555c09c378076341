/**
 * One run on one substrate, from `run-start` to the settled result: it routes the guest's
 * messages (logs to the ledger, calls to the bridge, the end to the result), watches the budgets
 * and the abort signal, and settles exactly once. Settling closes the bridge, stops the budgets
 * and kills the substrate; the substrate's exit is awaited by the engine, not by the result.
 */
import {
  jsonValueByteLength,
  OutputLedger,
  safeSnapshotLosslessJson,
  type CodeRunFailureKind,
  type CodeRunOutcome,
  type CodeRunResult,
  type CodeRunUsage,
  type ValidatedRunRequest,
} from '@code-runtime/core'
import { BindingBridge } from './binding-bridge.js'
import { RunBudgets, type RunBudgetLimits } from './budgets.js'
import { decodeGuestMessage, type GuestToHostMessage, type NamespaceSpec } from '../protocol/messages.js'
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
}

/** The text of an `abort` failure: the signal's reason, as `String(reason)`. */
export function abortMessage(signal: AbortSignal): string {
  try {
    return String(signal.reason)
  } catch {
    return 'The run was aborted.'
  }
}

function describeExit(reason: SubstrateExit, maxOldGenerationSizeMb: number): string {
  switch (reason.kind) {
    case 'out-of-memory':
      return `The program ran out of memory (maxOldGenerationSizeMb: ${maxOldGenerationSizeMb} MiB) and was stopped. Hold less data at once.`
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
  private cleanEnd = false
  private heapBytes: number | undefined
  private readonly onAbort = (): void => {
    const signal = this.options.request.signal
    if (signal !== undefined) this.settleFailure('abort', abortMessage(signal))
  }

  constructor(substrate: Substrate, options: RunSessionOptions) {
    this.substrate = substrate
    this.options = options
    this.result = new Promise((resolve) => {
      this.resolveResult = resolve
    })
    this.ledger = new OutputLedger(options.maxOutputBytes, options.request.onLog, { maxLogEntries: options.maxLogEntries })
    this.bridge = new BindingBridge(options.request.namespaces, (message) => this.substrate.send(message), {
      startedAt: options.startedAt,
      recordValuesBytes: options.request.recordCallValuesBytes,
      maxPendingCallBytes: options.maxPendingCallBytes,
      resultPartChars: substrate.resultPartChars,
    })
    this.budgets = new RunBudgets(substrate, options.budgets, (message) => this.settleFailure('timeout', message))
  }

  /** True once the result is settled. */
  get isSettled(): boolean {
    return this.settled
  }

  /**
   * True when the run settled because the guest reported its end: the substrate is idle and
   * alive, and the engine decides whether to kill or (in the opt-in reuse mode) recycle it.
   * Any other ending (budget, abort, overflow, death, protocol violation) already killed it.
   */
  get endedCleanly(): boolean {
    return this.cleanEnd
  }

  /** Starts the program. */
  start(): void {
    const { request, source, maxOutputBytes } = this.options
    this.substrate.attach({
      message: (raw) => this.receive(raw),
      exit: (reason) => this.settleFailure('worker-exit', describeExit(reason, this.options.maxOldGenerationSizeMb)),
    })
    const signal = request.signal
    if (signal !== undefined) {
      if (signal.aborted) {
        this.onAbort()
        return
      }
      signal.addEventListener('abort', this.onAbort, { once: true })
    }
    const namespaces: NamespaceSpec[] = request.namespaces.map((namespace) => ({
      global: namespace.global,
      members: [...namespace.functions.keys()],
      errorClass: namespace.errorClass === undefined ? null : { ...namespace.errorClass },
    }))
    this.budgets.start()
    this.substrate.send({ kind: 'run-start', source, namespaces, maxOutputBytes })
  }

  /** Stops the run from outside (disposal): it settles with `kind`. */
  stop(kind: CodeRunFailureKind, message: string): void {
    this.settleFailure(kind, message)
  }

  private receive(raw: unknown): void {
    if (this.settled) return
    const decoded = decodeGuestMessage(raw)
    if (!decoded.ok) {
      this.protocolViolation(decoded.problem)
      return
    }
    this.handle(decoded.message)
  }

  private handle(message: GuestToHostMessage): void {
    switch (message.kind) {
      case 'guest-ready':
        return
      case 'log-line':
        if (!this.ledger.appendLog(message.text)) this.settle(this.ledger.settleOverflow())
        return
      case 'call-request': {
        const problem = this.bridge.handle(message)
        if (problem !== undefined) this.protocolViolation(problem)
        return
      }
      case 'run-end':
        this.heapBytes = message.heapBytes
        this.cleanEnd = true
        if (message.outcome !== 'value') {
          this.settleFailure(message.outcome, message.message)
          return
        }
        this.settleValue(message.valueJson)
        return
    }
  }

  private settleValue(valueJson: string | null): void {
    if (valueJson === null) {
      this.settle(this.ledger.settleValue(undefined, 0))
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
    this.settle(this.ledger.settleValue(value.value, jsonValueByteLength(value.value)))
  }

  // The guest runtime is ours; traffic it could not have sent means the sandbox was subverted.
  // Such a substrate is killed, never recycled, even when the violation came inside a run-end.
  private protocolViolation(problem: string): void {
    this.cleanEnd = false
    this.settleFailure('worker-exit', `The sandbox sent ${problem} and was stopped.`)
  }

  private settleFailure(kind: CodeRunFailureKind, message: string): void {
    if (this.settled) return
    this.settle(this.ledger.settleFailure(kind, message))
  }

  private settle(outcome: CodeRunOutcome): void {
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
      outputBytes: this.ledger.outputBytes,
    }
    if (this.heapBytes !== undefined) usage.peakHeapBytes = this.heapBytes
    if (!this.cleanEnd) this.substrate.terminate()
    this.resolveResult({ ...outcome, usage, calls: this.bridge.records() })
  }
}
