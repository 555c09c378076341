// serve answers its client from the start: initialize, ping and logging/setLevel while an
// upstream server is still connecting; tools/list waits for it up to --list-wait-ms, then lists
// what is ready and sends tools/list_changed when the rest arrives. The slow server is our real
// fixture held before its handshake by a gate file the test creates, so nothing here depends on
// how fast the machine is. In process: a server whose runtime is still starting, or fails to.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  closeUpstreams,
  connectUpstreams,
  createCodeModeServer,
  McpProxyError,
  parseServersConfig,
  startBackend,
  type CodeModeServer,
  type CodeModeServerOptions,
  type UpstreamServer,
} from '@code-runtime/mcp'
import {
  FLAKY_SERVER_PATH,
  isAlive,
  makeTempDirectory,
  readLines,
  startServe,
  textOf,
  waitFor,
  type ServeSession,
} from './serve-harness.js'

/** A fast server and a slow one, the slow one held until `gate` exists. */
function gatedConfig(gate: string, slowLog: string): unknown {
  return {
    mcpServers: {
      fast: { command: process.execPath, args: [FLAKY_SERVER_PATH] },
      slow: {
        command: process.execPath,
        args: [FLAKY_SERVER_PATH],
        env: { FIXTURE_GATE: gate, FIXTURE_LOG: slowLog },
        connectTimeoutMs: 600_000,
      },
    },
  }
}

async function runCodeDescription(serve: ServeSession): Promise<string> {
  const { tools } = await serve.client.listTools()
  return tools.find(tool => tool.name === 'run_code')?.description ?? ''
}

describe('serve while an upstream server is still connecting', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession | undefined

  before(async () => {
    temp = await makeTempDirectory('code-runtime-serve-startup-')
  })

  afterEach(async () => {
    await serve?.close().catch(() => undefined)
    serve = undefined
  })

  after(async () => {
    await temp?.remove()
  })

  it('answers initialize, ping and logging/setLevel at once, and lists the tools once the server is there', async () => {
    const gate = join(temp.path, 'gate-1')
    const slowLog = join(temp.path, 'slow-1.log')
    serve = await startServe(temp.path, gatedConfig(gate, slowLog), [
      '--backend',
      'worker-thread',
      '--list-wait-ms',
      '600000',
    ])
    // initialize was answered (startServe connected the client) before the slow server could start.
    assert.deepEqual(await readLines(slowLog), [])
    assert.deepEqual(await serve.client.ping(), {})
    assert.deepEqual(await serve.client.setLoggingLevel('info'), {})

    let listed = false
    const listing = runCodeDescription(serve).finally(() => {
      listed = true
    })
    // Requests after it are answered while it waits: the listing holds nothing else up.
    await serve.client.ping()
    await new Promise(resolve => setTimeout(resolve, 200))
    await serve.client.ping()
    assert.equal(listed, false, 'tools/list waits for the server still connecting')

    await writeFile(gate, '')
    const description = await listing
    assert.match(description, /slow_echo\(/)
    assert.match(description, /fast_echo\(/)
    assert.doesNotMatch(description, /Still connecting/)
    assert.equal(await serve.runJson('return await tools.slow_echo({ text: "hi" })'), 'hi')
    assert.match(serve.stderr(), /^code-runtime: serving 16 tools of 2 server\(s\) through run_code /m)
  })

  it('lists what is ready after --list-wait-ms, then adds the late server with tools/list_changed', async () => {
    const gate = join(temp.path, 'gate-2')
    const slowLog = join(temp.path, 'slow-2.log')
    serve = await startServe(temp.path, gatedConfig(gate, slowLog), [
      '--backend',
      'worker-thread',
      '--list-wait-ms',
      '0',
    ])
    let changes = 0
    serve.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1
    })
    const first = await runCodeDescription(serve)
    assert.match(first, /^Still connecting \(their tools are added when they are ready\): (fast, )?slow\.$/m)
    assert.doesNotMatch(first, /slow_echo/)
    // The fast server joins as it connects (at once, or with list_changed), and works meanwhile.
    await waitFor(async () => /fast_echo\(/.test(await runCodeDescription(serve!)), 'the fast server to be listed')
    assert.equal(await serve.runJson('return await tools.fast_echo({ text: "early" })'), 'early')
    assert.match(
      await runCodeDescription(serve),
      /^Still connecting \(their tools are added when they are ready\): slow\.$/m,
    )

    const changesBefore = changes
    await writeFile(gate, '')
    await waitFor(() => changes > changesBefore, 'tools/list_changed after the slow server connected')
    const second = await runCodeDescription(serve)
    assert.match(second, /slow_echo\(/)
    assert.doesNotMatch(second, /Still connecting/)
  })

  it('shuts down at once when the client leaves while a server is still connecting, leaving no process behind', async () => {
    const gate = join(temp.path, 'gate-never')
    const slowLog = join(temp.path, 'slow-3.log')
    serve = await startServe(temp.path, gatedConfig(gate, slowLog), ['--backend', 'worker-thread'])
    // Beside them serve has its type checker's child, started at once: it must go too.
    const upstreamPids = (): number[] => serve!.childPids().filter(pid => !isTypeCheckerChild(pid))
    await waitFor(() => upstreamPids().length === 2, 'both upstream servers to be spawned')
    const children = serve.childPids()
    const closing = serve
    serve = undefined
    // Well inside the slow server's 600 s connect timeout: its connection was given up, not awaited.
    await closing.close()
    await waitFor(() => children.every(pid => !isAlive(pid)), 'the upstream servers to exit')
    assert.deepEqual(await readLines(slowLog), [])
  })
})

/** True for the child that runs the type checker (its command line names its entry). */
function isTypeCheckerChild(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('checker-child')
  } catch {
    return false
  }
}

