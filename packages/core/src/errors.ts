/**
 * Host-facing errors: thrown (or rejected) for caller misuse and bad config, never for program
 * outcomes, which are data ({@link CodeRunFailure}). Every package of the project throws a
 * subclass of {@link CodeRuntimeFamilyError}, so one brand check recognises them all.
 */

/**
 * The registered brand: `Symbol.for` gives every realm and every copy of this module the same
 * key, so an error made by a second install (or passed in from a `vm` context) is still ours.
 * Its value is the family (the throwing package), a non-writable, non-configurable string.
 */
const BRAND = Symbol.for('code-runtime.error')

/**
 * The family a value's brand names, or `undefined`. Reads the property descriptor instead of the
 * property, so no getter runs; requires a frozen data property, which a Proxy cannot fake (the
 * language refuses a non-configurable descriptor its target lacks). Never throws.
 */
function brandedFamilyOf(value: unknown): string | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined
  let descriptor: PropertyDescriptor | undefined
  try {
    descriptor = Reflect.getOwnPropertyDescriptor(value, BRAND)
  } catch {
    // A Proxy trap (or a revoked Proxy) can throw; such a value is not one of ours.
    return undefined
  }
  if (descriptor === undefined || !('value' in descriptor)) return undefined
  if (descriptor.configurable !== false || descriptor.writable !== false) return undefined
  const family: unknown = descriptor.value
  return typeof family === 'string' ? family : undefined
}

/** Details a reader or a program can branch on, instead of parsing the message. */
export interface CodeRuntimeFamilyErrorDetails {
  /** The config field or input part at fault, e.g. `computeMs` or `bindings[0].global`. */
  readonly field?: string
  /** The offending value, as received. */
  readonly value?: unknown
  /** The rule the value broke, in words. */
  readonly rule?: string
  readonly cause?: unknown
}

/**
 * The base of every package's error class: a stable string `code`, the `family` (which package
 * threw it) and the details. Check identity with {@link CodeRuntimeFamilyError.is} (any family)
 * or a subclass's own `is()`, not `instanceof`, which fails across realms and duplicate installs.
 */
export abstract class CodeRuntimeFamilyError<Code extends string = string> extends Error {
  /** Stable code; a code never changes meaning. */
  readonly code: Code
  /** The package that threw it, e.g. `core`, `code-mode`, `mcp`. */
  readonly family: string
  readonly field: string | undefined
  readonly value: unknown
  readonly rule: string | undefined

  protected constructor(family: string, code: Code, message: string, details: CodeRuntimeFamilyErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.code = code
    this.family = family
    this.field = details.field
    this.value = details.value
    this.rule = details.rule
    Object.defineProperty(this, BRAND, { value: family })
  }

  /**
   * True for an error of any family (or of `family` when given), from any copy of the package or
   * any realm. Never throws, and runs no code of the value (no getter, no Proxy `get` trap).
   */
  static is(value: unknown, family?: string): value is CodeRuntimeFamilyError {
    const branded = brandedFamilyOf(value)
    return branded !== undefined && (family === undefined || branded === family)
  }
}

/** Stable codes of {@link CodeRuntimeError}. A code never changes meaning. */
export type CodeRuntimeErrorCode =
  /** A backend's config failed validation when the plugin loaded. */
  | 'CODE_RUNTIME_INVALID_CONFIG'
  /** A request's binding declarations break the name rules. */
  | 'CODE_RUNTIME_INVALID_BINDINGS'
  /** A request is not of the documented shape (program not a string, signal not an AbortSignal...). */
  | 'CODE_RUNTIME_INVALID_REQUEST'
  /** `run()` was called after the runtime was disposed. */
  | 'CODE_RUNTIME_DISPOSED'
  /** The backend cannot work on this machine (a missing sandbox tool, say). */
  | 'CODE_RUNTIME_UNAVAILABLE'
  /** A value is not lossless JSON (CONTRACT section #lossless-json). */
  | 'CODE_RUNTIME_NOT_LOSSLESS_JSON'
  /** `openSession()` on a backend without sessions. */
  | 'CODE_RUNTIME_SESSIONS_UNSUPPORTED'
  /** `openSession()` while the backend's `maxSessions` sessions are open. */
  | 'CODE_RUNTIME_SESSION_LIMIT'
  /** `openSession()` could not start the session's substrate. */
  | 'CODE_RUNTIME_SESSION_START_FAILED'
  /** `session.run()` after the caller disposed the session. */
  | 'CODE_RUNTIME_SESSION_CLOSED'

/** Details of a {@link CodeRuntimeError}. */
export type CodeRuntimeErrorDetails = CodeRuntimeFamilyErrorDetails

/** The error class of the seam (family `core`). Check identity with {@link CodeRuntimeError.is}, not `instanceof`. */
export class CodeRuntimeError extends CodeRuntimeFamilyError<CodeRuntimeErrorCode> {
  constructor(code: CodeRuntimeErrorCode, message: string, details: CodeRuntimeErrorDetails = {}) {
    super('core', code, message, details)
    this.name = 'CodeRuntimeError'
  }

  /** True for a {@link CodeRuntimeError} from any copy of this package or any realm. Never throws. */
  static override is(value: unknown): value is CodeRuntimeError {
    return CodeRuntimeFamilyError.is(value, 'core')
  }
}

/**
 * The message of whatever a host function threw, as a failed binding call reports it: its
 * `message` when that is a string, else `String(thrown)`; never throwing itself (a hostile
 * getter or `toString` gets a fixed text).
 */
export function thrownMessage(thrown: unknown): string {
  try {
    if (typeof thrown === 'object' && thrown !== null) {
      const message = (thrown as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
    return String(thrown)
  } catch {
    return 'The tool failed with a value that cannot be shown.'
  }
}

/** The refusal of a session past `maxSessions` open at once, in every backend's words. */
export function sessionLimitError(maxSessions: number): CodeRuntimeError {
  return new CodeRuntimeError(
    'CODE_RUNTIME_SESSION_LIMIT',
    maxSessions === 0
      ? 'Sessions are turned off on this runtime (maxSessions: 0); use run() for one-shot programs.'
      : `${maxSessions} sessions are open (maxSessions); dispose one, or wait for one to expire, before opening another.`,
  )
}

/** Renders a received value for an error message: short, unambiguous, never throwing. */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === 'string') {
      const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value
      return JSON.stringify(shown)
    }
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      return Object.is(value, -0) ? '-0' : String(value) + (typeof value === 'bigint' ? 'n' : '')
    }
    if (value === null || value === undefined) return String(value)
    if (typeof value === 'symbol' || typeof value === 'function') return typeof value
    if (Array.isArray(value)) return 'an array'
    return 'an object'
  } catch {
    return 'an unreadable value'
  }
}
