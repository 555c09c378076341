/**
 * The name rules of CONTRACT section #names and the one validator that applies them. Every backend
 * calls {@link validateRunRequest}, so one namespace list behaves the same on every backend,
 * including a future Python one (hence the Python keywords and the refusal of `$`).
 */
import { CodeRuntimeError, describeValue } from './errors.js'
import {
  MAX_REUSE_KEY_LENGTH,
  type CodeBindingErrorClass,
  type CodeBindingFunction,
  type CodeBindingNamespace,
  type CodeRunRequest,
} from './types.js'

/** A namespace global or error-class name: an ASCII identifier without `$`. */
export const BINDING_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/

/** ECMAScript reserved words, strict-mode reserved words, and `arguments`/`eval`. */
export const ECMASCRIPT_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'arguments',
  'eval',
])

/** Read-only value properties of the JavaScript global object: binding one can never work. */
export const ECMASCRIPT_READONLY_GLOBALS: ReadonlySet<string> = new Set(['undefined', 'NaN', 'Infinity'])

/** Python keywords and the soft keywords `match`, `case`, `type` and `_`. */
export const PYTHON_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
  'match',
  'case',
  'type',
  '_',
])

/** Globals the runtimes own themselves; no namespace or error class may take them. */
export const RESERVED_GLOBALS: ReadonlySet<string> = new Set([
  'console',
  '__dsh_main__',
  '__builtins__',
  '__name__',
  '__debug__',
])

/** Properties an error class needs for itself (JavaScript and Python), refused as `memberNameProperty`. */
export const RESERVED_MEMBER_NAME_PROPERTIES: ReadonlySet<string> = new Set([
  'name',
  'message',
  'stack',
  'args',
  'with_traceback',
  'add_note',
])

/** Python's dunder form `__x__`, refused as `memberNameProperty`. */
export const DUNDER_PATTERN = /^__.*__$/s

/** One namespace after validation: a frozen copy the backend can trust and read freely. */
export interface ValidatedNamespace {
  readonly global: string
  /**
   * Members keyed by name; a `Map`, so `__proto__` or `constructor` are ordinary keys. A member
   * whose host value was not a function is here as a function that rejects every call.
   */
  readonly functions: ReadonlyMap<string, CodeBindingFunction>
  readonly errorClass?: CodeBindingErrorClass
}

/** A request after validation: what a backend acts on. */
export interface ValidatedRunRequest {
  readonly program: string
  readonly namespaces: readonly ValidatedNamespace[]
  readonly signal?: AbortSignal
  readonly onLog?: (text: string) => void
  /** Byte budget for recorded call values; absent when values are not recorded. */
  readonly recordCallValuesBytes?: number
  /** The request's reuse key, absent when it has none. */
  readonly reuseKey?: string
}

function refuseBindings(field: string, value: unknown, rule: string): never {
  throw new CodeRuntimeError(
    'CODE_RUNTIME_INVALID_BINDINGS',
    `Invalid bindings: ${field} ${describeValue(value)} ${rule}.`,
    { field, value, rule },
  )
}

/** Why `name` cannot be a global, or `undefined` when it can. */
function explainGlobalNameProblem(name: string): string | undefined {
  if (!BINDING_NAME_PATTERN.test(name)) {
    return 'must match [A-Za-z_][A-Za-z0-9_]* (ASCII letters, digits and _, no $, not starting with a digit)'
  }
  if (ECMASCRIPT_RESERVED_WORDS.has(name)) return 'is a reserved word of JavaScript'
  if (PYTHON_RESERVED_WORDS.has(name)) return 'is a reserved word of Python'
  if (ECMASCRIPT_READONLY_GLOBALS.has(name)) return 'is a read-only global of JavaScript'
  if (RESERVED_GLOBALS.has(name)) return 'is a global the runtime reserves for itself'
  return undefined
}

function readErrorClass(field: string, value: unknown): CodeBindingErrorClass {
  if (typeof value !== 'object' || value === null) {
    refuseBindings(field, value, 'must be an object { name, memberNameProperty }')
  }
  const { name, memberNameProperty } = value as Record<string, unknown>
  if (typeof name !== 'string') refuseBindings(`${field}.name`, name, 'must be a string')
  const nameProblem = explainGlobalNameProblem(name)
  if (nameProblem !== undefined) refuseBindings(`${field}.name`, name, nameProblem)
  if (typeof memberNameProperty !== 'string') {
    refuseBindings(`${field}.memberNameProperty`, memberNameProperty, 'must be a string')
  }
  if (memberNameProperty === '') refuseBindings(`${field}.memberNameProperty`, memberNameProperty, 'must not be empty')
  if (RESERVED_MEMBER_NAME_PROPERTIES.has(memberNameProperty)) {
    refuseBindings(
      `${field}.memberNameProperty`,
      memberNameProperty,
      `is a property errors need for themselves (refused: ${[...RESERVED_MEMBER_NAME_PROPERTIES].join(', ')})`,
    )
  }
  if (DUNDER_PATTERN.test(memberNameProperty)) {
    refuseBindings(`${field}.memberNameProperty`, memberNameProperty, 'must not have the dunder form __x__')
  }
  return Object.freeze({ name, memberNameProperty })
}

/**
 * The stand-in for a member whose host value is not a function. The reference runtime accepts
 * such a namespace and rejects only a call to that member, so a drop-in host that binds a stray
 * value keeps working. The message names the kind of value, never the value: a host that bound
 * a configuration string by mistake must not hand its content to the program.
 */
