/** Test support: a real worker-thread runtime, and a Mastra Agent driven by the scripted model. */
import './offline.js'
import { Agent } from '@mastra/core/agent'
import type { ToolsInput } from '@mastra/core/agent'
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { scriptedModel, type ScriptedModel } from '../examples/scripted-model.js'

export function startRuntime(): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, {})
}

/** An Agent with these tools whose model calls run_code with each program, then answers. */
export function scriptedAgent(tools: ToolsInput, programs: readonly string[]): { agent: Agent; model: ScriptedModel } {
  const model = scriptedModel(programs)
  const agent = new Agent({ id: 'test-agent', name: 'Test agent', instructions: 'Answer with programs.', model, tools })
  return { agent, model }
}

/** The run_code outputs Mastra recorded in a generate result, in order. */
export function runCodeOutputs(result: {
  toolResults: ReadonlyArray<{ payload: { toolName: string; result?: unknown } }>
}): RunCodeOutput[] {
  return result.toolResults
    .filter(chunk => chunk.payload.toolName === 'run_code')
    .map(chunk => chunk.payload.result as RunCodeOutput)
}
