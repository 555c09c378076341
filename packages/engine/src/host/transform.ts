/**
 * The transform step, on the host: strip TypeScript types with amaro (strip-only mode: erasable
 * syntax only, every line and column kept) from the program wrapped as the body of an async
 * function, so top-level `await` and `return` parse. A program that fails here never reaches a
 * substrate. A program too long or nested too deeply for the stripper is refused before it is
 * parsed (program-bounds.ts), and one that breaks the stripper anyway costs its own run only
 * (type-stripper.ts).
 */
import type { Checked } from '@code-runtime/core/json'
import { programBoundsProblem } from './program-bounds.js'
import { describeSyntaxError, locate, positionOf } from './program-positions.js'
import { wrappedProgramProblem } from './wrapper-escape.js'
import { stripTypes } from './type-stripper.js'

/** The wrapper's first line; the program starts on line 2, which the guest compiles as line 1. */
export const WRAPPER_HEAD = '(async function () {\n'
export const WRAPPER_TAIL = '\n})'

/** The outcome of {@link transformProgram}. */
export type TransformResult = Checked<string>

// `import(...)` in a vm script rejects with an error object of the substrate's own realm, which
// would hand the program a way out. Dynamic import is syntax, so it can be refused at the
// source: the keyword, then only whitespace and comments (including Annex B HTML-like
// comments), then `(`. Matches inside strings are refused too: a rare false refusal is the
// price of never missing a real one.
const GAP = String.raw`(?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n\r\u2028\u2029]*|<!--[^\n\r\u2028\u2029]*|-->[^\n\r\u2028\u2029]*)*`
const DYNAMIC_IMPORT = new RegExp(String.raw`(?<![\p{ID_Continue}$\u200c\u200d])import${GAP}\(`, 'u')

const SYNTAX_HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /\benum\b/i,
    "'enum' cannot run here; use a union of string literals (type Color = 'red' | 'green') or a plain object.",
  ],
  [/\bnamespace\b/i, "a value 'namespace' cannot run here; use a plain object or top-level functions."],
  [
    /parameter propert/i,
    'parameter properties cannot run here; declare the field in the class body and assign it in the constructor.',
  ],
  [/angle-bracket|<T>expr/i, "'<T>value' assertions cannot run here; write 'value as T'."],
  [/decorator/i, 'decorators cannot run here; call the function directly.'],
]

interface AmaroError {
  readonly code?: unknown
  readonly message?: unknown
  readonly startLine?: unknown
  readonly startColumn?: unknown
}

function describeTransformError(program: string, error: unknown): string {
  const details = (typeof error === 'object' && error !== null ? error : {}) as AmaroError
  const text = typeof details.message === 'string' ? details.message : String(error)
  const wrappedLine = typeof details.startLine === 'number' ? details.startLine : undefined
  const wrappedColumn = typeof details.startColumn === 'number' ? details.startColumn : undefined
  if (details.code === 'UnsupportedSyntax') {
    const { where } = locate(program, wrappedLine, wrappedColumn)
    const hint = SYNTAX_HINTS.find(([pattern]) => pattern.test(text))
    if (hint !== undefined)
      return `${where}${hint[1]} Only erasable TypeScript runs (types, interfaces, 'as', generics).`
    return `${where}${text}. Only erasable TypeScript runs (types, interfaces, 'as', generics).`
  }
  return describeSyntaxError(program, wrappedLine, wrappedColumn, text)
}

/** Told when the stripper itself failed on a program (and was replaced for the next one). */
const STRIPPER_BROKE_MESSAGE =
  'The program could not be parsed: it exhausted the type stripper (most often by nesting too deeply). Flatten it: split it into functions, or build deep data in a loop.'

/**
 * The program wrapped and stripped, or why not: too long or too deep (refused unparsed), or the
 * stripper's own error.
 */
type WrappedStrip = Checked<string, { readonly message: string } | { readonly cause: unknown }>

function stripWrapped(program: string): WrappedStrip {
  const bounds = programBoundsProblem(program)
  if (bounds !== undefined) {
    if (bounds.at === undefined) return { ok: false, error: { message: bounds.message } }
    const { line, column } = positionOf(program, bounds.at)
    return { ok: false, error: { message: `Line ${line}, col ${column}: ${bounds.message}` } }
  }
  const stripped = stripTypes(WRAPPER_HEAD + program + WRAPPER_TAIL)
  if (stripped.ok) return stripped
  return stripped.error.broke
    ? { ok: false, error: { message: STRIPPER_BROKE_MESSAGE } }
    : { ok: false, error: { cause: stripped.error.cause } }
}

/**
 * Strips types from a program wrapped as the body of an async function (the text returned starts
 * with {@link WRAPPER_HEAD} and ends with {@link WRAPPER_TAIL}), or explains in the program's own
 * positions why not: dynamic `import()`, syntax that is not erasable, syntax errors, a program
 * past the bounds of program-bounds.ts.
 */
export function transformProgram(program: string): TransformResult {
  const stripped = stripProgram(program)
  if (!stripped.ok) return stripped
  const escape = wrappedProgramProblem(program, stripped.value, WRAPPER_HEAD.length, WRAPPER_TAIL.length)
  return escape === undefined ? stripped : { ok: false, error: escape }
}

/**
 * {@link transformProgram} without the check that the program stays inside its wrapper: for a
 * caller that parses the stripped text itself and checks that there (a session run).
 */
export function stripProgram(program: string): TransformResult {
  const dynamicImport = DYNAMIC_IMPORT.exec(program)
  if (dynamicImport !== null) {
    const { line, column } = positionOf(program, dynamicImport.index)
    return {
      ok: false,
      error: `Line ${line}, col ${column}: import() cannot run here; no modules can be loaded. Use the tools you were given.`,
    }
  }
  const stripped = stripWrapped(program)
  if (stripped.ok) return stripped
  const failure = stripped.error
  return { ok: false, error: 'message' in failure ? failure.message : describeTransformError(program, failure.cause) }
}
