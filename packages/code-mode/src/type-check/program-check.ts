/**
 * What a check of a program before it runs reports: the modes, the categories of diagnostics that
 * certainly fail at run time, and the text a model reads for them. Shared by `createCodeMode` and
 * every front end (the MCP server, the CLI).
 */

/** How a program is checked before it runs. */
export type TypeCheckMode = 'off' | 'calls' | 'strict'

/** The default: refuse only what certainly fails at run time. */
export const DEFAULT_TYPE_CHECK_MODE: TypeCheckMode = 'calls'

/** Why a diagnostic certainly fails at run time (mode `calls` refuses only these), or 'other'. */
export type ProgramDiagnosticCategory =
  'unknown-member' | 'missing-field' | 'unknown-field' | 'wrong-type' | 'syntax' | 'other'

/** One TypeScript diagnostic, located in the program as the model wrote it. */
export interface ProgramDiagnostic {
  /** 1-based line in the program text. */
  readonly line: number
  /** 1-based column. */
  readonly column: number
  /** TypeScript's error code (e.g. 2339). */
  readonly code: number
  readonly category: ProgramDiagnosticCategory
  /** TypeScript's message, flattened to one text. */
  readonly message: string
  /** The offending source text, cut to about 80 characters. */
  readonly text: string
  /** TypeScript's "did you mean" name, when it offers one. */
  readonly suggestion?: string
}

/** The outcome of a check. */
export interface ProgramCheck {
  /** True when the mode refuses the program: it must not run. */
  readonly refused: boolean
  /** The diagnostics that refuse it (calls: the certain failures; strict: every error). */
  readonly errors: readonly ProgramDiagnostic[]
  /** Every other diagnostic: shown only if the run fails, as a hint. */
  readonly hints: readonly ProgramDiagnostic[]
}

/** The check of a program nothing was checked for (mode `off`). */
export const UNCHECKED_PROGRAM: ProgramCheck = Object.freeze({
  refused: false,
  errors: Object.freeze([]),
  hints: Object.freeze([]),
})

export const TYPE_CHECK_MODES: readonly TypeCheckMode[] = ['off', 'calls', 'strict']

/**
 * The diagnostics as a model reads them, one per diagnostic: where, TypeScript's message, the
 * suggestion when the message does not already name it, then the offending text indented below:
 * `line 3, column 14: Property 'nmae' does not exist on type 'typeof tools'. (did you mean 'name'?)\n    tools.nmae`.
 */
export function formatProgramDiagnostics(diagnostics: readonly ProgramDiagnostic[]): string {
  return diagnostics
    .map(diagnostic => {
      const { line, column, message, suggestion, text } = diagnostic
      const hint =
        suggestion === undefined || message.includes(`'${suggestion}'`) ? '' : ` (did you mean '${suggestion}'?)`
      const where = `line ${line}, column ${column}: ${message}${hint}`
      return text === '' ? where : `${where}\n    ${text}`
    })
    .join('\n')
}
