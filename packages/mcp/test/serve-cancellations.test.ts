/**
 * `notifications/cancelled` through `code-runtime serve`, every message recorded as it arrives:
 * at the client (the official SDK client, answering approval questions) and at an upstream
 * fixture server. A request already answered is never cancelled after the fact when its run
 * ends (clients such as the AI SDK's report each stray one as an error); a run_code the client
 * cancels still cancels its upstream call.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import {
  FLAKY_SERVER_PATH,
  installedBin,
  makeTempDirectory,
  readLines,
  startServe,
  waitFor,
  type ServeSession,
} from './serve-harness.js'

describe('serve: cancellations', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession
  let flakyLog: string
  const received: JSONRPCMessage[] = []

  before(async () => {
    temp = await makeTempDirectory('code-runtime-cancellations-')
    flakyLog = join(temp.path, 'flaky.log')
    const config = {
      mcpServers: {
        flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
      },
    }
    serve = await startServe(temp.path, config, ['--backend', 'worker-thread', '--no-state'], async () => ({
      action: 'accept',
      content: {},
    }))
    const transport = serve.client.transport
    assert.ok(transport !== undefined)
    const handle = transport.onmessage
    transport.onmessage = (message, extra) => {
      received.push(message)
      handle?.(message, extra)
    }
  })
  after(async () => {
    await serve.close()
    await temp.remove()
  })

  const cancellationsAtClient = (): JSONRPCMessage[] =>
    received.filter(message => 'method' in message && message.method === 'notifications/cancelled')
  const cancellationsUpstream = async (): Promise<string[]> =>
    (await readLines(flakyLog)).filter(line => line.startsWith('cancelled request'))

  it('cancels neither answered approval questions nor finished upstream calls when the run ends', async () => {
    const program = [
      "await tools.memory_create_entities({ entities: [{ name: 'a', entityType: 't', observations: [] }, { name: 'b', entityType: 't', observations: [] }] })",
      "await tools.memory_delete_entities({ entityNames: ['a'] })",
      "await tools.memory_delete_entities({ entityNames: ['b'] })",
      "return [await tools.flaky_echo({ text: 'one' }), await tools.flaky_echo({ text: 'two' })]",
    ].join('\n')
    assert.deepEqual(await serve.runJson(program), ['one', 'two'])
    assert.equal(received.filter(message => 'method' in message && message.method === 'elicitation/create').length, 2)
    // A second run's calls reach the upstream after anything the first run's end sent it, and
    // its result reaches the client after anything sent to the client before it.
    assert.equal(await serve.runJson("return await tools.flaky_echo({ text: 'three' })"), 'three')
    assert.deepEqual(cancellationsAtClient(), [])
    assert.deepEqual(await cancellationsUpstream(), [])
  })

  it('still cancels the upstream call of a run_code the client cancels', async () => {
    const controller = new AbortController()
    const call = serve.runCode('await tools.flaky_hang()\nreturn "finished"', { signal: controller.signal })
    await waitFor(
      async () => (await readLines(flakyLog)).some(line => line.startsWith('hang started')),
      'the upstream call to start',
    )
    controller.abort('the user pressed stop')
    await assert.rejects(call)
    await waitFor(
      async () => (await readLines(flakyLog)).includes('hang cancelled'),
      'the upstream call to be cancelled',
    )
    assert.equal((await cancellationsUpstream()).length, 1)
  })
})
