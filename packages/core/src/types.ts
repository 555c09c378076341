/**
 * The vocabulary of the code-runtime seam (CONTRACT section #seam). Every backend speaks exactly
 * these shapes; budgets and caps are backend config, never request fields.
 */

/** A value that crosses every boundary losslessly as compact JSON (CONTRACT section #lossless-json). */
export type CodeJsonValue = null | boolean | number | string | CodeJsonValue[] | { [key: string]: CodeJsonValue }

/** What the runtime tells a binding function about the call, beside the program's argument. */
export interface CodeBindingCall {
  /** The call's position in the run's call record (`CodeRunResult.calls`): 0 for its first call. */
  readonly index: number
}

/**
 * A host function the program can call. It receives exactly one argument from the program,
 * already checked to be lossless JSON, and resolves with a value that must be lossless JSON too.
 * The runtime passes a second, `call`, saying where the call stands in the run's call record, so
 * that a caller can attach what it decided about a call (an approval, say) to the right record;
 * a function may ignore it, and a runtime that predates it passes nothing.
 */
export type CodeBindingFunction = (args: unknown, call?: CodeBindingCall) => Promise<CodeJsonValue>

/**
 * Describes the class a namespace's rejected calls are instances of inside the program.
 * The runtime creates a real class under the global `name`; each rejection carries the failing
 * member's name in the own property `memberNameProperty`.
 */
export interface CodeBindingErrorClass {
  /** Global name of the class in the program, e.g. `ToolCallError`. */
  readonly name: string
  /** Own property of each instance that holds the member that failed, e.g. `toolName`. */
  readonly memberNameProperty: string
}

/** One global object of async callables, e.g. `tools` with members `search` and `fetch`. */
export interface CodeBindingNamespace {
  /** The global the program sees. Must follow {@link BINDING_NAME_PATTERN} and the reserved-word rules. */
  readonly global: string
  /** Members of the namespace; names are arbitrary strings, looked up as own properties only. */
  readonly functions: Readonly<Record<string, CodeBindingFunction>>
  /** When present, rejected calls of this namespace are instances of this class. */
  readonly errorClass?: CodeBindingErrorClass
}

/** Everything one run acts on. */
export interface CodeRunRequest {
  /** The program: TypeScript (erasable syntax) or JavaScript, run as the body of an async function. */
  readonly program: string
  /** The namespaces exposed to the program as globals. */
  readonly bindings: readonly CodeBindingNamespace[]
  /** Aborting settles the run as `abort` with `String(signal.reason)` as the message. */
  readonly signal?: AbortSignal
  /**
   * Live logs: called with each log entry, in order, as the program prints and before `run()`
   * resolves. What it sees equals `result.logs`, including the cut at the output cap. A throwing
   * or rejecting observer is ignored; it never breaks the run.
   */
  readonly onLog?: (text: string) => void
  /**
   * Keep each binding call's arguments and result (or error message) in `result.calls`, within
   * `maxBytes` of JSON in total; calls past the budget keep their timing only. Off when absent.
   */
  readonly recordCallValues?: { readonly maxBytes: number }
  /**
   * Who this run may share a substrate with, in a backend's opt-in reuse mode: runs with the same
   * key may run one after another in one substrate (each in a fresh context), runs with different
   * keys never do, and a run without a key never shares with a keyed one. A non-empty string of
   * at most {@link MAX_REUSE_KEY_LENGTH} characters, e.g. a tenant id. Without reuse it changes
   * nothing.
   */
  readonly reuseKey?: string
}

/** The longest `reuseKey` a request may carry. */
export const MAX_REUSE_KEY_LENGTH = 256

/** How a binding call ended, as far as the run saw. */
export type CodeBindingCallOutcome = 'ok' | 'error' | 'in-flight'

/** One binding call the program made, in the order the calls started. */
export interface CodeBindingCallRecord {
  /** The namespace global, e.g. `tools`. */
  readonly namespace: string
  /** The member called, e.g. `search`. */
  readonly member: string
  /** When the call started, in milliseconds from the start of the run. */
  readonly startMs: number
  /** How long it ran; for `in-flight`, until the run ended. */
  readonly durationMs: number
  /** `in-flight` when the run ended before the call settled: its side effects may still happen. */
  readonly outcome: CodeBindingCallOutcome
  /** The arguments, when the request asked for values and they fit the budget. */
  readonly args?: CodeJsonValue
  /** The resolution, when asked for and within the budget. */
  readonly result?: CodeJsonValue
  /** The rejection message, when asked for and within the budget. */
  readonly error?: string
  /** True when values were asked for but this call's did not fit the remaining budget. */
  readonly valuesOmitted?: true
}