describe('createCodeModeServer with a runtime that is still starting', () => {
  let upstreams: UpstreamServer[]
  let started: Awaited<ReturnType<typeof startBackend>>
  const servers: CodeModeServer[] = []

  before(async () => {
    upstreams = await connectUpstreams(
      parseServersConfig(
        { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] } } },
        { directory: process.cwd() },
      ).servers,
    )
    started = await startBackend('worker-thread', { maxWallMs: 30_000 })
  })

  after(async () => {
    await Promise.all(servers.map(server => server.close()))
    await started?.dispose()
    await closeUpstreams(upstreams ?? [])
  })

  async function connect(
    runtime: CodeModeServerOptions['runtime'],
  ): Promise<{ server: CodeModeServer; client: Client }> {
    const server = createCodeModeServer({ upstreams, runtime })
    servers.push(server)
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'startup-test', version: '1.0.0' })
    await client.connect(clientTransport)
    return { server, client }
  }

  it('answers initialize and ping meanwhile, and lists and runs once it is there', async () => {
    let provide: (runtime: CodeModeServerOptions['runtime']) => void = () => undefined
    const runtime = new Promise<Awaited<CodeModeServerOptions['runtime']>>(resolve => {
      provide = resolve
    })
    const { client } = await connect(runtime)
    assert.deepEqual(await client.ping(), {})
    let listed = false
    const listing = client.listTools().finally(() => {
      listed = true
    })
    await client.ping()
    assert.equal(listed, false, 'tools/list waits for the runtime')
    provide(started.runtime)
    assert.deepEqual(
      (await listing).tools.map(tool => tool.name),
      ['run_code'],
    )
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { code: 'return await tools.flaky_echo({ text: "late start" })', description: 'test' },
    })) as CallToolResult
    assert.equal(textOf(result), 'late start')
  })

  it('answers tools/list and tools/call with the error when the runtime fails to start, and says so on ready', async () => {
    const failure = new Error('the container could not start: no user namespaces')
    const { server, client } = await connect(Promise.reject(failure))
    await assert.rejects(server.ready, failure)
    await assert.rejects(client.listTools(), /the container could not start: no user namespaces/)
    await assert.rejects(
      client.callTool({ name: 'run_code', arguments: { code: 'return 1', description: 'test' } }),
      /the container could not start/,
    )
    assert.deepEqual(await client.ping(), {}, 'the connection goes on')
  })

  it('refuses a catalogWaitMs that is not a whole number of milliseconds up to ten minutes', () => {
    for (const catalogWaitMs of [-1, 1.5, 600_001, Number.NaN]) {
      assert.throws(
        () => createCodeModeServer({ upstreams, runtime: started.runtime, catalogWaitMs }),
        (error: unknown) =>
          McpProxyError.is(error) && error.code === 'MCP_PROXY_USAGE' && /catalogWaitMs/.test(error.message),
      )
    }
  })
})
