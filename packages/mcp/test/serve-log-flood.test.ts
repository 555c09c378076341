// `code-runtime serve` under a log flood: a program printing 200 000 lines must
// not freeze the server for the next call, nor flood a client that did not ask for logs. Real
// MCP clients (the SDK's) drive the built bin over stdio.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  FLAKY_SERVER_PATH,
  makeTempDirectory,
  startServe,
  textOf,
  waitFor,
  type ServeSession,
} from './serve-harness.js'

const FLOOD_LINES = 200_000
const FLOOD_PROGRAM = `for (let i = 0; i < ${FLOOD_LINES}; i++) console.log('line ' + i)\nreturn 'printed'`
const FULL_LOG_TEXT = Array.from({ length: FLOOD_LINES }, (_, index) => `line ${index}`).join('\n')
/** The default longest text of one result (`maxResultChars`), the most live log text one run may send. */
const RESULT_CHARS = 40_000
/**
 * A safety net, not a speed claim: the flood call itself may take this long before the test gives
 * up (on the code before the fix it never answered in minutes).
 */
const FLOOD_CALL_LIMIT_MS = 300_000

/** Longest of a few quiet runs (after a warm-up), the measure of this machine's speed right now. */
async function measureQuietRunMs(serve: ServeSession): Promise<number> {
  await serve.runJson('return 1')
  let longest = 0
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = performance.now()
    assert.equal(await serve.runJson('return 1'), 1)
    longest = Math.max(longest, performance.now() - started)
  }
  return longest
}

/**
 * How long the call after a flood may take: 30 quiet runs plus a second. Generous on a loaded
 * machine, yet far below the tens of seconds the server stayed frozen before the fix.
 */
function promptLimitMs(quietMs: number): number {
  return 30 * quietMs + 1_000
}

async function expectPromptNextRun(serve: ServeSession, quietMs: number): Promise<void> {
  const limitMs = promptLimitMs(quietMs)
  const started = performance.now()
  const result = await serve.runCode('return 1', { timeout: limitMs })
  const elapsedMs = performance.now() - started
  assert.equal(textOf(result), '1')
  assert.ok(
    elapsedMs <= limitMs,
    `the run after the flood took ${Math.round(elapsedMs)} ms; a quiet run takes ${Math.round(quietMs)} ms`,
  )
}

/** The result keeps the first and last lines, says how many it left out between them, and ends with the value. */
function assertResultCarriesTheLogs(text: string): void {
  assert.ok(text.length <= RESULT_CHARS, `${text.length} characters`)
  assert.ok(text.startsWith('line 0\nline 1\nline 2\n'), 'the result starts with the first lines')
  assert.ok(
    text.endsWith(`\nline ${FLOOD_LINES - 1}\nprinted`),
    'the result ends with the last line and the returned value',
  )
  const marker = /\n\[\.\.\. (\d+) log lines left out here \((\d+) characters\); log less to see them all\]\n/.exec(
    text,
  )
  assert.ok(marker, 'a marker says how many lines were left out')
  const head = text.slice(0, marker.index)
  const tail = text.slice(marker.index + marker[0].length, text.length - '\nprinted'.length)
  assert.ok(
    FULL_LOG_TEXT.startsWith(`${head}\n`) && FULL_LOG_TEXT.endsWith(`\n${tail}`),
    'the kept lines are the first and the last, in order',
  )
  assert.equal(head.split('\n').length + Number(marker[1]) + tail.split('\n').length, FLOOD_LINES)
  assert.ok(head.length + tail.length > RESULT_CHARS - 300, 'the result is filled with logs up to its cap')
}

describe('code-runtime serve under a log flood', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  const config = () => ({
    mcpServers: {
      flaky: {
        command: process.execPath,
        args: [FLAKY_SERVER_PATH],
        env: { FIXTURE_LOG: join(temp.path, 'flaky.log') },
      },
    },
  })

  before(async () => {
    temp = await makeTempDirectory('code-runtime-flood-')
  })

  after(async () => {
    await temp?.remove()
  })

  describe('a client that never asked for log messages', () => {
    let serve: ServeSession
    const messages: unknown[] = []

    before(async () => {
      serve = await startServe(temp.path, config())
      serve.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
        messages.push(notification.params)
      })
    })

    after(async () => {
      await serve?.close().catch(() => undefined)
    })

    it('answers the next run_code promptly after a run printing 200 000 lines, and receives no log message', async () => {
      const quietMs = await measureQuietRunMs(serve)
      const flood = await serve.runCode(FLOOD_PROGRAM, { timeout: FLOOD_CALL_LIMIT_MS })
      assert.equal(flood.isError, false)
      assertResultCarriesTheLogs(textOf(flood))
      await expectPromptNextRun(serve, quietMs)
      assert.doesNotMatch(serve.stderr(), /MaxListenersExceededWarning/)
      assert.deepEqual(messages, [], 'no notifications/message without logging/setLevel')
    })

    it('sends the logs as the progress of a call that asked for progress', async () => {
      const progressMessages: string[] = []
      const controller = new AbortController()
      // The program prints, then waits on an upstream call that never answers, so the logs go out
      // as progress while the call is alive (the SDK client forgets a call's progress handler as
      // soon as its result arrives); the test then cancels it.
      const call = serve.runCode(`console.log('first')\nconsole.log('second')\nawait tools.flaky_hang()`, {
        signal: controller.signal,
        onprogress: progress => {
          if (progress.message !== undefined) progressMessages.push(progress.message)
        },
      })
      await waitFor(() => progressMessages.join('\n').includes('first\nsecond'), 'the logs as progress messages')
      controller.abort(new Error('seen enough'))
      await assert.rejects(call, /seen enough/)
      assert.deepEqual(messages, [], 'still no notifications/message')
    })
  })

  describe('a client that asked for log messages (logging/setLevel)', () => {
    let serve: ServeSession
    const logs: { logger?: string | undefined; data: unknown }[] = []

    before(async () => {
      serve = await startServe(temp.path, config())
      serve.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
        logs.push(notification.params)
      })
      await serve.client.setLoggingLevel('info')
    })

    after(async () => {
      await serve?.close().catch(() => undefined)
    })

    it('receives the logs up to the result cap, in order, coalesced, and the next run answers promptly', async () => {
      const quietMs = await measureQuietRunMs(serve)
      logs.length = 0
      const flood = await serve.runCode(FLOOD_PROGRAM, { timeout: FLOOD_CALL_LIMIT_MS })
      assert.equal(flood.isError, false)
      assertResultCarriesTheLogs(textOf(flood))
      // The run's logs are all sent before its result: nothing to wait for.
      const batches = logs.filter(entry => entry.logger === 'run_code').map(entry => entry.data)
      assert.ok(
        batches.every(batch => typeof batch === 'string'),
        'each batch is text',
      )
      const received = batches.join('\n')
      assert.equal(
        received,
        FULL_LOG_TEXT.slice(0, RESULT_CHARS),
        'every line up to the cap, in order, nothing after it',
      )
      const linesReceived = received.split('\n').length
      assert.ok(batches.length * 10 <= linesReceived, `${batches.length} notifications for ${linesReceived} lines`)
      await expectPromptNextRun(serve, quietMs)
      assert.doesNotMatch(serve.stderr(), /MaxListenersExceededWarning/)
    })
  })
})
