// `code-runtime` budgets, Ctrl-C and a remote (Streamable HTTP) server: the built bin as a user
// runs it, output, exit codes and leftover processes checked.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  childPidsOf,
  CLI_PATH,
  FLAKY_SERVER_PATH,
  installedBin,
  isAlive,
  makeTempDirectory,
  startServe,
  textOf,
  waitFor,
} from './serve-harness.js'
import { assertOneLineRefusal, cli } from './cli-harness.js'

describe('code-runtime budgets and Ctrl-C', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-budgets-')
  })
  after(() => temp.remove())

  it('names --timeout-ms, not the config field it sets, when a run runs out of wall time', async () => {
    const program = join(temp.path, 'waits.ts')
    await writeFile(program, 'await tools.demo_wait({ ms: 60000 })\nreturn "too late"')
    const outcome = await cli(['run', program, '--timeout-ms', '400', '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.match(outcome.stderr, /^code run failed \(timeout\): Stopped after 400 ms of wall time \(--timeout-ms\)/)
    assert.doesNotMatch(outcome.stderr, /maxWallMs/)
  })

  it('limits compute with --compute-ms and names it', async () => {
    const program = join(temp.path, 'spins.ts')
    await writeFile(program, 'while (true) {}')
    const outcome = await cli(['run', program, '--compute-ms', '300'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.match(outcome.stderr, /^code run failed \(timeout\): Stopped after 300 ms of compute \(--compute-ms\)/)
  })

  it('serve takes --compute-ms, and its run_code results name the option', async () => {
    const serve = await startServe(
      temp.path,
      { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] } } },
      ['--compute-ms', '300'],
    )
    try {
      const result = await serve.runCode('while (true) {}')
      assert.equal(result.isError, true)
      assert.match(textOf(result), /^code run failed \(timeout\): Stopped after 300 ms of compute \(--compute-ms\)/)
    } finally {
      await serve.close()
    }
  })

  it('stops on Ctrl-C: prints "interrupted", exits with 130 and leaves no process behind', async () => {
    const config = join(temp.path, 'flaky.json')
    const fixtureLog = join(temp.path, 'flaky.log')
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: fixtureLog } },
        },
      }),
    )
    const program = join(temp.path, 'hangs.ts')
    await writeFile(program, 'console.log("calling")\nawait tools.flaky_hang()\nreturn "never"')
    const child = spawn(process.execPath, [CLI_PATH, 'run', program, '--config', config], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    const pid = child.pid ?? assert.fail('no pid')
    try {
      await waitFor(
        async () => (await readFile(fixtureLog, 'utf8').catch(() => '')).includes('hang started'),
        'the program to be waiting on the hanging tool',
        60_000,
      )
      // The upstream server and the runtime's child process, whatever the backend keeps.
      const children = childPidsOf(pid)
      assert.ok(children.length > 0, 'the upstream server runs as a child')
      child.kill('SIGINT')
      const [code, signal] = await exited
      assert.deepEqual({ code, signal }, { code: 130, signal: null }, stderr)
      assert.equal(stdout, 'calling\n')
      assert.match(stderr, /^code-runtime: interrupted\n$/)
      assert.deepEqual(children.filter(isAlive), [], 'every child process was closed')
    } finally {
      child.kill('SIGKILL')
    }
  })
})

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

describe('code-runtime with a remote server', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-remote-')
  })
  after(() => temp.remove())

  it('calls the tools of a Streamable HTTP server given by url', async () => {
    const port = await freePort()
    const everything = spawn(installedBin('mcp-server-everything'), ['streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let log = ''
    everything.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString()
    })
    try {
      await waitFor(() => log.includes(`listening on port ${port}`), 'the everything server to listen')
      const config = join(temp.path, 'remote.json')
      await writeFile(
        config,
        JSON.stringify({
          mcpServers: {
            remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Test': 'yes' }, include: ['get-sum'] },
          },
        }),
      )
      const program = join(temp.path, 'sum.ts')
      await writeFile(program, 'return await tools.remote_get_sum({ a: 20, b: 22 })')
      assert.deepEqual(await cli(['run', program, '--config', config, '--backend', 'worker-thread']), {
        code: 0,
        stdout: 'The sum of 20 and 22 is 42.\n',
        stderr: '',
      })
    } finally {
      everything.kill()
      await once(everything, 'exit')
    }
  })

  it('refuses a url nothing answers on, on one line', async () => {
    const port = await freePort()
    const config = join(temp.path, 'unreachable.json')
    await writeFile(config, JSON.stringify({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } }))
    assertOneLineRefusal(
      await cli(['types', '--config', config]),
      new RegExp(
        `server "remote" at http://127\\.0\\.0\\.1:${port}/mcp could not be reached \\(ECONNREFUSED\\); check "url" and "headers"\\.`,
      ),
    )
  })
})
