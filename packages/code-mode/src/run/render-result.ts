/**
 * What `run_code` hands back to the model: the program's logs, then its value (strings raw,
 * other JSON pretty-printed with indentation only near the top, so deep values stay compact),
 * or `code run failed (<kind>): <message>` after the captured output. Past the budget, the
 * value or error is kept and the logs are cut in the middle (see text-cutting.ts).
 */
import { type CodeJsonValue, type CodeRunOutcome } from '@code-runtime/core'
import { stringifyJsonValue } from '@code-runtime/core/json'
import { cutLogLines, cutWithMarker, MIN_LOG_EXCERPT_CHARS } from './text-cutting.js'

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
    ? value.map(item => formatJsonValue(item, level + 1))
    : Object.keys(value).map(
        key => `${JSON.stringify(key)}: ${formatJsonValue(value[key] as CodeJsonValue, level + 1)}`,
      )
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}'
  const indent = '  '.repeat(level + 1)
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  return `${open}\n${indent}${entries.join(`,\n${indent}`)}\n${'  '.repeat(level)}${close}`
}

/** What a run ended with, as text: its failure, its value, or a note that it left nothing. */
function runEnding(
  result: CodeRunOutcome,
): { readonly text: string; readonly marker: (omitted: number) => string } | undefined {
  if (result.error !== undefined) {
    return {
      text: `code run failed (${result.error.kind}): ${result.error.message}`,
      marker: omitted => `\n[... ${omitted} more characters of the error message left out]`,
    }
  }
  if ('value' in result && result.value !== undefined) {
    return {
      text: typeof result.value === 'string' ? result.value : formatJsonValue(result.value),
      marker: omitted => `\n[... ${omitted} more characters of the returned value left out; return less to see it all]`,
    }
  }
  return result.logs.length === 0
    ? { text: '(the program returned nothing and printed nothing)', marker: () => '' }
    : undefined
}

/**
 * The text the model reads for one run, at most `maxChars` characters (at least 200). The value
 * or error is what the model asked for, so it is kept whole when it fits; the logs get what it
 * leaves (at least a quarter) and are cut in the middle. A value or error that alone is past
 * its share is cut too. Every cut says what it left out.
 */
export function renderRunResult(result: CodeRunOutcome, maxChars: number): string {
  const ending = runEnding(result)
  const logs = result.logs
  const whole = [...(logs.length > 0 ? [logs.join('\n')] : []), ...(ending === undefined ? [] : [ending.text])].join(
    '\n',
  )
  if (whole.length <= maxChars) return whole
  if (ending === undefined) return cutLogLines(logs, maxChars)
  if (logs.length === 0) return cutWithMarker(ending.text, maxChars, ending.marker)
  const logsShare = Math.max(maxChars - ending.text.length - 1, Math.floor(maxChars / 4), MIN_LOG_EXCERPT_CHARS)
  const logsText = cutLogLines(logs, logsShare)
  return `${logsText}\n${cutWithMarker(ending.text, maxChars - logsText.length - 1, ending.marker)}`
}
