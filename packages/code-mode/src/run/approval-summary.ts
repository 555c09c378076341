/**
 * The arguments of a call as the person approving it reads them. The program chooses the
 * arguments and their key order, so any cut that drops a field lets it hide what matters (a long
 * note first, `path: '/DANGER'` after it). The summary therefore names every field on a line of
 * its own, by its full key path, and shortens only long values, in the middle, saying how many
 * characters it left out there. Strings and keys are shown escaped, so a value cannot forge lines
 * or hide text behind control or direction characters. Arguments too large or too deep to show
 * whole within a bound get no summary but a reason: the call is then declined unasked.
 */
import type { Checked } from '@code-runtime/core'
import { plural } from './text-cutting.js'

/** The bounds of a summary: past `maxFields` or `maxDepth`, the arguments are not shown but refused. */
export const APPROVAL_SUMMARY_LIMITS = Object.freeze({
  /** Most lines (fields, array items, empty containers) a person is asked to read. */
  maxFields: 500,
  /** Deepest nesting of objects and arrays shown. */
  maxDepth: 20,
  /** Longest rendering of one value before its middle is left out, in characters. */
  maxValueChars: 200,
  /** Longest rendering of one key before its middle is left out, in characters. */
  maxKeyChars: 80,
})

/** A summary a person can read, or why the arguments cannot be shown in full. */
export type ApprovalSummary = Checked<{ readonly text: string; readonly fields: number }>

// Control, format (bidirectional overrides, zero-width characters) and line/paragraph separators:
// shown as escapes so what the person reads is what the tool gets.
const INVISIBLE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

function escapeInvisible(text: string): string {
  return text.replace(
    INVISIBLE_CHARACTERS,
    character => `\\u${(character.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  )
}

/** `text` quoted as JSON with invisible characters escaped. */
function quote(text: string): string {
  return escapeInvisible(JSON.stringify(text))
}

/** Moves `index` off the second half of a surrogate pair, so no cut splits a character. */
function characterBoundary(text: string, index: number): number {
  const code = text.charCodeAt(index)
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index
}

/** `text` within about `maxChars`: its beginning and end kept, the middle replaced by a count. */
function elideMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const half = Math.floor(maxChars / 2)
  const head = characterBoundary(text, half)
  const tail = characterBoundary(text, text.length - half)
  return `${text.slice(0, head)} …[${plural(tail - head, 'character')} left out]… ${text.slice(tail)}`
}

/**
 * Text the program chose (its description) as a question shows it: invisible characters
 * escaped, so it cannot forge a line of the question, and the middle of a long one left out.
 */
export function showProgramText(text: string, maxChars: number = APPROVAL_SUMMARY_LIMITS.maxValueChars): string {
  return elideMiddle(escapeInvisible(text), maxChars)
}

function renderKey(key: string): string {
  const shown = IDENTIFIER.test(key) ? key : `[${quote(key)}]`
  return elideMiddle(shown, APPROVAL_SUMMARY_LIMITS.maxKeyChars)
}

function renderLeaf(value: unknown): string {
  if (typeof value === 'string') return elideMiddle(quote(value), APPROVAL_SUMMARY_LIMITS.maxValueChars)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (value === null) return 'null'
  return `(${typeof value})`
}

/** Thrown inside the walk when a bound is passed; turned into the summary's reason. */
class SummaryBoundError extends Error {}

/**
 * Summarizes a call's arguments for the person asked to approve it: one line per field, named by
 * its whole key path (`edits[2].path: "/etc/hosts"`), every field shown, long strings and keys
 * shortened in the middle with the count of characters left out. Returns `ok: false` with a reason
 * when the arguments pass {@link APPROVAL_SUMMARY_LIMITS}: such a call must be declined, not asked
 * about, since the person could not see all it would do.
 * @example
 * summarizeApprovalArguments({ path: '/tmp/a', mode: 420 })
 * // { ok: true, value: { text: 'path: "/tmp/a"\nmode: 420', fields: 2 } }
 */
export function summarizeApprovalArguments(args: unknown): ApprovalSummary {
  const { maxFields, maxDepth } = APPROVAL_SUMMARY_LIMITS
  const lines: string[] = []
  const ancestors = new Map<object, string>()
  const add = (path: string, shown: string): void => {
    if (lines.length >= maxFields) throw new SummaryBoundError(`the arguments have more than ${maxFields} fields`)
    lines.push(path === '' ? shown : `${path}: ${shown}`)
  }
  const walk = (value: unknown, path: string, depth: number): void => {
    if (typeof value !== 'object' || value === null) return add(path, renderLeaf(value))
    const cycleAt = ancestors.get(value)
    if (cycleAt !== undefined) return add(path, `(the same value as ${cycleAt === '' ? 'the arguments' : cycleAt})`)
    if (depth >= maxDepth) throw new SummaryBoundError(`the arguments nest deeper than ${maxDepth} levels`)
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`${path}[${index}]`, item])
      : Object.keys(value).map(key => [
          path === '' ? renderKey(key) : `${path}${IDENTIFIER.test(key) ? '.' : ''}${renderKey(key)}`,
          (value as Record<string, unknown>)[key],
        ])
    if (entries.length === 0) return add(path, Array.isArray(value) ? '[] (empty list)' : '{} (no fields)')
    ancestors.set(value, path)
    for (const [childPath, child] of entries) walk(child, childPath, depth + 1)
    ancestors.delete(value)
  }
  try {
    walk(args, '', 0)
  } catch (error) {
    if (!(error instanceof SummaryBoundError)) throw error
    return {
      ok: false,
      error: `${error.message}, too much to show a person in full, so nobody was asked; pass fewer or flatter arguments, or split the call`,
    }
  }
  return { ok: true, value: { text: lines.join('\n'), fields: lines.length } }
}
