// Sessions in the Code Mode MCP server, driven by the official MCP client in front of real MCP
// servers from npm (filesystem, memory): variables persist between run_code calls of one client,
// `reset: true` forgets them, two clients never see each other's (two serve processes, and two
// in-process servers over one shared runtime), and --no-state runs every call from nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { CodeRuntimeError, type CodeRunRequest } from '@code-runtime/core'
import { RUN_CODE_SESSION_SENTENCE } from '@code-runtime/code-mode'
import {
  closeUpstreams,
  connectUpstreams,
  createCodeModeServer,
  parseServersConfig,
  startBackend,
  type CodeModeServer,
  type UpstreamServer,
} from '@code-runtime/mcp'
import { installedBin, makeTempDirectory, startServe, textOf, waitFor, type ServeSession } from './serve-harness.js'

describe('code-runtime serve keeps one session per client', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let config: unknown
  let first: ServeSession
  let second: ServeSession

  before(async () => {
    temp = await makeTempDirectory('code-runtime-serve-session-')
    await mkdir(join(temp.path, 'files'))
    await writeFile(join(temp.path, 'files', 'notes.txt'), 'version 1')
    config = {
      mcpServers: {
        files: { command: installedBin('mcp-server-filesystem'), args: ['files'] },
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
      },
    }
    ;[first, second] = await Promise.all([
      startServe(temp.path, config, ['--backend', 'worker-thread']),
      startServe(temp.path, config, ['--backend', 'worker-thread']),
    ])
  })

  after(async () => {
    await Promise.all([first?.close(), second?.close()].map(closing => closing?.catch(() => undefined)))
    await temp?.remove()
  })

  it('says so in run_code: one sentence in the description, `reset` in the input schema', async () => {
    const [runCode] = (await first.client.listTools()).tools
    assert.ok(runCode?.description?.includes(RUN_CODE_SESSION_SENTENCE))
    assert.deepEqual(Object.keys(runCode?.inputSchema.properties ?? {}), ['code', 'description', 'reset'])
    assert.match(first.stderr(), /variables persist between calls\)\./)
  })

  it('keeps a fetched result in a variable: the next call uses it without calling the tool again', async () => {
    assert.deepEqual(
      await first.runJson(`
      const notes = await tools.files_read_text_file({ path: 'notes.txt' })
      const graph = await tools.memory_read_graph()
      return notes.content
    `),
      'version 1',
    )
    // The file changes on disk: a second read would see it, the variable does not.
    await writeFile(join(temp.path, 'files', 'notes.txt'), 'version 2')
    assert.deepEqual(await first.runJson('({ kept: notes.content, entities: graph.entities.length })'), {
      kept: 'version 1',
      entities: 0,
    })
    // Reading again would have seen the change: the variable came from the first call.
    const reread = await first.runJson('(await tools.files_read_text_file({ path: "notes.txt" })).content')
    assert.equal(reread, 'version 2')
  })

  it('forgets every variable with reset: true', async () => {
    await first.runJson('const before = "kept"')
    assert.equal(await first.runJson('before'), 'kept')
    const reset = (await first.client.callTool({
      name: 'run_code',
      arguments: { code: 'typeof before', description: 'after a reset', reset: true },
    })) as CallToolResult
    assert.equal(textOf(reset), 'undefined')
    assert.equal(await first.runJson('typeof notes'), 'undefined')
  })

  it('never shows one client the variables of another', async () => {
    await first.runJson('const owner = "first client"')
    await second.runJson('const owner = "second client"')
    assert.equal(await first.runJson('owner'), 'first client')
    assert.equal(await second.runJson('owner'), 'second client')
    await second.runJson('const onlySecond = 1')
    assert.equal(await first.runJson('typeof onlySecond'), 'undefined')
  })

  it('--no-state forgets between calls, and says nothing about variables', async () => {
    const stateless = await startServe(temp.path, config, ['--backend', 'worker-thread', '--no-state'])
    try {
      const [runCode] = (await stateless.client.listTools()).tools
      assert.ok(!runCode?.description?.includes(RUN_CODE_SESSION_SENTENCE))
      assert.deepEqual(Object.keys(runCode?.inputSchema.properties ?? {}), ['code', 'description'])
      await stateless.runJson('const notes = await tools.files_read_text_file({ path: "notes.txt" })')
      assert.equal(await stateless.runJson('return typeof notes'), 'undefined')
      assert.match(stateless.stderr(), /no state between calls\)\./)
    } finally {
      await stateless.close()
    }
  })
})

describe('createCodeModeServer: in-process servers over one shared runtime', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let upstreams: UpstreamServer[]
  let started: Awaited<ReturnType<typeof startBackend>>
  const servers: CodeModeServer[] = []

  before(async () => {
    temp = await makeTempDirectory('code-runtime-in-process-session-')
    const config = parseServersConfig(
      {
        mcpServers: {
          memory: {
            command: installedBin('mcp-server-memory'),
            env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
          },
        },
      },
      { directory: temp.path },
    )
    upstreams = await connectUpstreams(config.servers)
    started = await startBackend('worker-thread', { maxWallMs: 30_000 })
  })

  after(async () => {
    await Promise.all(servers.map(server => server.close()))
    await started?.dispose()
    await closeUpstreams(upstreams ?? [])
    await temp?.remove()
  })

  /** A server over `runtime` and a client connected to it in memory. */
  async function connect(
    runtime: Parameters<typeof createCodeModeServer>[0]['runtime'],
    notices: string[] = [],
  ): Promise<{ client: Client; run(code: string): Promise<string> }> {
    const server = createCodeModeServer({ upstreams, runtime, onNotice: line => notices.push(line) })
    servers.push(server)
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'in-process-test', version: '1.0.0' })
    await client.connect(clientTransport)
    return {
      client,
      async run(code) {
        const result = (await client.callTool({
          name: 'run_code',
          arguments: { code, description: 'test' },
        })) as CallToolResult
        return textOf(result)
      },
    }
  }

  it('keeps each client its own variables though they share the runtime, and ends them when the client goes', async () => {
    const alice = await connect(started.runtime)
    const bob = await connect(started.runtime)
    await alice.run('const graph = await tools.memory_read_graph()\nconst name = "alice"')
    await bob.run('const name = "bob"')
    assert.equal(await alice.run('name + " " + graph.entities.length'), 'alice 0')
    assert.equal(await bob.run('name + " " + typeof graph'), 'bob undefined')
    await alice.client.close()
    assert.equal(await bob.run('name'), 'bob')
  })

  it('falls back to one-shot runs, saying so once, when the backend has no sessions', async () => {
    const notices: string[] = []
    const oneShotOnly = {
      run: (request: CodeRunRequest) => started.runtime.run(request),
      openSession: () =>
        Promise.reject(
          new CodeRuntimeError(
            'CODE_RUNTIME_SESSIONS_UNSUPPORTED',
            'The nats backend has no sessions; use run() for one-shot programs.',
          ),
        ),
    }
    const { client, run } = await connect(oneShotOnly, notices)
    let listChanged = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++
    })
    assert.equal(await run('const x = 1\nreturn x + 1'), '2')
    assert.equal(await run('return typeof x'), 'undefined')
    assert.equal(notices.length, 1)
    assert.match(notices[0] ?? '', /cannot keep variables here: The nats backend has no sessions.*from scratch instead/)
    const [runCode] = (await client.listTools()).tools
    assert.ok(!runCode?.description?.includes(RUN_CODE_SESSION_SENTENCE))
    await waitFor(() => listChanged === 1, 'the client to hear that run_code changed')
  })
})
