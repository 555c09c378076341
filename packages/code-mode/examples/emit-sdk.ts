import { emitSdk, type CodeModeTool } from '@code-runtime/code-mode'

const tools: CodeModeTool[] = [
  {
    name: 'get-weather',
    description: 'Current weather for a city.',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name, e.g. Berlin' } },
      required: ['city'],
    },
    outputSchema: {
      type: 'object',
      properties: { celsius: { type: 'number' }, sky: { enum: ['clear', 'cloudy', 'rain'] } },
      required: ['celsius', 'sky'],
    },
    annotations: { readOnlyHint: true },
    execute: async () => ({ celsius: 21, sky: 'clear' }),
  },
]

const sdk = emitSdk(tools)
console.log(sdk.text) // instructions, then the declarations in a ts fence: ready for the prompt
console.log(`get-weather is called as tools.${sdk.memberNames.get('get-weather') ?? '?'}`)
