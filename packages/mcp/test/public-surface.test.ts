// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type * as Mcp from '@code-runtime/mcp'

async function loadEntry(): Promise<typeof Mcp> {
  const specifier: string = '@code-runtime/mcp'
  return (await import(specifier)) as typeof Mcp
}

describe('public surface of @code-runtime/mcp', () => {
  it('exports exactly the documented names', async () => {
    assert.deepEqual(Object.keys(await loadEntry()).sort(), [
      'BoundedStdioServerTransport',
      'DEFAULT_CATALOG_WAIT_MS',
      'DEFAULT_MAX_PENDING_WRITE_BYTES',
      'DEFAULT_MAX_REQUEST_BYTES',
      'DEFAULT_MAX_UNREAD_MS',
      'McpProxyError',
      'RunAdmission',
      'RunRefusedBusy',
      'closeUpstreams',
      'connectUpstreams',
      'createCodeModeServer',
      'createCodeModeService',
      'loadServersConfig',
      'parseServersConfig',
      'safeParseServersConfig',
      'startBackend',
      'startUpstreams',
    ])
  })

  it('throws branded errors with stable codes', async () => {
    const { McpProxyError, parseServersConfig, loadServersConfig, connectUpstreams } = await loadEntry()
    const codes: string[] = []
    try {
      parseServersConfig({ mcpServers: { a: { comand: 'x' } } }, { directory: '/' })
    } catch (error) {
      assert.ok(McpProxyError.is(error))
      assert.equal(error.name, 'McpProxyError')
      codes.push(error.code)
    }
    await loadServersConfig('/no/such/servers.json').catch((error: unknown) =>
      codes.push(McpProxyError.is(error) ? error.code : 'not branded'),
    )
    const [ghost] = await connectUpstreams([
      {
        transport: 'stdio',
        name: 'ghost',
        command: 'no-such-mcp-server',
        args: [],
        env: {},
        cwd: '/',
        exclude: [],
        timeoutMs: 1000,
        connectTimeoutMs: 1000,
      },
    ])
    codes.push(ghost?.failure?.code ?? 'no failure')
    assert.deepEqual(codes, ['MCP_PROXY_INVALID_CONFIG', 'MCP_PROXY_CONFIG_NOT_FOUND', 'MCP_PROXY_COMMAND_NOT_FOUND'])
    assert.equal(McpProxyError.is(new Error('x')), false)
    assert.equal(
      McpProxyError.is(
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('trap')
            },
          },
        ),
      ),
      false,
    )
  })
})
