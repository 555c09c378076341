import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool, type RunCodeOutput } from '@code-runtime/mastra'
import { scriptedModel } from './scripted-model.js' // your provider's model goes here

const getWeather = createTool({
  id: 'get-weather',
  description: 'Current weather for a city.',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ celsius: z.number() }),
  mcp: { annotations: { readOnlyHint: true } },
  execute: async ({ city }) => ({ celsius: city === 'Oslo' ? 4 : 21 }),
})
const toFahrenheit = createTool({
  id: 'to-fahrenheit',
  description: 'Converts degrees Celsius to Fahrenheit.',
  inputSchema: z.object({ celsius: z.number() }),
  outputSchema: z.number(),
  execute: async ({ celsius }) => (celsius * 9) / 5 + 32,
})

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const agent = new Agent({
  id: 'weather',
  name: 'Weather',
  instructions: 'Answer with one short program.',
  model: scriptedModel([
    `const [oslo, rome] = await Promise.all(['Oslo', 'Rome'].map((city) => tools.getWeather({ city })))
return await tools.toFahrenheit({ celsius: rome.celsius - oslo.celsius }) - 32`,
  ]),
  tools: { run_code: codeModeTool({ tools: { getWeather, toFahrenheit }, runtime }) },
})
const result = await agent.generate('How many °F warmer is Rome than Oslo?')
const output = result.toolResults[0]?.payload.result as RunCodeOutput // the app gets the structured result
console.log(result.text, '|', output.structured.calls.length, 'tool calls')
await dispose()
