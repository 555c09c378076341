/**
 * The transform step, on the host: strip TypeScript types with amaro (strip-only mode: erasable
 * syntax only, every line and column kept) from the program wrapped as the body of an async
 * function, so top-level `await` and `return` parse. A program that fails here never reaches a
 * substrate.
 */
import { transformSync } from 'amaro'

/** The wrapper's first line; the program starts on line 2, which the guest compiles as line 1. */
export const WRAPPER_HEAD = '(async function () {\n'
export const WRAPPER_TAIL = '\n})'

/** The outcome of {@link transformProgram}. */
export type TransformResult = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly message: string }

// `import(...)` in a vm script rejects with an error object of the substrate's own realm, which
// would hand the program a way out. Dynamic import is syntax, so it can be refused at the
// source: the keyword, then only whitespace and comments (including Annex B HTML-like
// comments), then `(`. Matches inside strings are refused too: a rare false refusal is the
// price of never missing a real one.
const GAP = String.raw`(?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n\r\u2028\u2029]*|<!--[^\n\r\u2028\u2029]*|-->[^\n\r\u2028\u2029]*)*`
const DYNAMIC_IMPORT = new RegExp(String.raw`(?<![\p{ID_Continue}$\u200c\u200d])import${GAP}\(`, 'u')

const SYNTAX_HINTS: readonly (readonly [RegExp, string])[] = [
  [/\benum\b/i, "'enum' cannot run here; use a union of string literals (type Color = 'red' | 'green') or a plain object."],
  [/\bnamespace\b/i, "a value 'namespace' cannot run here; use a plain object or top-level functions."],
  [/parameter propert/i, 'parameter properties cannot run here; declare the field in the class body and assign it in the constructor.'],
  [/angle-bracket|<T>expr/i, "'<T>value' assertions cannot run here; write 'value as T'."],
  [/decorator/i, 'decorators cannot run here; call the function directly.'],
]

interface AmaroError {
  readonly code?: unknown
  readonly message?: unknown
  readonly startLine?: unknown
  readonly startColumn?: unknown
}

/** The 1-based line and column of `index` in `source`. */
export function positionOf(source: string, index: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let cursor = 0; cursor < index; cursor++) {
    if (source.charCodeAt(cursor) === 10) {
      line++
      lineStart = cursor + 1
    }
  }
  return { line, column: index - lineStart + 1 }
}

/** Where the program ends: just after its last character that is not white space. */
function endOf(program: string): { line: number; column: number } {
  return positionOf(program, program.trimEnd().length)
}

/**
 * The position of a transform error in the program's own numbering. A program that ends too
 * early (an unclosed `{`, an unfinished expression) fails in the wrapper's closing line, past
 * the program: such an error points at the end of the program instead, and says so.
 */
function locate(program: string, wrappedLine: number | undefined, wrappedColumn: number | undefined): { where: string; pastTheEnd: boolean } {
  // Lines are 1-based in the wrapped text (the program starts on line 2); columns are 0-based.
  if (wrappedLine === undefined) return { where: '', pastTheEnd: false }
  const line = Math.max(1, wrappedLine - 1)
  const column = wrappedColumn === undefined ? undefined : wrappedColumn + 1
  const end = endOf(program)
  if (line > end.line || (line === end.line && column !== undefined && column > end.column)) {
    return { where: `Line ${end.line}, col ${end.column}: `, pastTheEnd: true }
  }
  return { where: column === undefined ? `Line ${line}: ` : `Line ${line}, col ${column}: `, pastTheEnd: false }
}

/**
 * A syntax error found in the wrapped text (1-based line, 0-based column, both in the wrapped
 * numbering), told in the program's own positions.
 */
export function describeSyntaxError(program: string, wrappedLine: number | undefined, wrappedColumn: number | undefined, text: string): string {
  const { where, pastTheEnd } = locate(program, wrappedLine, wrappedColumn)
  if (pastTheEnd) return `${where}SyntaxError: ${text}. The program ends here: is a bracket, string, comment or expression left open?`
  return `${where}SyntaxError: ${text}`
}

function describeTransformError(program: string, error: unknown): string {
  const details = (typeof error === 'object' && error !== null ? error : {}) as AmaroError
  const text = typeof details.message === 'string' ? details.message : String(error)
  const wrappedLine = typeof details.startLine === 'number' ? details.startLine : undefined
  const wrappedColumn = typeof details.startColumn === 'number' ? details.startColumn : undefined
  if (details.code === 'UnsupportedSyntax') {
    const { where } = locate(program, wrappedLine, wrappedColumn)
    const hint = SYNTAX_HINTS.find(([pattern]) => pattern.test(text))
    if (hint !== undefined) return `${where}${hint[1]} Only erasable TypeScript runs (types, interfaces, 'as', generics).`
    return `${where}${text}. Only erasable TypeScript runs (types, interfaces, 'as', generics).`
  }
  return describeSyntaxError(program, wrappedLine, wrappedColumn, text)
}

/**
 * Strips types from a program wrapped as the body of an async function (the text returned starts
 * with {@link WRAPPER_HEAD} and ends with {@link WRAPPER_TAIL}), or explains in the program's own
 * positions why not: dynamic `import()`, syntax that is not erasable, syntax errors.
 */
export function transformProgram(program: string): TransformResult {
  const dynamicImport = DYNAMIC_IMPORT.exec(program)
  if (dynamicImport !== null) {
    const { line, column } = positionOf(program, dynamicImport.index)
    return { ok: false, message: `Line ${line}, col ${column}: import() cannot run here; no modules can be loaded. Use the tools you were given.` }
  }
  try {
    const { code } = transformSync(WRAPPER_HEAD + program + WRAPPER_TAIL, { mode: 'strip-only' })
    return { ok: true, source: code }
  } catch (error) {
    return { ok: false, message: describeTransformError(program, error) }
  }
}
