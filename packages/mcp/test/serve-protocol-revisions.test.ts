/**
 * `code-runtime serve` speaks both protocol revisions on one stdio server: a client pinned to
 * 2026-07-28 (SDK 2: `server/discover`, an envelope on every request), SDK 2's client in its
 * default mode and SDK 1.x's client (both open with `initialize`, 2025-11-25). Each drives the
 * built bin in front of real MCP servers from npm (memory, everything) and our fixture (flaky).
 * The 2026 client cannot be asked mid-run: a call that needs approval pauses the run, and the
 * question comes as `input_required`, answered by the client's retry (its SDK's driver here).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import {
  Client,
  LOG_LEVEL_META_KEY,
  type CallToolRequest,
  type ClientOptions,
  type JSONRPCMessage,
  type LoggingLevel,
  type RequestOptions,
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import {
  cancelHangingUpstreamCall,
  collectText,
  FLAKY_SERVER_PATH,
  installedBin,
  isAlive,
  makeTempDirectory,
  serveParameters,
  startServe,
  textOf,
  waitFor,
} from './serve-harness.js'

/** How the tests' clients answer an approval question: accept, or decline with a reason. */
type Answer = { readonly action: 'accept' } | { readonly action: 'decline'; readonly reason: string }

/** A running `code-runtime serve` and an SDK 2 client connected to it. */
interface ModernServe {
  readonly client: Client
  /** Every message the client received, in order. */
  readonly received: JSONRPCMessage[]
  /** The questions the client was asked (elicitation), by message. */
  readonly questions: string[]
  answer: Answer
  stderr(): string
  /** Calls `run_code`; `meta` goes into the request's `_meta`. */
  runCode(
    code: string,
    options?: RequestOptions,
    meta?: Record<string, unknown>,
  ): Promise<Awaited<ReturnType<Client['callTool']>>>
  runJson(code: string): Promise<unknown>
  close(): Promise<void>
}

/** Reads a run's value back from its text (a string is printed raw, anything else as JSON). */
function valueOf(result: Parameters<typeof textOf>[0]): unknown {
  if (result.isError === true) throw new Error(`run failed: ${textOf(result)}`)
  try {
    return JSON.parse(textOf(result)) as unknown
  } catch {
    return textOf(result)
  }
}

/** Starts `code-runtime serve` on `config` and connects an SDK 2 client with `options` to it. */
async function startModernServe(
  directory: string,
  config: unknown,
  extraArgs: readonly string[],
  options: ClientOptions,
): Promise<ModernServe> {
  const transport = new StdioClientTransport(await serveParameters(directory, config, extraArgs))
  const stderr = collectText(transport.stderr)
  const client = new Client(
    { name: 'code-runtime-tests-sdk2', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, ...options },
  )
  const received: JSONRPCMessage[] = []
  const serve: ModernServe = {
    client,
    received,
    questions: [],
    answer: { action: 'accept' },
    stderr,
    async runCode(code, requestOptions = {}, meta) {
      const params: CallToolRequest['params'] = {
        name: 'run_code',
        arguments: { code, description: 'test program' },
        ...(meta === undefined ? {} : { _meta: meta }),
      }
      return client.callTool(params, requestOptions)
    },
    async runJson(code) {
      return valueOf(await serve.runCode(code))
    },
    async close() {
      const pid = transport.pid
      await client.close()
      if (pid !== null) await waitFor(() => !isAlive(pid), 'code-runtime serve to exit')
    },
  }
  client.setRequestHandler('elicitation/create', async request => {
    serve.questions.push(request.params.message)
    const answer = serve.answer
    return answer.action === 'accept'
      ? { action: 'accept', content: { allowRestOfRun: false } }
      : { action: 'decline', content: { reason: answer.reason } }
  })
  await client.connect(transport)
  // Recorded from here on: what the server answered, as it came.
  const handle = transport.onmessage
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message)
    handle?.(message)
  }
  return serve
}

const SEED =
  "await tools.memory_create_entities({ entities: [{ name: 'draft', entityType: 'doc', observations: ['v1'] }] })\n"
