// An upstream server that fails to start, printing a secret on stderr first: the operator sees
// why (on stderr, and in `code-runtime list`), the model sees only that the server is
// unavailable. Real servers (our fixtures) behind the built bin, driven by the official client.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeFile } from 'node:fs/promises'
import { CLI_PATH, FLAKY_SERVER_PATH, makeTempDirectory, startServe, type ServeSession } from './serve-harness.js'

const FAILING_SERVER_PATH = fileURLToPath(new URL('../../test/fixtures/failing-server.mjs', import.meta.url))
const SECRET = 'sk-live-0123456789abcdef'

/** Two servers that fail differently after printing the secret, and one that works. */
const CONFIG = {
  mcpServers: {
    flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] },
    broken: {
      command: process.execPath,
      args: [FAILING_SERVER_PATH],
      env: { FIXTURE_MODE: 'exit', FIXTURE_SECRET: SECRET },
    },
    // It never answers the handshake, so it fails once this runs out, however loaded the machine.
    mute: {
      command: process.execPath,
      args: [FAILING_SERVER_PATH],
      env: { FIXTURE_MODE: 'mute', FIXTURE_SECRET: SECRET },
      connectTimeoutMs: 3_000,
    },
  },
}

describe('an upstream server that fails to start', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession

  before(async () => {
    temp = await makeTempDirectory('code-runtime-start-failure-')
    serve = await startServe(temp.path, CONFIG)
  })

  after(async () => {
    await serve?.close().catch(() => undefined)
    await temp?.remove()
  })

  it('is named in the run_code description as unavailable, without its stderr or its reason', async () => {
    const { tools } = await serve.client.listTools()
    const description = tools.find(tool => tool.name === 'run_code')?.description ?? ''
    assert.match(description, /^Unavailable \(failed to start, no tools\): broken, mute\.$/m)
    for (const leak of [SECRET, 'boom', 'stderr', 'API key', 'handshake', 'connectTimeoutMs']) {
      assert.ok(!description.includes(leak), `the description shows ${JSON.stringify(leak)}:\n${description}`)
    }
    assert.match(description, /flaky_echo\(/, 'the server that started is described')
  })

  it('tells the operator why on stderr, with the last stderr line of each', () => {
    const stderr = serve.stderr()
    assert.match(
      stderr,
      /^code-runtime: server "broken" exited before finishing the MCP handshake; its last stderr line: "boom: missing API key \(found sk-live-0123456789abcdef\)"/m,
    )
    assert.match(
      stderr,
      /^code-runtime: server "mute" did not finish the MCP handshake within 3000 ms \(connectTimeoutMs\); its last stderr line: "boom: missing API key/m,
    )
  })

  it('tells the operator why in code-runtime list', async () => {
    const configPath = join(temp.path, 'list.json')
    await writeFile(configPath, JSON.stringify(CONFIG))
    const outcome = await new Promise<{ code: number; stdout: string; stderr: string }>(resolve => {
      execFile(
        process.execPath,
        [CLI_PATH, 'list', '--config', configPath],
        { env: { PATH: process.env.PATH ?? '' } },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
        },
      )
    })
    assert.equal(outcome.code, 2)
    assert.match(outcome.stdout, /broken .*failed to start/)
    assert.match(
      outcome.stderr,
      /server "broken" exited before finishing the MCP handshake; its last stderr line: "boom: missing API key \(found sk-live/,
    )
  })
})
