/**
 * run_code end to end through Mastra's real Agent loop (`agent.generate`), the model scripted
 * with the AI SDK's MockLanguageModelV4: the program calls real Mastra tools, Mastra records the
 * run's output as the tool result, and the model's next step reads its text.
 */
import './offline.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RequestContext } from '@mastra/core/request-context'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { codeModeTool } from '@code-runtime/mastra'
import { lastToolOutput } from '../examples/scripted-model.js'
import { runCodeOutputs, scriptedAgent, startRuntime } from './support.js'

describe('run_code in a Mastra agent loop', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('runs a program calling two Mastra tools, records its output and gives the model its text', async () => {
    const received: unknown[] = []
    const getWeather = createTool({
      id: 'get-weather',
      description: 'Current weather for a city.',
      inputSchema: z.object({
        city: z.string().transform(city => city.trim()),
        units: z.enum(['metric', 'imperial']).default('metric'),
      }),
      outputSchema: z.object({ celsius: z.number() }),
      execute: async (input, context) => {
        received.push({
          tool: 'getWeather',
          input,
          user: context.requestContext.get('user'),
          agentId: context.agent?.agentId,
          signal: context.abortSignal instanceof AbortSignal,
        })
        return { celsius: input.city === 'Oslo' ? 4 : 21 }
      },
    })
    const toFahrenheit = createTool({
      id: 'to-fahrenheit',
      description: 'Converts Celsius to Fahrenheit.',
      inputSchema: z.object({ celsius: z.number() }),
      outputSchema: z.number(),
      execute: async input => {
        received.push({ tool: 'toFahrenheit', input })
        return (input.celsius * 9) / 5 + 32
      },
    })
    const run_code = codeModeTool({ tools: { getWeather, toFahrenheit }, runtime: started.runtime })
    const { agent, model } = scriptedAgent({ run_code }, [
      "const oslo = await tools.getWeather({ city: '  Oslo ' })\nconst fahrenheit = await tools.toFahrenheit({ celsius: oslo.celsius })\nconsole.log('converted')\nreturn { celsius: oslo.celsius, fahrenheit }",
    ])

    const result = await agent.generate('How warm is Oslo in Fahrenheit?', {
      requestContext: new RequestContext([['user', 'ada']]),
    })

    // The tools ran once each, in order, with what Mastra's validator produced (trimmed, defaulted)
    // and with the run's Mastra context: its request context, the agent, an abort signal.
    assert.deepEqual(received, [
      {
        tool: 'getWeather',
        input: { city: 'Oslo', units: 'metric' },
        user: 'ada',
        agentId: 'test-agent',
        signal: true,
      },
      { tool: 'toFahrenheit', input: { celsius: 4 } },
    ])
    const [output, ...more] = runCodeOutputs(result)
    assert.equal(more.length, 0)
    assert.ok(output !== undefined)
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(output.structured.result, { celsius: 4, fahrenheit: 39.2 })
    assert.deepEqual(output.structured.logs, ['converted'])
    assert.deepEqual(
      output.structured.calls.map(call => [call.member, call.outcome]),
      [
        ['getWeather', 'ok'],
        ['toFahrenheit', 'ok'],
      ],
    )

    // The model's second step was sent the run's text, as text, and answered from it.
    const secondStep = model.doGenerateCalls[1]
    assert.ok(secondStep !== undefined)
    assert.deepEqual(lastToolOutput(secondStep.prompt), { type: 'text', value: output.text })
    assert.match(output.text, /^converted\n/)
    assert.match(output.text, /"fahrenheit": 39\.2/)
    assert.equal(result.text, `The program said: ${output.text}`)
  })

  it('offers the model one tool, run_code, described by the SDK of the tools', async () => {
    const lookup = createTool({
      id: 'lookup',
      description: 'Looks a word up.',
      inputSchema: z.object({ word: z.string() }),
      execute: async () => 'found',
    })
    const { agent, model } = scriptedAgent(
      { run_code: codeModeTool({ tools: { lookup }, runtime: started.runtime }) },
      [],
    )
    await agent.generate('hello')
    const offered = model.doGenerateCalls[0]?.tools ?? []
    assert.deepEqual(
      offered.map(tool => tool.name),
      ['run_code'],
    )
    const [runCode] = offered
    assert.ok(runCode !== undefined && runCode.type === 'function')
    assert.match(runCode.description ?? '', /^Run a TypeScript program that calls the tools below/)
    assert.match(
      runCode.description ?? '',
      /\/\*\* Looks a word up\. \*\/\n {2}lookup\(args: \{ word: string \}\): Promise<unknown>/,
    )
    const schema = runCode.inputSchema as { properties?: Record<string, unknown>; required?: string[] }
    assert.deepEqual(Object.keys(schema.properties ?? {}), ['code', 'description'])
    assert.deepEqual(schema.required, ['code', 'description'])
  })

  it('sends a failed run to the model as error text, and records it as the tool result', async () => {
    const { agent, model } = scriptedAgent({ run_code: codeModeTool({ tools: {}, runtime: started.runtime }) }, [
      "throw new Error('no data')",
    ])
    const result = await agent.generate('go')
    const [output] = runCodeOutputs(result)
    assert.equal(output?.isError, true)
    assert.equal(output?.structured.error?.kind, 'exception')
    const told = lastToolOutput(model.doGenerateCalls[1]?.prompt ?? [])
    assert.equal(told?.type, 'error-text')
    assert.match(String(told?.value), /^code run failed \(exception\): Error: no data/)
  })

  it('hands each line a program prints to onLog as it prints it', async () => {
    const lines: string[] = []
    const ping = createTool({ id: 'ping', description: 'Pings.', execute: async () => 'pong' })
    const run_code = codeModeTool({ tools: { ping }, runtime: started.runtime, onLog: text => lines.push(text) })
    const { agent } = scriptedAgent({ run_code }, ["console.log('before')\nconsole.log(await tools.ping())"])
    const [output] = runCodeOutputs(await agent.generate('go'))
    assert.deepEqual(lines, ['before', 'pong'])
    assert.deepEqual(output?.structured.logs, ['before', 'pong'])
  })

  it('keeps variables between run_code calls with a session, and offers reset', async () => {
    let fetches = 0
    const listOrders = createTool({
      id: 'list-orders',
      description: 'Every order.',
      outputSchema: z.array(z.object({ id: z.number(), total: z.number() })),
      execute: async () => (
        fetches++,
        [
          { id: 1, total: 30 },
          { id: 2, total: 12 },
        ]
      ),
    })
    const run_code = codeModeTool({ tools: { listOrders }, runtime: started.runtime, session: true })
    const { agent, model } = scriptedAgent({ run_code }, [
      'const orders = await tools.listOrders()',
      'orders.filter((order) => order.total > 20).map((order) => order.id)',
    ])
    const result = await agent.generate('which orders are big?')
    const outputs = runCodeOutputs(result)
    assert.deepEqual(
      outputs.map(output => output.isError),
      [false, false],
    )
    assert.deepEqual(outputs[1]?.structured.result, [1])
    assert.equal(fetches, 1)
    const offered = model.doGenerateCalls[0]?.tools?.[0]
    assert.ok(offered !== undefined && offered.type === 'function')
    assert.deepEqual(Object.keys((offered.inputSchema as { properties?: Record<string, unknown> }).properties ?? {}), [
      'code',
      'description',
      'reset',
    ])
  })
})
