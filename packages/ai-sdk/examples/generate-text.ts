import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool } from '@code-runtime/ai-sdk'
import { scriptedModel } from './scripted-model.js'

const tools = {
  getWeather: tool({
    description: 'Current weather for a city.',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ celsius: z.number() }),
    execute: async ({ city }) => ({ celsius: city === 'Oslo' ? 4 : 21 }),
  }),
  convert: tool({
    description: 'Celsius to Fahrenheit.',
    inputSchema: z.object({ celsius: z.number() }),
    outputSchema: z.object({ fahrenheit: z.number() }),
    execute: async ({ celsius }) => ({ fahrenheit: (celsius * 9) / 5 + 32 }),
  }),
}

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const result = await generateText({
  // Your provider's model goes here, e.g. openai('gpt-5') or anthropic('claude-sonnet-4-5').
  model: scriptedModel(
    "const { celsius } = await tools.getWeather({ city: 'Rome' })\nreturn `${(await tools.convert({ celsius })).fahrenheit} °F`",
  ),
  prompt: 'How warm is it in Rome, in Fahrenheit?',
  tools: { run_code: codeModeTool({ tools, runtime }) },
  stopWhen: stepCountIs(3),
})
const run = result.steps[0]?.staticToolResults[0]?.output // the run's structured result
console.log(result.text, run?.state === 'done' ? run.calls.map(call => call.member).join(' ') : '')
await dispose()
