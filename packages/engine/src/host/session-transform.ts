/**
 * The transform step of a session run, on the host: the program's types are stripped as for a
 * one-shot run ({@link stripProgram}), then its declarations are rewritten so that what the
 * run declares at top level outlives it. The guest declares every kept name once per session as a
 * script-level `let` of the session's context; the rewritten program assigns those bindings
 * instead of declaring its own, so later runs (and closures of earlier runs) see them.
 *
 * Every rewrite keeps the line of the text it touches and, where it can, its columns: a keyword
 * becomes spaces of its length, and text that must be added goes on the same line, so only the
 * rest of that line shifts. The program is hostile: the rewritten source is parsed again and
 * refused unless it is still one async function expression and nothing else.
 */
import { tokTypes, type Program, type Token } from 'acorn'
import type { Checked } from '@code-runtime/core/json'
import { collectSessionEdits, type SessionEdits } from './session-declarations.js'
import { SESSION_KEEP_PARAMETER } from './session-keep.js'
import { parseScript } from './session-parser.js'
import { stripProgram, WRAPPER_HEAD, WRAPPER_TAIL } from './transform.js'
import { describeAcornError, wrappedPosition as where, wrapperEscape, wrapperEscapeMessage } from './wrapper-escape.js'

export { SESSION_KEEP_PARAMETER } from './session-keep.js'

export interface SessionTransformOptions {
  /** The run's namespace globals: declaring one of them at top level is refused. */
  readonly namespaceGlobals: readonly string[]
}

/** A program prepared for a session run. */
export interface SessionProgram {
  /** `(async function (__codeRuntimeKeep) {<prologue>\n<program>\n})` */
  readonly source: string
  /** Every name the run keeps (declares at top level), in first-appearance order, deduplicated. */
  readonly keptNames: readonly string[]
  /** Top-level function declarations, passed in this order to the keep parameter by the prologue. */
  readonly publishedFunctions: readonly string[]
}

export type SessionTransformResult = Checked<SessionProgram>

const SESSION_HEAD = `(async function (${SESSION_KEEP_PARAMETER}) {`

function applyEdits(text: string, { edits }: SessionEdits): string {
  // A stable sort: edits at one offset apply by rank, then in the order they were made.
  const ordered = [...edits].sort((a, b) => a.at - b.at || a.rank - b.rank)
  const parts: string[] = []
  let cursor = 0
  for (const edit of ordered) {
    if (edit.at > cursor) parts.push(text.slice(cursor, edit.at))
    parts.push(edit.text)
    cursor = Math.max(cursor, edit.end)
  }
  parts.push(text.slice(cursor))
  return parts.join('')
}

/** Transforms one session run's program, or explains in the program's own positions why not. */
export function transformSessionProgram(program: string, options: SessionTransformOptions): SessionTransformResult {
  const stripped = stripProgram(program)
  if (!stripped.ok) return stripped
  const text = stripped.value
  if (!text.startsWith(WRAPPER_HEAD) || !text.endsWith(WRAPPER_TAIL)) {
    return { ok: false, error: 'The program could not be prepared for a session run.' }
  }

  let keepUse: number | undefined
  let ast: Program
  try {
    // Tokens are looked at only when the name could be there, spelled out or with escapes: a
    // token callback makes acorn build an object per token.
    const mayUseKeep = text.includes(SESSION_KEEP_PARAMETER) || text.includes('\\u')
    ast = parseScript(
      text,
      mayUseKeep
        ? (token: Token & { readonly value?: unknown }) => {
            // A name token's value is the name with escapes decoded (`\u005f_codeRuntimeKeep` included).
            if (keepUse === undefined && token.type === tokTypes.name && token.value === SESSION_KEEP_PARAMETER)
              keepUse = token.start
          }
        : undefined,
    )
  } catch (error) {
    return { ok: false, error: describeAcornError(program, error) }
  }
  const escape = wrapperEscape(text, ast, WRAPPER_HEAD.length)
  if (escape !== undefined) {
    return { ok: false, error: wrapperEscapeMessage(text, escape) }
  }
  if (keepUse !== undefined) {
    return {
      ok: false,
      error: `${where(text, keepUse)}\`${SESSION_KEEP_PARAMETER}\` is reserved by the session runtime: rename it.`,
    }
  }

  const statement = ast.body[0]
  if (
    statement?.type !== 'ExpressionStatement' ||
    statement.expression.type !== 'FunctionExpression' ||
    statement.expression.body.type !== 'BlockStatement'
  ) {
    return { ok: false, error: 'The program could not be prepared for a session run.' }
  }
  let collected: SessionEdits
  try {
    collected = collectSessionEdits(text, statement.expression.body.body, new Set(options.namespaceGlobals))
  } catch (error) {
    return { ok: false, error: describeAcornError(program, error) }
  }
  if (collected.namespaceConflict !== undefined) {
    const { name, at } = collected.namespaceConflict
    return {
      ok: false,
      error: `${where(text, at)}\`${name}\` is a namespace of this run; a session cannot keep a variable of that name, it would hide the namespace in later runs: rename it.`,
    }
  }

  const source = `${SESSION_HEAD}${collected.head}\n${applyEdits(text, collected).slice(WRAPPER_HEAD.length)}`

  // The rewrite must not have changed what the text is: one async function expression, no more.
  try {
    const check = parseScript(source)
    if (wrapperEscape(source, check, SESSION_HEAD.length) !== undefined)
      throw new SyntaxError('the rewritten program escapes its wrapper')
  } catch {
    return {
      ok: false,
      error: 'The program could not be prepared for a session run: its declarations could not be rewritten.',
    }
  }
  return {
    ok: true,
    value: { source, keptNames: collected.keptNames, publishedFunctions: collected.publishedFunctions },
  }
}
