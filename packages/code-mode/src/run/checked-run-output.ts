/**
 * What `run_code` says about the type check: the output of a program the check refused (nothing
 * ran, no tool was called), and the hints appended to the text of a run that passed the check
 * but failed, since one of them may explain the failure.
 */
import type { RunCodeOutput } from './run-code-tool.js'
import { cutWithMarker, plural } from './text-cutting.js'
import { formatProgramDiagnostics, type ProgramDiagnostic } from '../type-check/program-check.js'

/** The heading of the hints below a failed run's text. */
export const TYPE_HINTS_HEADING = 'Type hints (the checker flagged these; one may explain the failure):'

/** The output of a refused program, its text cut to `maxChars` like every other. */
export function refusedRunOutput(errors: readonly ProgramDiagnostic[], maxChars: number): RunCodeOutput {
  const message = `The program was refused before it ran (no tool was called): ${plural(errors.length, 'type error')}.\n${formatProgramDiagnostics(errors)}`
  const text = cutWithMarker(
    message,
    maxChars,
    omitted => `\n[... ${omitted} more characters of the type errors left out; fix the ones above first]`,
  )
  return {
    isError: true,
    text,
    structured: { logs: [], calls: [], error: { kind: 'refused', message }, diagnostics: errors },
  }
}

/**
 * The output of a program of a session refused because it would keep more names than the
 * session's `maxKeptNames` allows (the runtime would refuse it too, with less advice): nothing ran.
 */
export function keptNamesLimitOutput(
  fresh: number,
  kept: number,
  maxKeptNames: number,
  maxChars: number,
): RunCodeOutput {
  const message =
    `The program was refused before it ran (no tool was called): it would keep ${plural(fresh, 'new top-level name')}, but the session keeps at most ${maxKeptNames} (maxKeptNames) and already keeps ${kept}. ` +
    'Run it with `reset: true` to start over in a new session (every variable of earlier runs is forgotten), or assign to the variables the session has, or wrap the code in a block ({ ... }), whose declarations are not kept.'
  const text = cutWithMarker(message, maxChars, omitted => `\n[... ${omitted} more characters left out]`)
  return { isError: true, text, structured: { logs: [], calls: [], error: { kind: 'refused', message } } }
}

/** The least the run's own output keeps of the text budget (what `renderRunResult` needs). */
const MIN_RUN_TEXT_CHARS = 200

/**
 * The hints block for a failed run: as many whole diagnostics as fit in a quarter of the text's
 * budget (the run's own output keeps the rest, and at least 200), or '' when not even one does.
 */
export function typeHintsBlock(hints: readonly ProgramDiagnostic[], maxChars: number): string {
  const budget = Math.min(Math.floor(maxChars / 4), maxChars - MIN_RUN_TEXT_CHARS)
  let shown = hints.length
  let block = ''
  for (; shown > 0; shown--) {
    const omitted = hints.length - shown
    block = `\n\n${TYPE_HINTS_HEADING}\n${formatProgramDiagnostics(hints.slice(0, shown))}${omitted === 0 ? '' : `\n[... ${omitted} more hints left out]`}`
    if (block.length <= budget) return block
  }
  return ''
}
