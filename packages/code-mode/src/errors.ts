/**
 * Host-facing errors of Code Mode: thrown for caller misuse (malformed tool definitions, bad
 * options), never for what a program does, which reaches the model as data.
 */
import { CodeRuntimeFamilyError, type CodeRuntimeFamilyErrorDetails } from '@code-runtime/core'
import { type ConfigPlace } from '@code-runtime/core/internal'

/** Stable codes of {@link CodeModeError}. A code never changes meaning. */
export type CodeModeErrorCode =
  /** A tool definition is not of the documented shape (name not a string, schema not an object...). */
  | 'CODE_MODE_INVALID_TOOL'
  /** Two tool definitions share one name, so calls could not tell them apart. */
  | 'CODE_MODE_DUPLICATE_TOOL_NAME'
  /** An option breaks its rule (a namespace that is not an identifier, say). */
  | 'CODE_MODE_INVALID_OPTIONS'
  /** A run was bound to a session, but the runtime's backend has no sessions (`CODE_RUNTIME_SESSIONS_UNSUPPORTED` is the cause). */
  | 'CODE_MODE_SESSIONS_UNSUPPORTED'
  /** A run was bound to a session the runtime could not open now (too many open, a start failure, a disposed runtime); the cause says which. */
  | 'CODE_MODE_SESSION_UNAVAILABLE'
  /** A run through a session (or a Code Mode) that was disposed. */
  | 'CODE_MODE_SESSION_CLOSED'
  /**
   * The type check could not answer: it ran past its time or heap limit, overflowed the
   * compiler's stack, or the checker could not start. Thrown by `check()`; `run()` runs the
   * program unchecked instead and says why.
   */
  | 'CODE_MODE_CHECK_FAILED'

/** Details a caller can branch on instead of parsing the message: `field` is the part of the input at fault, e.g. `tools[3].name` or `namespace`. */
export type CodeModeErrorDetails = CodeRuntimeFamilyErrorDetails

/**
 * The one error class of Code Mode (family `code-mode`). Check identity with
 * {@link CodeModeError.is}, not `instanceof`.
 */
export class CodeModeError extends CodeRuntimeFamilyError<CodeModeErrorCode> {
  constructor(code: CodeModeErrorCode, message: string, details: CodeModeErrorDetails = {}) {
    super('code-mode', code, message, details)
    this.name = 'CodeModeError'
  }

  /** True for a {@link CodeModeError} from any copy of this package or any realm. Never throws. */
  static override is(value: unknown): value is CodeModeError {
    return CodeRuntimeFamilyError.is(value, 'code-mode')
  }
}

/**
 * Where Code Mode reads its input (options, tool definitions) with core's config readers: a
 * refusal is a {@link CodeModeError} with `code`, reading `Invalid <what>: <path> <rule>, got <value>.`
 */
export function codeModeErrorPlace(code: CodeModeErrorCode, what: string): ConfigPlace {
  return {
    refuse: ({ field, rule, value, text }) =>
      new CodeModeError(code, `Invalid ${what}: ${text}.`, { ...(field === undefined ? {} : { field }), value, rule }),
  }
}

/** Where tool definitions are read: `Invalid tool: tools[2].name must be a non-empty string, got 5.` */
export const INVALID_TOOL_PLACE = codeModeErrorPlace('CODE_MODE_INVALID_TOOL', 'tool')