const DELETE = "await tools.memory_delete_entities({ entityNames: ['draft'] })"
const NAMES = 'return (await tools.memory_read_graph()).entities.map((entity) => entity.name)'
/** Seeds an entity, tries to delete it (a destructive call: it needs approval), and returns what the program saw. */
const DELETE_AND_LOOK = `${SEED}let refusal = null\ntry { ${DELETE} } catch (error) { refusal = error.message }\nconst names = (await tools.memory_read_graph()).entities.map((entity) => entity.name)\nreturn { refusal, names }`

function memoryServer(directory: string, file: string): unknown {
  return {
    command: installedBin('mcp-server-memory'),
    env: { MEMORY_FILE_PATH: join(directory, file) },
  }
}

describe('serve to a client of revision 2026-07-28', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ModernServe
  let flakyLog: string
  const listings: string[][] = []
  const logs: { level: LoggingLevel; logger: string | undefined; data: unknown }[] = []

  before(async () => {
    temp = await makeTempDirectory('code-runtime-revisions-modern-')
    flakyLog = join(temp.path, 'flaky.log')
    const config = {
      mcpServers: {
        memory: memoryServer(temp.path, 'memory.jsonl'),
        everything: { command: installedBin('mcp-server-everything'), args: ['stdio'], include: ['get-sum'] },
        flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
      },
    }
    serve = await startModernServe(temp.path, config, ['--backend', 'worker-thread'], {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error === null && tools !== null) listings.push(tools.map(tool => tool.description ?? ''))
          },
        },
      },
    })
    serve.client.setNotificationHandler('notifications/message', notification => {
      logs.push({
        level: notification.params.level,
        logger: notification.params.logger,
        data: notification.params.data,
      })
    })
  })

  after(async () => {
    await serve?.close().catch(() => undefined)
    await temp?.remove()
  })

  it('discovers the server at 2026-07-28 and lists run_code over every upstream server, uncacheable', async () => {
    assert.equal(serve.client.getProtocolEra(), 'modern')
    assert.equal(serve.client.getNegotiatedProtocolVersion(), '2026-07-28')
    const { tools } = await serve.client.listTools()
    assert.deepEqual(
      tools.map(tool => tool.name),
      ['run_code'],
    )
    const description = tools[0]?.description ?? ''
    assert.match(description, /memory_create_entities\(args: \{ entities: Entity\[\] \}\)/)
    assert.match(description, /everything_get_sum\(/)
    assert.match(description, /flaky_hang\(\)/)
    // The listing changes at run time: a 2026 client is told not to serve it from a cache.
    const answer = serve.received.findLast(
      message => 'result' in message && Array.isArray((message.result as { tools?: unknown }).tools),
    )
    assert.equal((answer as { result: { ttlMs?: unknown } } | undefined)?.result.ttlMs, 0)
  })

  it('runs a program that calls two upstream servers', async () => {
    const value = await serve.runJson(`
      const sum = await tools.everything_get_sum({ a: 2, b: 3 })
      await tools.memory_create_entities({ entities: [{ name: 'sum', entityType: 'note', observations: [sum] }] })
      const found = await tools.memory_search_nodes({ query: 'sum' })
      return found.entities.map((entity) => [entity.name, entity.observations])
    `)
    assert.deepEqual(value, [['sum', ['The sum of 2 and 3 is 5.']]])
  })

  it("keeps a run's variables for the next run_code (the process's one session)", async () => {
    await serve.runJson(
      "const kept = await tools.everything_get_sum({ a: 20, b: 22 })\nconst note = 'from the first run'",
    )
    assert.deepEqual(await serve.runJson('return [kept, note]'), ['The sum of 20 and 22 is 42.', 'from the first run'])
  })

  it('sends live logs to a request whose envelope asks for them, at the level asked for, and to no other', async () => {
    const program =
      "console.log('starting')\nconsole.log('got', await tools.everything_get_sum({ a: 1, b: 2 }))\nreturn 'done'"
    logs.length = 0
    const asked = await serve.runCode(program, {}, { [LOG_LEVEL_META_KEY]: 'info' })
    assert.equal(valueOf(asked), 'starting\ngot The sum of 1 and 2 is 3.\ndone', 'the result still carries the logs')
    // Every live notification of a run precedes its result.
    assert.equal(logs.map(entry => entry.data).join('\n'), 'starting\ngot The sum of 1 and 2 is 3.')
    assert.ok(logs.every(entry => entry.level === 'info' && entry.logger === 'run_code'))

    logs.length = 0
    const tooQuiet = await serve.runCode(program, {}, { [LOG_LEVEL_META_KEY]: 'warning' })
    const notAsked = await serve.runCode(program)
    assert.equal(valueOf(tooQuiet), 'starting\ngot The sum of 1 and 2 is 3.\ndone')
    assert.equal(valueOf(notAsked), 'starting\ngot The sum of 1 and 2 is 3.\ndone')
    assert.deepEqual(logs, [])
  })

  it('reports progress to a request with a progress token: the logs and the tool-call counts', async () => {
    const from = serve.received.length
    const result = await serve.runCode(
      "console.log('step one')\nawait tools.everything_get_sum({ a: 1, b: 1 })\nreturn await tools.everything_get_sum({ a: 2, b: 2 })",
      { onprogress: () => undefined },
    )
    assert.equal(valueOf(result), 'step one\nThe sum of 2 and 2 is 4.')
    // Read off the wire, not from onprogress: SDK 2's client hands notifications to their handlers
    // a turn later than answers, so it drops the progress that arrives in one read with the result.
    const progress = serve.received
      .slice(from)
      .flatMap(message =>
        'method' in message && message.method === 'notifications/progress'
          ? [message.params as { progress: number; message?: string }]
          : [],
      )
    const messages = progress.map(update => update.message)
    assert.ok(messages.includes('step one'), `progress messages: ${JSON.stringify(messages)}`)
    assert.equal(messages.filter(message => message?.endsWith('tool calls done')).at(-1), '2 of 2 tool calls done')
    assert.deepEqual(
      progress.map(update => update.progress),
      progress.map((_, index) => index + 1),
      'progress grows with every notification',
    )
  })

  it('stops the run when the client cancels run_code, cancelling its upstream call', async () => {
    await cancelHangingUpstreamCall((code, options) => serve.runCode(code, options), flakyLog)
    assert.equal(await serve.runJson('return await tools.flaky_echo({ text: "still serving" })'), 'still serving')
  })

  it('tells the client when the tool list changed (tools/list_changed on its subscription)', async () => {
    const before = listings.length
    assert.equal(await serve.runJson("return await tools.flaky_add_tool({ name: 'late_tool' })"), 'added late_tool')
    await waitFor(() => listings.length > before, 'the client to hear that the tools changed')
    assert.match(listings.at(-1)?.[0] ?? '', /flaky_late_tool\(\)/)
    assert.equal(await serve.runJson('return await tools.flaky_late_tool()'), 'late_tool')
  })

  it('asks about a call that needs approval in input_required rounds; the answer reaches the same run', async () => {
    serve.questions.length = 0
    serve.answer = { action: 'decline', reason: 'keep the draft' }
    assert.deepEqual(await serve.runJson(DELETE_AND_LOOK), {
      refusal:
        'tools.memory_delete_entities: the person declined this call, so it was not made. Their reason: keep the draft',
      names: ['sum', 'draft'],
    })
    assert.equal(serve.questions.length, 1)
    assert.match(serve.questions[0] ?? '', /wants to call memory_delete_entities with:\nentityNames\[0\]: "draft"/)
    assert.match(serve.stderr(), /approval: memory_delete_entities declined by the client \(reason: keep the draft\)/)
    serve.answer = { action: 'accept' }
    assert.deepEqual(await serve.runJson(DELETE_AND_LOOK), { refusal: null, names: ['sum'] })
    assert.equal(serve.questions.length, 2)
  })
})

