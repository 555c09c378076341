/**
 * The vocabulary of the code-runtime seam (CONTRACT section 1). Every backend speaks exactly
 * these shapes; budgets and caps are backend config, never request fields.
 */

/** A value that crosses every boundary losslessly as compact JSON (CONTRACT section 3). */
export type CodeJsonValue =
  | null
  | boolean
  | number
  | string
  | CodeJsonValue[]
  | { [key: string]: CodeJsonValue }

/**
 * A host function the program can call. It receives exactly one argument, already checked to be
 * lossless JSON, and resolves with a value that must be lossless JSON too.
 */
export type CodeBindingFunction = (args: unknown) => Promise<CodeJsonValue>

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
export type CodeRunFailureKind =
  | 'exception'
  | 'timeout'
  | 'abort'
  | 'worker-exit'
  | 'invalid-output'
  | 'output-limit'

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
}

/**
 * The outcome of one run. `value` is absent (the key itself, not `undefined`) when the program
 * returned nothing or failed; `error` is present exactly when the run failed.
 */
export interface CodeRunResult {
  readonly value?: CodeJsonValue
  readonly logs: string[]
  readonly error?: CodeRunFailure
}

/** Well-known values of {@link CodeRuntime.isolation}. Labels for operators, not security claims. */
export type CodeRuntimeIsolation = 'worker-thread' | 'process' | 'container'

/** Well-known values of {@link CodeRuntime.language}. */
export type CodeRuntimeLanguage = 'typescript'
