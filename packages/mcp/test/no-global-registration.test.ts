/**
 * The MCP server as a library registers nothing with OpenTelemetry: an application embedding
 * `createCodeModeServer` keeps its own set-up. Without a propagator of the application's, the
 * client's `traceparent` goes no further (passing it on is what the `code-runtime` bin registers
 * W3C propagation for); the run, its spans and the upstream call register nothing on the way.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/client'
import {
  closeUpstreams,
  connectUpstreams,
  createCodeModeServer,
  parseServersConfig,
  startBackend,
  type CodeModeServer,
  type UpstreamServer,
} from '@code-runtime/mcp'
import { makeTempDirectory, textOf } from './serve-harness.js'
import { META_RECORDING_SERVER_PATH, newTraceparent, recordedCalls } from './trace-support.js'

/** The API's registry of globals: absent, or holding only its version, when nothing registered. */
function registeredGlobals(): string[] {
  const registry = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ]
  return Object.keys(registry ?? {}).filter(key => key !== 'version')
}

describe('createCodeModeServer: nothing registered globally', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let upstreams: UpstreamServer[]
  let started: Awaited<ReturnType<typeof startBackend>>
  let server: CodeModeServer
  let recorderLog: string
  before(async () => {
    temp = await makeTempDirectory('code-runtime-no-globals-')
    recorderLog = join(temp.path, 'meta.log')
    const config = parseServersConfig(
      {
        mcpServers: {
          rec: { command: process.execPath, args: [META_RECORDING_SERVER_PATH], env: { FIXTURE_LOG: recorderLog } },
        },
      },
      { directory: temp.path },
    )
    upstreams = await connectUpstreams(config.servers)
    started = await startBackend('worker-thread', { maxWallMs: 30_000 })
    server = createCodeModeServer({ upstreams, runtime: started.runtime })
  })
  after(async () => {
    await server.close()
    await started.dispose()
    await closeUpstreams(upstreams)
    await temp.remove()
  })

  it('serves a traced client’s run and leaves every OpenTelemetry global unregistered', async () => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'no-globals-test', version: '1.0.0' })
    await client.connect(clientTransport)
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { code: "return await tools.rec_echo({ text: 'a' })", description: 'traced program' },
      _meta: { [TRACEPARENT_META_KEY]: newTraceparent().traceparent },
    })) as CallToolResult
    assert.equal(result.isError, false, textOf(result))
    const calls = await recordedCalls(recorderLog)
    assert.equal(calls.length, 1)
    assert.equal(calls[0]?.meta?.[TRACEPARENT_META_KEY], undefined)
    assert.deepEqual(registeredGlobals(), [])
    await client.close()
  })
})