/**
 * A 2025-11-25 client: its elicitation handler answers with `answer`; `runJson` runs a program
 * and reads its value back; `questions` are the messages it was asked.
 */
interface LegacyServe {
  /** The era and revision the client negotiated, where it says (SDK 2 does, SDK 1.x does not). */
  readonly negotiated?: string
  readonly questions: string[]
  answer: Answer
  listToolNames(): Promise<string[]>
  runJson(code: string): Promise<unknown>
  stderr(): string
  close(): Promise<void>
}

for (const [name, start] of [
  [
    "SDK 2's client in its default mode",
    async (directory: string, config: unknown, args: readonly string[]): Promise<LegacyServe> => {
      const serve = await startModernServe(directory, config, args, {})
      return {
        negotiated: `${serve.client.getProtocolEra()} ${serve.client.getNegotiatedProtocolVersion()}`,
        questions: serve.questions,
        get answer() {
          return serve.answer
        },
        set answer(answer) {
          serve.answer = answer
        },
        listToolNames: async () => (await serve.client.listTools()).tools.map(tool => tool.name),
        runJson: code => serve.runJson(code),
        stderr: serve.stderr,
        close: () => serve.close(),
      }
    },
  ],
  [
    "SDK 1.x's client",
    async (directory: string, config: unknown, args: readonly string[]): Promise<LegacyServe> => {
      const questions: string[] = []
      let answer: Answer = { action: 'accept' }
      const serve = await startServe(directory, config, args, async request => {
        questions.push(request.params.message)
        return answer.action === 'accept'
          ? { action: 'accept', content: { allowRestOfRun: false } }
          : { action: 'decline', content: { reason: answer.reason } }
      })
      return {
        questions,
        get answer() {
          return answer
        },
        set answer(next) {
          answer = next
        },
        listToolNames: async () => (await serve.client.listTools()).tools.map(tool => tool.name),
        runJson: code => serve.runJson(code),
        stderr: serve.stderr,
        close: () => serve.close(),
      }
    },
  ],
] as const) {
  describe(`serve to a client of revision 2025-11-25: ${name}`, () => {
    let temp: Awaited<ReturnType<typeof makeTempDirectory>>
    let serve: LegacyServe

    before(async () => {
      temp = await makeTempDirectory('code-runtime-revisions-legacy-')
      serve = await start(temp.path, { mcpServers: { memory: memoryServer(temp.path, 'memory.jsonl') } }, [
        '--backend',
        'worker-thread',
        '--no-state',
      ])
    })

    after(async () => {
      await serve?.close().catch(() => undefined)
      await temp?.remove()
    })

    it('opens with initialize, lists run_code and runs a program', async () => {
      // SDK 1.x knows no other opening; SDK 2 in its default mode says what it negotiated.
      if (serve.negotiated !== undefined) assert.equal(serve.negotiated, 'legacy 2025-11-25')
      assert.deepEqual(await serve.listToolNames(), ['run_code'])
      assert.deepEqual(await serve.runJson(`${SEED}${NAMES}`), ['draft'])
    })

    it('asks the person by elicitation, and makes the call they accept', async () => {
      serve.questions.length = 0
      serve.answer = { action: 'accept' }
      assert.deepEqual(await serve.runJson(DELETE_AND_LOOK), { refusal: null, names: [] })
      assert.equal(serve.questions.length, 1)
      assert.match(serve.questions[0] ?? '', /wants to call memory_delete_entities with:\nentityNames\[0\]: "draft"/)
      assert.match(serve.stderr(), /approval: memory_delete_entities allowed by the client/)
    })

    it('tells the program why when the person declines, and the call is not made', async () => {
      serve.questions.length = 0
      serve.answer = { action: 'decline', reason: 'keep the draft' }
      assert.deepEqual(await serve.runJson(DELETE_AND_LOOK), {
        refusal:
          'tools.memory_delete_entities: the person declined this call, so it was not made. Their reason: keep the draft',
        names: ['draft'],
      })
      assert.equal(serve.questions.length, 1)
      assert.match(serve.stderr(), /approval: memory_delete_entities declined by the client \(reason: keep the draft\)/)
    })
  })
}
