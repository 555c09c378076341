// What a program reads when an upstream server refuses a call: the server's
// words, without the SDK's `MCP error <code>: ` prefix, which used to reach the program twice
// over from servers that throw McpError. Real servers: the filesystem server from npm (the
// SDK's McpServer, which answers an unknown tool as an error result) and the built-in example
// server (the low-level Server, which throws a JSON-RPC error).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EXAMPLE_SERVER } from '../src/cli/example-server.js'
import { parseServersConfig } from '../src/upstream/server-config.js'
import { closeUpstreams, connectUpstreams, type UpstreamServer } from '../src/upstream/upstream-clients.js'
import { decodeCallResult, describeCallFailure } from '../src/upstream/upstream-results.js'
import { installedBin, makeTempDirectory } from './serve-harness.js'

/** What the program's ToolCallError would say for this call. */
async function programMessage(server: UpstreamServer, tool: string): Promise<string> {
  try {
    const decoded = decodeCallResult(await server.callTool(tool, {}, AbortSignal.timeout(60_000)))
    assert.equal(decoded.ok, false, 'the call fails')
    return decoded.ok ? '' : decoded.error
  } catch (error) {
    return describeCallFailure(server.name, server.config.timeoutMs, error)
  }
}

describe('errors of upstream servers as the program reads them', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let servers: UpstreamServer[] = []

  before(async () => {
    temp = await makeTempDirectory('code-runtime-upstream-errors-')
    const config = parseServersConfig(
      { mcpServers: { files: { command: installedBin('mcp-server-filesystem'), args: ['.'] } } },
      { directory: temp.path },
    )
    servers = await connectUpstreams([...config.servers, EXAMPLE_SERVER])
    for (const server of servers) assert.equal(server.failure, undefined, server.failure?.message)
  })

  after(async () => {
    await closeUpstreams(servers)
    await temp?.remove()
  })

  it('an unknown tool of the filesystem server (McpServer) reads without the MCP error prefix', async () => {
    assert.equal(await programMessage(servers[0] as UpstreamServer, 'read_txt_file'), 'Tool read_txt_file not found')
  })

  it('an unknown tool of the example server (a thrown JSON-RPC error) reads without the MCP error prefix', async () => {
    assert.equal(await programMessage(servers[1] as UpstreamServer, 'get_wether'), 'Unknown tool get_wether')
  })
})
