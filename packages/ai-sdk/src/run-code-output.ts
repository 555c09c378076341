/**
 * What the run_code tool of the AI SDK resolves with: progress while the program runs (the SDK's
 * preliminary tool results), then the run's structured outcome; and what the model reads of it.
 */
import type { RunCodeOutput } from '@code-runtime/code-mode'

/** A preliminary output, yielded while the program runs: the logs it printed so far. */
export interface CodeModeToolProgress {
  readonly state: 'running'
  /** Every log entry so far, in order (the next progress output repeats them and adds the new ones). */
  readonly logs: readonly string[]
}

/**
 * The final output: the run's outcome as data (`logs`, `result`, `error`, `calls`, `usage`,
 * `diagnostics`, `sessionEnded`, as in Code Mode's `RunCodeOutput.structured`), the `text` the
 * model reads, and `isError`.
 */
export type CodeModeToolResult = RunCodeOutput['structured'] & {
  readonly state: 'done'
  /** What the model reads: the logs, then the value or the failure. */
  readonly text: string
  /** True when the run failed or the program was refused. */
  readonly isError: boolean
}

/** Every output of the run_code tool: progress outputs (preliminary), then one result. */
export type CodeModeToolOutput = CodeModeToolProgress | CodeModeToolResult

/** The final output of one run. */
export function toolResultOf(output: RunCodeOutput): CodeModeToolResult {
  return { state: 'done', ...output.structured, text: output.text, isError: output.isError }
}

/**
 * What the model reads of an output: its text, as an error when the run failed. Only final
 * outputs reach the model; a progress output would read as the logs so far.
 */
export function modelOutputOf(output: CodeModeToolOutput): { type: 'text' | 'error-text'; value: string } {
  if (output.state === 'running') return { type: 'text', value: output.logs.join('\n') }
  return { type: output.isError ? 'error-text' : 'text', value: output.text }
}
