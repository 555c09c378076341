/** Test support: a real worker-thread runtime, tracing off (nothing reaches the network), and the run_code text of a model request. */
import { Agent, run, setTracingDisabled, type AgentInputItem, type Tool } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { readRunCodeOutput } from '@code-runtime/openai-agents'
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

setTracingDisabled(true)

export function startRuntime(): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, {})
}

/** The text of every tool output in a model request's input, in order. */
export function toolOutputTexts(input: string | AgentInputItem[]): string[] {
  if (typeof input === 'string') return []
  return input.flatMap(item => {
    if (item.type !== 'function_call_result') return []
    const { output } = item
    if (typeof output === 'string') return [output]
    return !Array.isArray(output) && output.type === 'text' ? [output.text] : []
  })
}

/** A promise with its resolve function, for a test that waits on an event, not on time. */
export function createDeferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(settle => {
    resolve = settle
  })
  return { promise, resolve }
}

/**
 * Runs one program through a real agent run (the SDK's ScriptedModel calls run_code with it,
 * then answers `done`) and returns the structured outcome recorded on the run item.
 */
export async function runProgram(
  runCode: Tool,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<RunCodeOutput> {
  const model = new ScriptedModel([
    [functionCall(runCode.name, { code, description: 'a test program', ...extra }, { callId: 'call_test' })],
    [assistantMessage('done')],
  ])
  const result = await run(new Agent({ name: 'Tester', instructions: 'Use run_code.', model, tools: [runCode] }), 'go')
  const [output] = result.newItems.map(readRunCodeOutput).filter(item => item !== undefined)
  if (output === undefined) throw new Error('the run recorded no run_code output')
  return output
}
