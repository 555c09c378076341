import { Agent, run, setTracingDisabled, tool } from '@openai/agents'
import { z } from 'zod'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool, readRunCodeOutput } from '@code-runtime/openai-agents'
import { scriptedModel } from './scripted-model.js' // your provider's model goes here

setTracingDisabled(true) // this example runs offline
const getWeather = tool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: z.object({ city: z.string().describe('City name, e.g. Oslo') }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: async ({ city }) => ({ city, celsius: city === 'Oslo' ? 4 : 21 }),
})

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const runCode = await codeModeTool({ tools: [getWeather], runtime })
const agent = new Agent({
  name: 'Weather',
  instructions: 'Use run_code to answer.',
  model: scriptedModel(),
  tools: [runCode],
})
const result = await run(agent, 'How much warmer is Rome than Oslo?')
const [output] = result.newItems.map(readRunCodeOutput).filter(item => item !== undefined)
console.log(result.finalOutput, output?.structured.result, output?.structured.calls.length)
await dispose()
