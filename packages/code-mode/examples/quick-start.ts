import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'

const tools: CodeModeTool[] = [
  {
    name: 'get-weather',
    description: 'Current weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
    annotations: { readOnlyHint: true },
    execute: async args => ({ celsius: (args as { city: string }).city === 'Oslo' ? 4 : 21 }),
  },
]

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const codeMode = createCodeMode({ tools, runtime })
const systemPrompt = `You can run code.\n\n${codeMode.sdk.text}` // or hand codeMode.tool to your framework
const output = await codeMode.tool.execute({
  code: "const [a, b] = await Promise.all(['Oslo', 'Rome'].map((city) => tools.get_weather({ city })))\nreturn b.celsius - a.celsius",
  description: 'temperature gap between Oslo and Rome',
})
console.log(output.text, output.structured.calls.length, systemPrompt.length > 0)
await dispose()
