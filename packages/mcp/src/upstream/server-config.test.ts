import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpProxyError } from '../errors.js'
import {
  loadServersConfig,
  parseServersConfig,
  safeParseServersConfig,
  type StdioServerConfig,
} from './server-config.js'

const options = {
  directory: '/project',
  source: 'servers.json',
  variables: (name: string) => ({ TOKEN: 'secret', HOME: '/home/ada' })[name],
}

function refusal(input: unknown): McpProxyError {
  const result = safeParseServersConfig(input, options)
  assert.equal(result.ok, false)
  return (result as { error: McpProxyError }).error
}

describe('parseServersConfig', () => {
  it('decodes a stdio server with defaults, resolving cwd against the config directory', () => {
    const config = parseServersConfig(
      { mcpServers: { files: { command: 'mcp-server-filesystem', args: ['.'] } } },
      options,
    )
    const [files] = config.servers as [StdioServerConfig]
    assert.equal(files.transport, 'stdio')
    assert.equal(files.cwd, '/project')
    assert.deepEqual(files.args, ['.'])
    assert.deepEqual(files.env, {})
    assert.equal(files.timeoutMs, 60_000)
    assert.equal(files.connectTimeoutMs, 30_000)
    assert.ok(Object.isFrozen(files) && Object.isFrozen(files.args))
    const moved = parseServersConfig({ mcpServers: { files: { command: 'x', cwd: 'sub/dir' } } }, options)
      .servers[0] as StdioServerConfig
    assert.equal(moved.cwd, '/project/sub/dir')
  })

  it('decodes a remote server by its url, with headers', () => {
    const config = parseServersConfig(
      {
        mcpServers: {
          api: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, include: ['search_*'] },
        },
      },
      options,
    )
    assert.deepEqual(config.servers[0], {
      name: 'api',
      transport: 'http',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer secret' },
      include: ['search_*'],
      exclude: [],
      approve: [],
      autoApprove: [],
      timeoutMs: 60_000,
      connectTimeoutMs: 30_000,
    })
  })

  it('reads the oauth client of a remote server, expanding its references', () => {
    const config = parseServersConfig(
      {
        mcpServers: {
          api: {
            url: 'https://example.com/mcp',
            oauth: { clientId: 'code-runtime', clientSecret: '${TOKEN}', scopes: ['read', 'write'] },
          },
        },
      },
      options,
    )
    assert.deepEqual((config.servers[0] as { oauth?: unknown }).oauth, {
      clientId: 'code-runtime',
      clientSecret: 'secret',
      scopes: ['read', 'write'],
    })
  })

  it('reads the approve and autoApprove patterns of a server, refusing an empty one', () => {
    const config = parseServersConfig(
      { mcpServers: { files: { command: 'x', approve: ['write_*'], autoApprove: ['read_*', 'list_*'] } } },
      options,
    )
    assert.deepEqual([config.servers[0]?.approve, config.servers[0]?.autoApprove], [['write_*'], ['read_*', 'list_*']])
    assert.throws(
      () => parseServersConfig({ mcpServers: { files: { command: 'x', autoApprove: [''] } } }, options),
      /mcpServers\.files\.autoApprove\[0\] must be a tool name or a pattern with \*/,
    )
    assert.throws(
      () => parseServersConfig({ mcpServers: { files: { command: 'x', approve: 'write_file' } } }, options),
      /mcpServers\.files\.approve/,
    )
  })

  it('accepts the type field other clients write', () => {
    const config = parseServersConfig(
      { mcpServers: { a: { type: 'stdio', command: 'x' }, b: { type: 'http', url: 'http://localhost:1/mcp' } } },
      options,
    )
    assert.deepEqual(
      config.servers.map(server => server.transport),
      ['stdio', 'http'],
    )
  })

  it('expands ${NAME} and ${NAME:-default} in command, args, env and cwd', () => {
    const config = parseServersConfig(
      {
        mcpServers: {
          a: {
            command: '${HOME}/bin/server',
            args: ['--token=${TOKEN}', '${MISSING:-fallback}'],
            env: { KEY: '${TOKEN}' },
            cwd: '${HOME}',
          },
        },
      },
      options,
    )
    const [server] = config.servers as [StdioServerConfig]
    assert.equal(server.command, '/home/ada/bin/server')
    assert.deepEqual(server.args, ['--token=secret', 'fallback'])
    assert.deepEqual(server.env, { KEY: 'secret' })
    assert.equal(server.cwd, '/home/ada')
  })

  it('refuses an unset variable without a default, naming it and the field', () => {
    const error = refusal({ mcpServers: { memory: { command: 'x', env: { MEMORY_FILE_PATH: '${NOPE}/m.json' } } } })
    assert.equal(error.code, 'MCP_PROXY_INVALID_CONFIG')
    assert.equal(error.field, 'mcpServers.memory.env.MEMORY_FILE_PATH')
    assert.match(error.message, /\$\{NOPE\}, which is not set/)
  })

  it('refuses an unknown field with a suggestion and the known fields', () => {
    const error = refusal({ mcpServers: { files: { comand: 'x' } } })
    assert.equal(error.code, 'MCP_PROXY_INVALID_CONFIG')
    assert.equal(error.server, 'files')
    assert.equal(error.field, 'mcpServers.files.comand')
    assert.match(
      error.message,
      /^servers\.json: mcpServers\.files has an unknown field "comand" \(did you mean "command"\?\)/,
    )
    assert.equal(refusal({ mcpServer: {} }).field, 'the config.mcpServer')
  })

  it('refuses wrong types with the path, the rule and the value', () => {
    const cases: [unknown, string, RegExp][] = [
      [[], 'the config', /must be a JSON object/],
      [{ mcpServers: [] }, 'mcpServers', /must be an object of servers/],
      [{ mcpServers: { a: 'x' } }, 'mcpServers.a', /must be an object with "command"/],
      [{ mcpServers: { a: {} } }, 'mcpServers.a', /needs "command"/],
      [{ mcpServers: { a: { command: '' } } }, 'mcpServers.a.command', /non-empty string, got ""/],
      [{ mcpServers: { a: { command: 'x', args: 'y' } } }, 'mcpServers.a.args', /array of strings, got "y"/],
      [{ mcpServers: { a: { command: 'x', env: { N: 1 } } } }, 'mcpServers.a.env.N', /must be a string, got 1/],
      [
        { mcpServers: { a: { command: 'x', timeoutMs: -5 } } },
        'mcpServers.a.timeoutMs',
        /integer from 1 to 2147483647 \(milliseconds\), got -5/,
      ],
      [{ mcpServers: { a: { command: 'x', url: 'http://h' } } }, 'mcpServers.a', /both "command" and "url"/],
      [{ mcpServers: { a: { url: 'ftp://h' } } }, 'mcpServers.a.url', /http:\/\/ or https:\/\//],
      [{ mcpServers: { a: { type: 'sse', url: 'http://h' } } }, 'mcpServers.a.type', /Streamable HTTP/],
      [{ mcpServers: { a: { command: 'x', exclude: [''] } } }, 'mcpServers.a.exclude[0]', /tool name or a pattern/],
      [{ mcpServers: { a: { command: 'x', headers: {} } } }, 'mcpServers.a.headers', /unknown field/],
      [{ mcpServers: { a: { command: 'x', oauth: {} } } }, 'mcpServers.a.oauth', /unknown field/],
      [
        { mcpServers: { a: { url: 'http://h', oauth: 'id' } } },
        'mcpServers.a.oauth',
        /must be an object \{ "clientId"/,
      ],
      [{ mcpServers: { a: { url: 'http://h', oauth: {} } } }, 'mcpServers.a.oauth.clientId', /non-empty string/],
      [
        { mcpServers: { a: { url: 'http://h', oauth: { clientId: 'c', clientID: 'd' } } } },
        'mcpServers.a.oauth.clientID',
        /did you mean "clientId"/,
      ],
      [
        { mcpServers: { a: { url: 'http://h', oauth: { clientId: 'c', scopes: ['read write'] } } } },
        'mcpServers.a.oauth.scopes[0]',
        /one scope, without spaces/,
      ],
      [
        { mcpServers: { a: { url: 'http://h', oauth: { clientId: 'c', scopes: [] } } } },
        'mcpServers.a.oauth.scopes',
        /at least one scope/,
      ],
    ]
    for (const [input, field, message] of cases) {
      const error = refusal(input)
      assert.equal(error.code, 'MCP_PROXY_INVALID_CONFIG', field)
      assert.equal(error.field, field)
      assert.match(error.message, message)
      assert.doesNotMatch(error.message, /\n/)
    }
  })
})

describe('loadServersConfig', () => {
  it('reads a file, resolves against its directory, and reports a missing file or bad JSON on one line', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mcp-config-'))
    try {
      const path = join(directory, 'servers.json')
      await writeFile(path, JSON.stringify({ mcpServers: { a: { command: 'x' } } }))
      const config = await loadServersConfig(path)
      assert.equal(config.directory, directory)
      assert.equal((config.servers[0] as StdioServerConfig).cwd, directory)

      await assert.rejects(
        loadServersConfig(join(directory, 'nope.json')),
        (error: unknown) =>
          McpProxyError.is(error) &&
          error.code === 'MCP_PROXY_CONFIG_NOT_FOUND' &&
          /nope\.json: no such file/.test(error.message),
      )
      await writeFile(path, '{\n  "mcpServers": {,\n}')
      await assert.rejects(
        loadServersConfig(path),
        (error: unknown) =>
          McpProxyError.is(error) &&
          error.code === 'MCP_PROXY_INVALID_JSON' &&
          /line 2, column 18/.test(error.message) &&
          !error.message.includes('\n'),
      )
    } finally {
      await rm(directory, { recursive: true, force: true })
    }
  })
})
