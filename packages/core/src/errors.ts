/**
 * Host-facing errors of the seam: thrown (or rejected) for caller misuse and bad config, never
 * for program outcomes, which are data ({@link CodeRunFailure}).
 */

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

const BRAND = Symbol.for('code-runtime.error')

/** Details a reader or a program can branch on, instead of parsing the message. */
export interface CodeRuntimeErrorDetails {
  /** The config field or request part at fault, e.g. `computeMs` or `bindings[0].global`. */
  readonly field?: string
  /** The offending value, as received. */
  readonly value?: unknown
  /** The rule the value broke, in words. */
  readonly rule?: string
  readonly cause?: unknown
}

/** The one error class of the seam. Check identity with {@link CodeRuntimeError.is}, not `instanceof`. */
export class CodeRuntimeError extends Error {
  readonly code: CodeRuntimeErrorCode
  readonly field: string | undefined
  readonly value: unknown
  readonly rule: string | undefined

  constructor(code: CodeRuntimeErrorCode, message: string, details: CodeRuntimeErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'CodeRuntimeError'
    this.code = code
    this.field = details.field
    this.value = details.value
    this.rule = details.rule
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for a {@link CodeRuntimeError} from any copy of this package or any realm. Never throws. */
  static is(value: unknown): value is CodeRuntimeError {
    if (typeof value !== 'object' || value === null) return false
    try {
      return (value as Record<symbol, unknown>)[BRAND] === true
    } catch {
      // A Proxy or a getter on the brand can throw; such a value is not one of ours.
      return false
    }
  }
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
