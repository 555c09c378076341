/**
 * Host-facing errors of Code Mode: thrown for caller misuse (malformed tool definitions, bad
 * options), never for what a program does, which reaches the model as data.
 */

/** Stable codes of {@link CodeModeError}. A code never changes meaning. */
export type CodeModeErrorCode =
  /** A tool definition is not of the documented shape (name not a string, schema not an object...). */
  | 'CODE_MODE_INVALID_TOOL'
  /** Two tool definitions share one name, so calls could not tell them apart. */
  | 'CODE_MODE_DUPLICATE_TOOL_NAME'
  /** An option breaks its rule (a namespace that is not an identifier, say). */
  | 'CODE_MODE_INVALID_OPTIONS'

const BRAND = Symbol.for('code-runtime.code-mode.error')

/** Details a caller can branch on instead of parsing the message. */
export interface CodeModeErrorDetails {
  /** The part of the input at fault, e.g. `tools[3].name` or `namespace`. */
  readonly field?: string
  /** The offending value, as received. */
  readonly value?: unknown
  /** The rule the value broke, in words. */
  readonly rule?: string
  readonly cause?: unknown
}

/** The one error class of Code Mode. Check identity with {@link CodeModeError.is}, not `instanceof`. */
export class CodeModeError extends Error {
  readonly code: CodeModeErrorCode
  readonly field: string | undefined
  readonly value: unknown
  readonly rule: string | undefined

  constructor(code: CodeModeErrorCode, message: string, details: CodeModeErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'CodeModeError'
    this.code = code
    this.field = details.field
    this.value = details.value
    this.rule = details.rule
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for a {@link CodeModeError} from any copy of this package or any realm. */
  static is(value: unknown): value is CodeModeError {
    if (typeof value !== 'object' || value === null) return false
    try {
      return (value as Record<symbol, unknown>)[BRAND] === true
    } catch {
      // A Proxy or a getter on the brand can throw; such a value is not one of ours.
      return false
    }
  }
}
