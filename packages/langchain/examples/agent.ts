import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool, type RunCodeArtifact } from '@code-runtime/langchain'
import { ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { createAgent } from 'langchain'
import { z } from 'zod'
import { scriptedModel } from './scripted-model.js' // your provider's model goes here

const getWeather = tool(async ({ city }) => ({ celsius: city === 'Oslo' ? 4 : 21 }), {
  name: 'get_weather',
  description: 'Current weather for a city.',
  schema: z.object({ city: z.string().describe('City name, e.g. Oslo') }),
})
const toFahrenheit = tool(async ({ celsius }) => (celsius * 9) / 5 + 32, {
  name: 'to_fahrenheit',
  description: 'Converts degrees Celsius to Fahrenheit.',
  schema: z.object({ celsius: z.number() }),
})

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const runCode = codeModeTool({ tools: [getWeather, toFahrenheit], runtime })
const agent = createAgent({ model: scriptedModel(), tools: [runCode] })
const { messages } = await agent.invoke({
  messages: [{ role: 'user', content: 'How much warmer is Rome than Oslo, in °F?' }],
})
const artifact = messages.find(ToolMessage.isInstance)?.artifact as RunCodeArtifact
console.log(messages.at(-1)?.text, artifact.calls.length)
await dispose()
