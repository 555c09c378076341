/**
 * A program runs as the body of the wrapper's async function, and must stay inside it: a `}` of
 * its own that closes the wrapper early (`return 1 })(); escape(); (async function () {`) would run
 * statements at the top level of the context, outside the run's function. The wrapped text is
 * refused unless it is one async function expression that ends where the wrapper does: for a
 * one-shot run V8's function constructor says so quickly, and acorn (parsing as the guest compiles)
 * tells where a refused one closes it; a session run, which acorn parses anyway, asks acorn alone.
 */
import type { Program } from 'acorn'
import { parseScript, parseScriptExpressionAt } from './session-parser.js'
import { describeSyntaxError, positionOf } from './program-positions.js'

interface AcornSyntaxError {
  readonly message?: unknown
  readonly loc?: { readonly line?: unknown; readonly column?: unknown }
}

/** An acorn parse error of the wrapped text, told in the program's own positions. */
export function describeAcornError(program: string, error: unknown): string {
  if (error instanceof RangeError) return 'The program nests too deeply to run; flatten it.'
  const details = (typeof error === 'object' && error !== null ? error : {}) as AcornSyntaxError
  const raw = typeof details.message === 'string' ? details.message : String(error)
  // acorn appends "(line:column)" to its messages; the position is told in the program's own terms.
  const text = raw.replace(/\s*\(\d+:\d+\)$/, '')
  const line = typeof details.loc?.line === 'number' ? details.loc.line : undefined
  const column = typeof details.loc?.column === 'number' ? details.loc.column : undefined
  return describeSyntaxError(program, line, column, text)
}

/** `Line L, col C: ` for an offset of the wrapped text (whose line 2 is the program's line 1). */
export function wrappedPosition(wrapped: string, offset: number): string {
  const { line, column } = positionOf(wrapped, offset)
  return `Line ${line - 1}, col ${column}: `
}

/**
 * Where the program closes the wrapper's function expression (an offset of `text`, not before
 * `head`, the wrapper's head length), or undefined when the function ends where the wrapper does.
 */
export function wrapperEscape(text: string, ast: Program, head: number): number | undefined {
  const statement = ast.body.length === 1 ? ast.body[0] : undefined
  if (
    statement?.type === 'ExpressionStatement' &&
    statement.expression.type === 'FunctionExpression' &&
    statement.expression.async &&
    statement.expression.start === 1 &&
    statement.expression.end === text.length - 1 &&
    statement.end === text.length
  ) {
    return undefined
  }
  const wrapper = parseScriptExpressionAt(text, 1)
  return Math.max(head, wrapper.end - 1)
}

/** The refusal of a program that closes the wrapper at `offset` of the wrapped text. */
export function wrapperEscapeMessage(text: string, offset: number): string {
  return `${wrappedPosition(text, offset)}SyntaxError: Unexpected token '}': it closes the program's body.`
}

// The constructor of async functions, which no global names.
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (body: string) => unknown

/**
 * V8's own verdict on whether `body` is the body of one async function: its function constructor
 * parses the body on its own and refuses one that closes the function early, as a program closing
 * its wrapper does. It compiles lazily (inner functions are only pre-parsed), some fifty times
 * faster than acorn's full parse, and the function it makes is never called. Undefined when V8
 * cannot say: the host forbids code from strings (`--disallow-code-generation-from-strings`
 * throws `EvalError`), or the parse failed for another reason than the syntax.
 */
function isOneFunctionBody(body: string): boolean | undefined {
  try {
    new AsyncFunction(body)
    return true
  } catch (error) {
    return error instanceof SyntaxError ? false : undefined
  }
}

/**
 * Why the wrapped, stripped text of `program` (its head `head`, its tail `tail` characters long)
 * is not one function, or undefined. The common case, a program that is one, is V8's quick
 * verdict; acorn's parse then only finds where and why a program is refused.
 */
export function wrappedProgramProblem(program: string, text: string, head: number, tail: number): string | undefined {
  if (isOneFunctionBody(text.slice(head, text.length - tail)) === true) return undefined
  try {
    const escape = wrapperEscape(text, parseScript(text), head)
    return escape === undefined ? undefined : wrapperEscapeMessage(text, escape)
  } catch (error) {
    return describeAcornError(program, error)
  }
}
