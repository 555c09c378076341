/**
 * What flows on the response streams of `code-runtime serve --http`, driven over real HTTP in front
 * of a real upstream server from npm and our flaky fixture: live logs and cancellation for clients
 * of both protocol revisions, and resumable streams for 2025-era sessions: a client whose
 * connection dropped mid-run reconnects with `Last-Event-ID` and gets the run's result, and nobody
 * else can replay that stream.
 */
import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { LOG_LEVEL_META_KEY, type Client } from '@modelcontextprotocol/client'
import {
  connectV2,
  firstText,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  startHttpServe,
  writeKeysFile,
  type HttpServe,
} from './serve-http-harness.js'
import { cancelHangingUpstreamCall, FLAKY_SERVER_PATH, installedBin, makeTempDirectory } from './serve-harness.js'

const ALICE_KEY = 'alice-stream-key-0123456789abcdef0123456789'
const BOB_KEY = 'bob-stream-key-0123456789abcdef0123456789ab'
const PROTOCOL = '2025-11-25'

/** One server-sent event as read off the wire. */
interface SseEvent {
  readonly id?: string
  readonly data: string
}

/** A streamed HTTP response read event by event, which the test may drop at any point. */
interface OpenStream {
  readonly status: number
  readonly headers: IncomingMessage['headers']
  /** Resolves the next event, or undefined once the stream ended. */
  next(): Promise<SseEvent | undefined>
  /** Drops the connection, as a client whose network went away. */
  drop(): void
}

function openStream(
  url: URL,
  options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method: options.method, headers: options.headers }, response => {
      let buffered = ''
      let hasEnded = false
      const waiting: ((event: SseEvent | undefined) => void)[] = []
      const parsed: SseEvent[] = []
      const flush = (): void => {
        while (waiting.length > 0 && (parsed.length > 0 || hasEnded)) waiting.shift()?.(parsed.shift())
      }
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffered += chunk
        let end: number
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const block = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          const lines = block.split('\n')
          const id = lines.find(line => line.startsWith('id: '))?.slice(4)
          const data = lines
            .filter(line => line.startsWith('data:'))
            .map(line => line.slice(5).trimStart())
            .join('\n')
          // Comments (keep-alive lines) carry neither.
          if (id !== undefined || data !== '') parsed.push({ ...(id === undefined ? {} : { id }), data })
        }
        flush()
      })
      const ended = (): void => {
        hasEnded = true
        flush()
      }
      response.on('end', ended)
      response.on('close', ended)
      response.on('error', ended)
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        next: () =>
          new Promise(deliver => {
            waiting.push(deliver)
            flush()
          }),
        drop: () => sent.destroy(),
      })
    })
    sent.on('error', error => {
      // A dropped request reports its own destruction; only a failure before the answer matters.
      if (!sent.destroyed) reject(error)
    })
    sent.end(options.body)
  })
}

/**
 * Reconnects with `Last-Event-ID`, as a client does: again after a 409 (the server has not yet let
 * go of the dropped stream), for 3 s, well within the run's 8. A server that learns of the drop
 * only from its next message would answer 409 until the run ends.
 */
