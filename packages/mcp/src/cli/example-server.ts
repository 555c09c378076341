/**
 * The tools `code-runtime run` offers when no config is given: a tiny MCP server living in this
 * process, reached through the same client path as real servers, so trying a program needs
 * nothing installed. Deterministic data; no network.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server'
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS } from '../upstream/server-config.js'
import { PACKAGE_INFO } from '../package-info.js'
import type { InProcessServerConfig } from '../upstream/upstream-clients.js'

/** Its name in the calling convention: `tools.demo_get_weather(...)`. */
export const EXAMPLE_SERVER_NAME = 'demo'

const WEATHER: Readonly<Record<string, { readonly celsius: number; readonly sky: 'clear' | 'cloudy' | 'rain' }>> = {
  Lima: { celsius: 19, sky: 'cloudy' },
  Nairobi: { celsius: 24, sky: 'clear' },
  Oslo: { celsius: 4, sky: 'rain' },
  Rome: { celsius: 21, sky: 'clear' },
  Tokyo: { celsius: 16, sky: 'cloudy' },
}

const MAX_WAIT_MS = 60_000

const TOOLS: Tool[] = [
  {
    name: 'list_cities',
    description: 'The cities get_weather knows.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: {
      type: 'object',
      properties: { cities: { type: 'array', items: { type: 'string' } } },
      required: ['cities'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'get_weather',
    description: 'Current weather of a city (sample data).',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', description: 'A city from list_cities, e.g. "Oslo"' } },
      required: ['city'],
    },
    outputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' }, sky: { enum: ['clear', 'cloudy', 'rain'] } },
      required: ['city', 'celsius', 'sky'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'wait',
    description: 'Resolves after `ms` milliseconds: for trying timeouts, progress and cancellation.',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS } },
      required: ['ms'],
    },
    outputSchema: { type: 'object', properties: { waitedMs: { type: 'integer' } }, required: ['waitedMs'] },
    annotations: { readOnlyHint: true },
  },
]

function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(new Error('cancelled'))
      },
      { once: true },
    )
  })
}

async function startExampleServer(transport: Transport): Promise<{ close(): Promise<void> }> {
  const server = new Server(
    { name: `${PACKAGE_INFO.name}-examples`, version: PACKAGE_INFO.version },
    { capabilities: { tools: {} } },
  )
  server.setRequestHandler('tools/list', () => ({ tools: TOOLS }))
  server.setRequestHandler('tools/call', async (request, context): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {}
    switch (request.params.name) {
      case 'list_cities':
        return structured({ cities: Object.keys(WEATHER) })
      case 'get_weather': {
        const city = String(args.city)
        const weather = WEATHER[city]
        if (weather === undefined) {
          return {
            content: [
              {
                type: 'text',
                text: `No weather for ${JSON.stringify(city)}; known cities: ${Object.keys(WEATHER).join(', ')}.`,
              },
            ],
            isError: true,
          }
        }
        return structured({ city, ...weather })
      }
      case 'wait': {
        const ms = Number(args.ms)
        await sleep(ms, context.mcpReq.signal)
        return structured({ waitedMs: ms })
      }
      default:
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool ${request.params.name}`)
    }
  })
  // Connected by hand, so it speaks 2025-11-25 only: the in-process client speaks nothing newer.
  await server.connect(transport)
  return { close: () => server.close() }
}

/** The built-in example server, ready for `connectUpstreams`. */
export const EXAMPLE_SERVER: InProcessServerConfig = Object.freeze({
  transport: 'in-process',
  name: EXAMPLE_SERVER_NAME,
  start: startExampleServer,
  exclude: Object.freeze([]),
  timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
})
