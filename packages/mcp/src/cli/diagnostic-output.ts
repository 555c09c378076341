/**
 * Type-check diagnostics as the CLI prints them, in the shape editors and people know from
 * `tsc`: `notes.ts:7:32 - error TS2561: <message>`, then the offending text and TypeScript's
 * "did you mean", each indented below it. Errors are what refuse a program; hints are what the
 * checker flagged without refusing (shown by `check`, and by `run` when the run failed).
 */
import type { ProgramDiagnostic } from '@code-runtime/code-mode'
import { styleFor, type TerminalStream, type TerminalStyle } from './terminal-output.js'

/** How a diagnostic is labelled: it refuses the program, or it only may explain a failure. */
export type DiagnosticLabel = 'error' | 'hint'

function labelText(label: DiagnosticLabel, code: number, style: TerminalStyle): string {
  const text = `${label} TS${code}`
  return label === 'error' ? style.red(text) : style.dim(text)
}

/** One diagnostic: its location line, then the offending text and the suggestion, indented. */
function formatDiagnostic(
  file: string,
  diagnostic: ProgramDiagnostic,
  label: DiagnosticLabel,
  style: TerminalStyle,
): string {
  const lines = [
    `${style.bold(`${file}:${diagnostic.line}:${diagnostic.column}`)} - ${labelText(label, diagnostic.code, style)}: ${diagnostic.message}`,
  ]
  if (diagnostic.text !== '') lines.push(`    ${diagnostic.text}`)
  if (diagnostic.suggestion !== undefined) lines.push(`    did you mean '${diagnostic.suggestion}'?`)
  return lines.join('\n')
}

/** Writes each diagnostic of `diagnostics` on `stream`, labelled `label`. */
export function writeDiagnostics(
  stream: TerminalStream,
  file: string,
  diagnostics: readonly ProgramDiagnostic[],
  label: DiagnosticLabel,
): void {
  const style = styleFor(stream)
  for (const diagnostic of diagnostics) stream.write(`${formatDiagnostic(file, diagnostic, label, style)}\n`)
}

/** `3 type errors`, `1 hint`. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