function uncallableMember(global: string, member: string, value: unknown): CodeBindingFunction {
  const kind =
    value === null || value === undefined
      ? String(value)
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`
  const message = `${global}.${member} cannot be called: the host bound ${kind} to it, not a function. Use another member.`
  return () => Promise.reject(new Error(message))
}

function readFunctions(field: string, global: string, value: unknown): ReadonlyMap<string, CodeBindingFunction> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuseBindings(field, value, 'must be an object of functions')
  }
  const functions = new Map<string, CodeBindingFunction>()
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string') refuseBindings(field, value, 'must have string keys only')
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key)
    if (descriptor === undefined || descriptor.enumerable !== true) continue
    if (!('value' in descriptor))
      refuseBindings(`${field}[${JSON.stringify(key)}]`, undefined, 'must be a data property, not a getter')
    const member: unknown = descriptor.value
    functions.set(
      key,
      typeof member === 'function' ? (member as CodeBindingFunction) : uncallableMember(global, key, member),
    )
  }
  return functions
}

/**
 * Checks binding declarations against the name rules and returns a frozen, validated copy.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_BINDINGS`, naming the offending value and the rule.
 */
export function validateBindings(bindings: unknown): readonly ValidatedNamespace[] {
  if (!Array.isArray(bindings)) refuseBindings('bindings', bindings, 'must be an array of namespaces')
  const takenGlobals = new Map<string, string>()
  const namespaces: ValidatedNamespace[] = []
  for (let index = 0; index < bindings.length; index++) {
    const field = `bindings[${index}]`
    const namespace: unknown = bindings[index]
    if (typeof namespace !== 'object' || namespace === null) {
      refuseBindings(field, namespace, 'must be an object { global, functions, errorClass? }')
    }
    const { global, functions, errorClass } = namespace as Partial<Record<keyof CodeBindingNamespace, unknown>>
    if (typeof global !== 'string') refuseBindings(`${field}.global`, global, 'must be a string')
    const globalProblem = explainGlobalNameProblem(global)
    if (globalProblem !== undefined) refuseBindings(`${field}.global`, global, globalProblem)
    const earlier = takenGlobals.get(global)
    if (earlier !== undefined) refuseBindings(`${field}.global`, global, `is already taken by ${earlier}`)
    takenGlobals.set(global, `${field}.global`)
    const members = readFunctions(`${field}.functions`, global, functions)
    namespaces.push(
      errorClass === undefined
        ? { global, functions: members }
        : { global, functions: members, errorClass: readErrorClass(`${field}.errorClass`, errorClass) },
    )
  }
  // Error-class names are checked once every namespace global is known, so the order of the
  // namespaces does not change which one is blamed.
  for (let index = 0; index < namespaces.length; index++) {
    const errorClass = namespaces[index]?.errorClass
    if (errorClass === undefined) continue
    const field = `bindings[${index}].errorClass.name`
    const earlier = takenGlobals.get(errorClass.name)
    if (earlier !== undefined) refuseBindings(field, errorClass.name, `is already taken by ${earlier}`)
    takenGlobals.set(errorClass.name, field)
  }
  return Object.freeze(namespaces.map(namespace => Object.freeze(namespace)))
}

/**
 * Checks a whole run request and returns the validated copy a backend acts on.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` for a malformed request,
 *   `CODE_RUNTIME_INVALID_BINDINGS` for bindings that break the name rules.
 */
export function validateRunRequest(request: CodeRunRequest): ValidatedRunRequest {
  if (typeof request !== 'object' || request === null) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: expected an object { program, bindings, signal? }, got ${describeValue(request)}.`,
      { field: 'request', value: request },
    )
  }
  const { program, bindings, signal, onLog, recordCallValues, reuseKey } = request as Partial<
    Record<keyof CodeRunRequest, unknown>
  >
  if (typeof program !== 'string') {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: program must be a string, got ${describeValue(program)}.`,
      { field: 'program', value: program },
    )
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: signal must be an AbortSignal, got ${describeValue(signal)}.`,
      { field: 'signal', value: signal },
    )
  }
  if (onLog !== undefined && typeof onLog !== 'function') {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: onLog must be a function, got ${describeValue(onLog)}.`,
      { field: 'onLog', value: onLog },
    )
  }
  const recordCallValuesBytes = readRecordCallValues(recordCallValues)
  if (
    reuseKey !== undefined &&
    (typeof reuseKey !== 'string' || reuseKey.length === 0 || reuseKey.length > MAX_REUSE_KEY_LENGTH)
  ) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: reuseKey must be a non-empty string of at most ${MAX_REUSE_KEY_LENGTH} characters, got ${describeValue(reuseKey)}.`,
      { field: 'reuseKey', value: reuseKey },
    )
  }
  const namespaces = validateBindings(bindings)
  const validated: { -readonly [K in keyof ValidatedRunRequest]: ValidatedRunRequest[K] } = { program, namespaces }
  if (signal !== undefined) validated.signal = signal
  if (onLog !== undefined) validated.onLog = onLog as (text: string) => void
  if (recordCallValuesBytes !== undefined) validated.recordCallValuesBytes = recordCallValuesBytes
  if (reuseKey !== undefined) validated.reuseKey = reuseKey as string
  return Object.freeze(validated)
}

function readRecordCallValues(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const maxBytes = typeof value === 'object' && value !== null ? (value as { maxBytes?: unknown }).maxBytes : undefined
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      `Invalid run request: recordCallValues must be { maxBytes } with maxBytes a non-negative integer, got ${describeValue(maxBytes ?? value)}.`,
      { field: 'recordCallValues.maxBytes', value: maxBytes ?? value },
    )
  }
  return maxBytes
}
