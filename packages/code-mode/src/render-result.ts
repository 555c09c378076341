/**
 * What `run_code` hands back to the model: the program's logs, then its value (strings raw,
 * other JSON pretty-printed with indentation only near the top, so deep values stay compact),
 * or `code run failed (<kind>): <message>` after the captured output. Long text is cut with a
 * marker that says how much was left out.
 */
import { stringifyJsonValue, type CodeJsonValue, type CodeRunResult } from '@code-runtime/core'

/** JSON nested deeper than this is printed on one line. */
const INDENTED_LEVELS = 3

function isContainer(value: CodeJsonValue): value is CodeJsonValue[] | { [key: string]: CodeJsonValue } {
  return typeof value === 'object' && value !== null
}

/**
 * JSON text indented two spaces per level down to {@link INDENTED_LEVELS}; deeper containers are
 * compact. The compact part is written by `stringifyJsonValue`, which handles any depth (the
 * native JSON.stringify throws a few thousand levels down); only the few indented levels recurse.
 */
export function formatJsonValue(value: CodeJsonValue, level = 0): string {
  if (!isContainer(value) || level >= INDENTED_LEVELS) return stringifyJsonValue(value)
  const entries = Array.isArray(value)
    ? value.map((item) => formatJsonValue(item, level + 1))
    : Object.keys(value).map((key) => `${JSON.stringify(key)}: ${formatJsonValue(value[key] as CodeJsonValue, level + 1)}`)
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}'
  const indent = '  '.repeat(level + 1)
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  return `${open}\n${indent}${entries.join(`,\n${indent}`)}\n${'  '.repeat(level)}${close}`
}

/** Cuts `text` to at most `maxChars` characters (never inside a surrogate pair), with a marker. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const marker = (omitted: number): string => `\n[... ${omitted} more characters left out; return or log less to see it all]`
  let keep = Math.max(0, maxChars - marker(text.length).length)
  const last = text.charCodeAt(keep - 1)
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--
  return text.slice(0, keep) + marker(text.length - keep)
}

/** The text the model reads for one run, at most `maxChars` characters. */
export function renderRunResult(result: CodeRunResult, maxChars: number): string {
  const parts: string[] = []
  if (result.logs.length > 0) parts.push(result.logs.join('\n'))
  if (result.error !== undefined) {
    parts.push(`code run failed (${result.error.kind}): ${result.error.message}`)
  } else if ('value' in result && result.value !== undefined) {
    parts.push(typeof result.value === 'string' ? result.value : formatJsonValue(result.value))
  } else if (parts.length === 0) {
    parts.push('(the program returned nothing and printed nothing)')
  }
  return truncateText(parts.join('\n'), maxChars)
}
