/**
 * One run of a program against a tool namespace, shared by every Code Mode front end (the
 * `run_code` tool here, the MCP server): the request, the drain of in-flight tool calls when
 * the run settles, and the structured form of the outcome.
 */
import type { CodeBindingNamespace, CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { CodeModeRuntime } from './create-code-mode.js'
import type { RunCodeOptions, RunCodeOutput } from './run-code-tool.js'
import type { ToolCallScheduler } from './tool-call-scheduler.js'

/**
 * Runs `code` with `binding` and, however the run ends, aborts and drains the tool calls still
 * in flight before resolving, so no call outlives the run.
 */
export async function runWithTools(runtime: CodeModeRuntime, code: string, binding: CodeBindingNamespace,
  scheduler: ToolCallScheduler, options: RunCodeOptions = {}): Promise<CodeRunResult> {
  const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = { program: code, bindings: [binding] }
  if (options.signal !== undefined) request.signal = options.signal
  if (options.onLog !== undefined) request.onLog = options.onLog
  if (options.recordCallValues !== undefined) request.recordCallValues = options.recordCallValues
  let result: CodeRunResult
  try {
    result = await runtime.run(request)
  } finally {
    await scheduler.drain(new Error('The run ended before this tool call finished.'))
  }
  return result
}

/** The structured outcome for a caller: `{ logs, result?, error?, calls, usage? }`. */
export function structureRunResult(result: CodeRunResult): RunCodeOutput['structured'] {
  const calls = result.calls ?? []
  const outcome = result.error !== undefined
    ? { logs: result.logs, error: result.error, calls }
    : 'value' in result && result.value !== undefined
      ? { logs: result.logs, result: result.value, calls }
      : { logs: result.logs, calls }
  return result.usage === undefined ? outcome : { ...outcome, usage: result.usage }
}