/** What a run used. */
export interface CodeRunUsage {
  /** Wall time from `run()` to the result, in milliseconds. */
  readonly wallMs: number
  /** Measured busy time of the substrate, in milliseconds (0 when no substrate ran). */
  readonly busyMs: number
  /** Binding calls the program made. */
  readonly bindingCalls: number
  /** Bytes of the outer output, as charged against `maxOutputBytes`. */
  readonly outputBytes: number
  /**
   * The substrate's V8 heap size when the run ended, in bytes, when it can tell (absent otherwise).
   * Not a peak: nothing samples the heap while the program runs.
   */
  readonly endHeapBytes?: number
  /** Which runner ran the program, for a backend whose substrates live on other machines (absent otherwise). */
  readonly runner?: string
}

/**
 * Why a run failed. Kinds are orthogonal and never merged:
 * - `exception`: the program threw, or its source failed to parse or transform;
 * - `timeout`: a backend budget expired (the message names it and its value);
 * - `abort`: the request's signal fired, or the runtime was disposed mid-run;
 * - `worker-exit`: the substrate died without settling (out of memory, exit, crash);
 * - `invalid-output`: the completion value is not lossless JSON;
 * - `output-limit`: logs plus value or message exceeded `maxOutputBytes`.
 */
export type CodeRunFailureKind = 'exception' | 'timeout' | 'abort' | 'worker-exit' | 'invalid-output' | 'output-limit'

/** The list of failure kinds, in the order of {@link CodeRunFailureKind}. */
export const CODE_RUN_FAILURE_KINDS: readonly CodeRunFailureKind[] = Object.freeze([
  'exception',
  'timeout',
  'abort',
  'worker-exit',
  'invalid-output',
  'output-limit',
])

/** A failed run's outcome, written for a model to read and self-correct. */
export interface CodeRunFailure {
  readonly kind: CodeRunFailureKind
  readonly message: string
  /**
   * Only on a `timeout` that a budget ended, where the backend can tell: the budget and its value,
   * so a later layer names it in its own words (a CLI its option) without reading `message`.
   */
  readonly budget?: CodeRunBudget
  /**
   * Only on a run of a session that ended: the run that lost it (any kind) or a run that found it
   * ended (`worker-exit`). Which session and how it ended, so a later layer (a remote runner that
   * names sessions across its fleet, a front end) names it in its own words; the message says
   * "this session" and never carries the id.
   */
  readonly session?: CodeRunSessionEnd
}

/** The session a failure ended, or found ended: its id, and `lost` (its substrate stopped) or `expired` (`idleMs`). */
export interface CodeRunSessionEnd {
  /** The session's id, as `CodeSession.id` gives it. */
  readonly id: string
  readonly ended: 'lost' | 'expired'
}

/** The optional facts a failure carries beside its kind and message (CONTRACT.md#failure-facts). */
export type CodeRunFailureFacts = Pick<CodeRunFailure, 'budget' | 'session'>

/** The budget a run ran out of: its config field (`computeMs`, `maxWallMs`, or a backend's own) and the value it had. */
export interface CodeRunBudget {
  /** The config field that set it, e.g. `maxWallMs`. */
  readonly name: string
  /** Its value, in the unit its name says (milliseconds for `computeMs` and `maxWallMs`). */
  readonly limit: number
}

/**
 * The outcome of one run. `value` is absent (the key itself, not `undefined`) when the program
 * returned nothing or failed; `error` is present exactly when the run failed.
 */
export interface CodeRunResult {
  readonly value?: CodeJsonValue
  readonly logs: string[]
  readonly error?: CodeRunFailure
  /** What the run used, success or failure; the conformance suite requires it of every backend. */
  readonly usage: CodeRunUsage
  /** Every binding call, in start order (empty when none was made); required like `usage`. */
  readonly calls: CodeBindingCallRecord[]
}

/**
 * What a run printed and how it ended, before `usage` and `calls` are added: the part of a
 * {@link CodeRunResult} the output ledger settles and a renderer reads.
 */
export type CodeRunOutcome = Pick<CodeRunResult, 'value' | 'logs' | 'error'>

/** Well-known values of {@link CodeRuntime.isolation}. Labels for operators, not security claims. */
export type CodeRuntimeIsolation = 'worker-thread' | 'process' | 'container' | 'remote'

/** Well-known values of {@link CodeRuntime.language}. */
export type CodeRuntimeLanguage = 'typescript'