async function resumeStream(url: URL, headers: Record<string, string>, lastEventId: string): Promise<OpenStream> {
  const deadline = Date.now() + 3_000
  for (;;) {
    const stream = await openStream(url, { method: 'GET', headers: { ...headers, 'last-event-id': lastEventId } })
    if (stream.status !== 409 || Date.now() > deadline) return stream
    stream.drop()
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

/** Reads events until one carries a JSON-RPC answer to `id`; every event read on the way. */
async function readUntilAnswer(stream: OpenStream, id: number): Promise<{ events: SseEvent[]; answer: unknown }> {
  const events: SseEvent[] = []
  for (;;) {
    const event = await stream.next()
    if (event === undefined) throw new Error(`the stream ended before the answer to ${id}: ${JSON.stringify(events)}`)
    events.push(event)
    if (event.data === '') continue
    const message = JSON.parse(event.data) as { id?: number; result?: unknown }
    if (message.id === id) return { events, answer: message }
  }
}

/** Opens a 2025-era session the raw way: initialize, then initialized. Its id. */
async function openRawSession(url: URL, key: string): Promise<string> {
  const opened = await openStream(url, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${key}` },
    body: INITIALIZE_BODY,
  })
  assert.equal(opened.status, 200)
  const session = opened.headers['mcp-session-id']
  assert.ok(typeof session === 'string', 'initialize names the session')
  await readUntilAnswer(opened, 1)
  const initialized = await openStream(url, {
    method: 'POST',
    headers: sessionHeaders(key, session, MCP_POST_HEADERS),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  assert.equal(initialized.status, 202)
  return session
}

function sessionHeaders(key: string, session: string, base: Record<string, string>): Record<string, string> {
  return { ...base, authorization: `Bearer ${key}`, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL }
}

function runCodeBody(id: number, code: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'run_code', arguments: { code, description: 'a run whose connection drops' } },
  })
}

describe('serve --http response streams', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: HttpServe
  let flakyLog: string

  before(async () => {
    temp = await makeTempDirectory('code-runtime-http-streams-')
    const keysPath = await writeKeysFile(temp.path, { alice: ALICE_KEY, bob: BOB_KEY })
    flakyLog = join(temp.path, 'flaky.log')
    serve = await startHttpServe(
      temp.path,
      {
        mcpServers: {
          memory: { command: installedBin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(temp.path, 'm.jsonl') } },
          flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
        },
      },
      ['--http', '0', '--auth-keys', keysPath, '--backend', 'worker-thread', '--timeout-ms', '30000'],
    )
  })
  after(async () => {
    await serve?.stop('SIGKILL')
    await temp?.remove()
  })

  const PROGRAM = "console.log('starting')\nconsole.log('got', await tools.flaky_echo({ text: 'one' }))\nreturn 'done'"

  it('sends live logs to a 2025-era session at the level it set, and none below it', async () => {
    const client = await connectV2(serve.url, ALICE_KEY, 'legacy')
    const logs: { level: string; data: unknown }[] = []
    client.setNotificationHandler('notifications/message', notification => {
      logs.push({ level: notification.params.level, data: notification.params.data })
    })
    try {
      await client.setLoggingLevel('info')
      const result = firstText(
        await client.callTool({ name: 'run_code', arguments: { code: PROGRAM, description: 'logs' } }),
      )
      assert.equal(result, 'starting\ngot one\ndone')
      // Lines that come close together arrive as one notification.
      assert.equal(logs.map(entry => entry.data).join('\n'), 'starting\ngot one')
      assert.ok(logs.every(entry => entry.level === 'info'))
      logs.length = 0
      await client.setLoggingLevel('error')
      await client.callTool({ name: 'run_code', arguments: { code: PROGRAM, description: 'quiet' } })
      assert.deepEqual(logs, [])
    } finally {
      await client.close()
    }
  })

  it('sends live logs to a 2026-07-28 request whose envelope asks for them, and to no other', async () => {
    const client = await connectV2(serve.url, ALICE_KEY, 'modern')
    const logs: unknown[] = []
    client.setNotificationHandler('notifications/message', notification => {
      logs.push(notification.params.data)
    })
    try {
      const asked = firstText(
        await client.callTool({
          name: 'run_code',
          arguments: { code: PROGRAM, description: 'logs' },
          _meta: { [LOG_LEVEL_META_KEY]: 'info' },
        }),
      )
      assert.match(asked, /^starting\ngot one\ndone\n\nsession: s_/)
      assert.equal(logs.join('\n'), 'starting\ngot one')
      logs.length = 0
      await client.callTool({ name: 'run_code', arguments: { code: PROGRAM, description: 'not asked' } })
      assert.deepEqual(logs, [])
    } finally {
      await client.close()
    }
  })

  for (const era of ['legacy', 'modern'] as const) {
    it(`stops the run when a ${era === 'legacy' ? '2025-era' : '2026-07-28'} client cancels run_code, cancelling its upstream call`, async () => {
      const client: Client = await connectV2(serve.url, BOB_KEY, era)
      try {
        await writeFile(flakyLog, '')
        await cancelHangingUpstreamCall(
          (code, options) => client.callTool({ name: 'run_code', arguments: { code, description: 'hang' } }, options),
          flakyLog,
        )
        const after = firstText(
          await client.callTool({ name: 'run_code', arguments: { code: 'return 5', description: 'after' } }),
        )
        assert.match(after, /^5/)
      } finally {
        await client.close()
      }
    })
  }

  it('resumes a 2025-era response stream after its connection dropped: the result comes with Last-Event-ID', async () => {
    const session = await openRawSession(serve.url, ALICE_KEY)
    const call = await openStream(serve.url, {
      method: 'POST',
      headers: sessionHeaders(ALICE_KEY, session, MCP_POST_HEADERS),
      // Long enough that the reconnection below comes while the run still works.
      body: runCodeBody(7, "await new Promise(resolve => setTimeout(resolve, 8000))\nreturn 'after the drop'"),
    })
    assert.equal(call.status, 200)
    const first = await call.next()
    assert.ok(first?.id !== undefined, `the stream opens with an event id to resume from: ${JSON.stringify(first)}`)
    call.drop()

    // Nobody else replays it: another principal naming the session finds no session...
    const foreign = await openStream(serve.url, {
      method: 'GET',
      headers: { ...sessionHeaders(BOB_KEY, session, { accept: 'text/event-stream' }), 'last-event-id': first.id },
    })
    assert.equal(foreign.status, 404)
    foreign.drop()
    // ...and another session of the same principal finds no such event.
    const other = await openRawSession(serve.url, ALICE_KEY)
    const wrongSession = await openStream(serve.url, {
      method: 'GET',
      headers: { ...sessionHeaders(ALICE_KEY, other, { accept: 'text/event-stream' }), 'last-event-id': first.id },
    })
    assert.equal(wrongSession.status, 400)
    wrongSession.drop()

    // The run goes on without the connection, and the client gets back on while it does: the
    // result comes live on the resumed stream.
    const resumed = await resumeStream(
      serve.url,
      sessionHeaders(ALICE_KEY, session, { accept: 'text/event-stream' }),
      first.id,
    )
    assert.equal(resumed.status, 200)
    const { events, answer } = await readUntilAnswer(resumed, 7)
    const text = (answer as { result: { content: { text: string }[] } }).result.content[0]?.text
    assert.equal(text, 'after the drop')
    assert.ok(
      events.every(event => event.id !== undefined && Number(event.id) > Number(first.id)),
      'only what came after the id is replayed',
    )
    assert.equal(await resumed.next(), undefined, 'the stream ends once the request is answered')
  })
})
