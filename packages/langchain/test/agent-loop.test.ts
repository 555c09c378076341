/**
 * run_code inside LangChain's real agent loop (`createAgent` of `langchain`), driven by a scripted
 * `BaseChatModel`: the program calls two Zod tools, the ToolMessage carries the text and the
 * structured outcome, the model's next step reads the text, and tracing callbacks see the inner
 * tool runs nested under run_code's.
 */
import { NO_TRACING_ENV, startRuntime } from './langchain-test-env.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { StartedCodeRuntime } from '@code-runtime/core'
import type { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool, type RunCodeArtifact } from '@code-runtime/langchain'
import { BaseCallbackHandler } from '@langchain/core/callbacks/base'
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { createAgent } from 'langchain'
import { z } from 'zod'
import { callTool, ScriptedChatModel } from '../examples/scripted-model.js'

/** Records every tool run LangChain's callbacks report, with the run it nests under. */
class ToolRunRecorder extends BaseCallbackHandler {
  name = 'tool-run-recorder'
  readonly runs: { name: string | undefined; runId: string; parentRunId: string | undefined }[] = []
  override handleToolStart(
    _tool: unknown,
    _input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    this.runs.push({ name: runName, runId, parentRunId })
  }
}

function weatherTools() {
  const received: unknown[] = []
  const getWeather = tool(
    async args => {
      received.push(args)
      return { celsius: args.city === 'Oslo' ? 4 : 21, days: args.days }
    },
    {
      name: 'get_weather',
      description: 'Current weather for a city.',
      // A transform and a default: the tool must get what its own schema makes of the arguments.
      schema: z.object({ city: z.string().trim(), days: z.number().int().default(1) }),
    },
  )
  const toFahrenheit = tool(
    async ({ celsius }) => {
      received.push({ celsius })
      return (celsius * 9) / 5 + 32
    },
    { name: 'to_fahrenheit', description: 'Celsius to Fahrenheit.', schema: z.object({ celsius: z.number() }) },
  )
  return { tools: [getWeather, toFahrenheit], received }
}

const PROGRAM = [
  "const oslo = await tools.get_weather({ city: '  Oslo ' })",
  'const fahrenheit = await tools.to_fahrenheit({ celsius: oslo.celsius })',
  "console.log('converted')",
  'return { fahrenheit, days: oslo.days }',
].join('\n')

describe('run_code in createAgent', () => {
  let started: StartedCodeRuntime<WorkerThreadCodeRuntime>
  before(async () => {
    assert.equal(process.env.LANGSMITH_TRACING, NO_TRACING_ENV.LANGSMITH_TRACING)
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('runs a program that calls two Zod tools, and the model reads what it returned', async () => {
    const { tools, received } = weatherTools()
    const runCode = codeModeTool({ tools, runtime: started.runtime })
    const model = new ScriptedChatModel([
      callTool('run_code', { code: PROGRAM, description: 'Oslo in Fahrenheit' }),
      messages =>
        new AIMessage(`It is ${String(messages.at(-1)?.content).includes('39.2') ? '39.2' : '?'} °F in Oslo.`),
    ])
    const agent = createAgent({ model, tools: [runCode] })
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'How warm is Oslo in °F?' }] })

    // The tools ran once each, with their schemas' output: trimmed, defaulted.
    assert.deepEqual(received, [{ city: 'Oslo', days: 1 }, { celsius: 4 }])

    // The model was given run_code alone, described by the SDK.
    assert.deepEqual(
      model.boundTools.map(bound => (bound as { name?: string }).name),
      ['run_code'],
    )
    assert.equal(runCode.description, runCode.codeMode.tool.description)
    assert.match(runCode.description, /get_weather\(args: \{[\s\S]*city: string[\s\S]*days\?: number/)

    // The ToolMessage: the text as content, the structured outcome as artifact.
    const toolMessage = messages.find(ToolMessage.isInstance)
    assert.ok(toolMessage)
    assert.equal(toolMessage.name, 'run_code')
    assert.equal(toolMessage.tool_call_id, 'call_1')
    assert.equal(typeof toolMessage.content, 'string')
    assert.match(toolMessage.content as string, /converted/)
    assert.match(toolMessage.content as string, /"fahrenheit": 39\.2/)
    const artifact = toolMessage.artifact as RunCodeArtifact
    assert.deepEqual(artifact.result, { fahrenheit: 39.2, days: 1 })
    assert.deepEqual(artifact.logs, ['converted'])
    assert.deepEqual(
      artifact.calls.map(call => [call.member, call.outcome]),
      [
        ['get_weather', 'ok'],
        ['to_fahrenheit', 'ok'],
      ],
    )
    assert.equal(artifact.error, undefined)

    // The model's second step was sent that text, and answered from it.
    assert.equal(model.seen.length, 2)
    assert.equal(model.seen[1]?.at(-1)?.content, toolMessage.content)
    assert.equal(messages.at(-1)?.content, 'It is 39.2 °F in Oslo.')
  })

  it('passes its config down: callbacks see the inner tool runs nested under run_code', async () => {
    const { tools } = weatherTools()
    const runCode = codeModeTool({ tools, runtime: started.runtime })
    const recorder = new ToolRunRecorder()
    const model = new ScriptedChatModel([
      callTool('run_code', { code: PROGRAM, description: 'Oslo in Fahrenheit' }),
      new AIMessage('done'),
    ])
    const agent = createAgent({ model, tools: [runCode] })
    await agent.invoke({ messages: [{ role: 'user', content: 'Oslo?' }] }, { callbacks: [recorder] })
    const outer = recorder.runs.find(run => run.name === 'run_code')
    assert.ok(outer, JSON.stringify(recorder.runs))
    const inner = recorder.runs.filter(run => run.name !== 'run_code')
    assert.deepEqual(
      inner.map(run => [run.name, run.parentRunId]),
      [
        ['get_weather', outer.runId],
        ['to_fahrenheit', outer.runId],
      ],
    )
  })
})
