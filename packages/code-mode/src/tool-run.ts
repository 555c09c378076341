/**
 * One run of a program against a tool namespace, shared by every Code Mode front end (the
 * `run_code` tool here, the MCP server): the request, the drain of in-flight tool calls when
 * the run settles, and the structured form of the outcome.
 */
import type { CodeBindingNamespace, CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { CodeModeRuntime } from './create-code-mode.js'
import type { RunCodeOptions, RunCodeOutput } from './run-code-tool.js'
import type { ToolCallRecord, ToolCallScheduler } from './tool-call-scheduler.js'

/**
 * Runs `code` with `binding` and, however the run ends, aborts and drains the tool calls still
 * in flight before resolving, so no call outlives the run.
 */
export async function runWithTools(runtime: CodeModeRuntime, code: string, binding: CodeBindingNamespace,
  scheduler: ToolCallScheduler, options: RunCodeOptions = {}): Promise<{ readonly result: CodeRunResult; readonly calls: ToolCallRecord[] }> {
  const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = { program: code, bindings: [binding] }
  if (options.signal !== undefined) request.signal = options.signal
  if (options.onLog !== undefined) request.onLog = options.onLog
  let result: CodeRunResult
  try {
    result = await runtime.run(request)
  } finally {
    await scheduler.drain(new Error('The run ended before this tool call finished.'))
  }
  return { result, calls: [...scheduler.calls] }
}

/** The structured outcome for a caller: `{ logs, result?, error?, calls, usage? }`. */
export function structureRunResult(result: CodeRunResult, calls: readonly ToolCallRecord[]): RunCodeOutput['structured'] {
  const outcome = result.error !== undefined
    ? { logs: result.logs, error: result.error, calls }
    : 'value' in result && result.value !== undefined
      ? { logs: result.logs, result: result.value, calls }
      : { logs: result.logs, calls }
  return result.usage === undefined ? outcome : { ...outcome, usage: result.usage }
}
