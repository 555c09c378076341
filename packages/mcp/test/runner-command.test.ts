/**
 * `code-runtime runner` as an operator starts it, on a real nats-server: it takes runs of a NATS
 * caller, drains on SIGTERM (the running program finishes, no new run is taken, exit 0), and
 * `npm run cluster-demo` runs the main job through two of them.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime } from '@code-runtime/nats'
import { startNatsServer, type NatsServer } from '@code-runtime/nats/local-server'
import { join } from 'node:path'
import {
  CLI_PATH,
  installedBin,
  makeTempDirectory,
  startRunnerProcess,
  startServe,
  type RunnerProcess,
} from './serve-harness.js'

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url))

/** A runner as an operator starts it for these tests: one run at a time, a long drain. */
function startTestRunner(url: string): Promise<RunnerProcess> {
  return startRunnerProcess(url, [
    '--insecure-no-auth',
    '--backend',
    'worker-thread',
    '--concurrency',
    '1',
    '--grace-ms',
    '20000',
  ])
}

describe('code-runtime runner', () => {
  let server: NatsServer
  before(async () => {
    server = await startNatsServer()
  })
  after(() => server.dispose())

  it("runs a caller's program, then drains on SIGTERM: the running one finishes, no new one starts, exit 0", async () => {
    const runner = await startTestRunner(server.url)
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, maxQueueMs: 1_000 })
    try {
      let release!: () => void
      const released = new Promise<void>(resolve => {
        release = resolve
      })
      let entered!: () => void
      const enteredPromise = new Promise<void>(resolve => {
        entered = resolve
      })
      const running = runtime.run({
        program: 'return await tools.hold({})',
        bindings: [{ global: 'tools', functions: { hold: async () => (entered(), await released, 'finished') } }],
      })
      await enteredPromise
      const exit = new Promise<number | null>(resolve => runner.child.once('exit', code => resolve(code)))
      runner.child.kill('SIGTERM')
      while (!runner.stderr().includes('draining')) await new Promise(resolve => setTimeout(resolve, 20))
      let ranLate = false
      const late = await runtime.run({
        program: 'await tools.mark({})',
        bindings: [{ global: 'tools', functions: { mark: async () => ((ranLate = true), null) } }],
      })
      assert.equal(late.error?.kind, 'timeout')
      assert.equal(ranLate, false)
      release()
      const result = await running
      assert.equal(result.value, 'finished')
      assert.equal(result.usage.runner, runner.id)
      assert.equal(await exit, 0)
      assert.match(runner.stderr(), /draining \(SIGTERM\)[\s\S]*stopped\./)
      // Without credentials only when asked, and said at every start.
      assert.match(runner.stderr(), /--insecure-no-auth: connecting to NATS without credentials/)
    } finally {
      await dispose()
      runner.child.kill('SIGKILL')
    }
  })

  it('serves run_code with --nats: the program runs on a runner, its variables kept in a session there', async () => {
    const runner = await startTestRunner(server.url)
    const temp = await makeTempDirectory('code-runtime-serve-nats-')
    try {
      const serve = await startServe(
        temp.path,
        {
          mcpServers: {
            memory: {
              command: installedBin('mcp-server-memory'),
              env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
            },
          },
        },
        ['--nats', server.url, '--insecure-no-auth'],
      )
      try {
        assert.deepEqual(
          await serve.runJson('const graph = await tools.memory_read_graph()\nreturn graph.entities'),
          [],
        )
        assert.deepEqual(await serve.runJson('return Object.keys(graph)'), ['entities', 'relations'])
      } finally {
        await serve.close()
      }
    } finally {
      runner.child.kill('SIGTERM')
      await temp.remove()
    }
  })

  it('refuses to start without --nats, without credentials unless --insecure-no-auth, and says when NATS cannot be reached', async () => {
    const run = promisify(execFile)
    await assert.rejects(
      run(process.execPath, [CLI_PATH, 'runner']),
      (error: { code?: number; stderr?: string }) =>
        error.code === 2 && /runner needs --nats <url>/.test(error.stderr ?? ''),
    )
    const withoutCredentials = { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } }
    await assert.rejects(
      run(
        process.execPath,
        [CLI_PATH, 'runner', '--nats', server.url, '--backend', 'worker-thread'],
        withoutCredentials,
      ),
      (error: { code?: number; stderr?: string }) =>
        error.code === 2 && /--nats refuses to connect to NATS without credentials/.test(error.stderr ?? ''),
    )
    await assert.rejects(
      run(process.execPath, [CLI_PATH, 'runner', '--insecure-no-auth']),
      (error: { code?: number; stderr?: string }) =>
        error.code === 2 && /--insecure-no-auth needs --nats/.test(error.stderr ?? ''),
    )
    await assert.rejects(
      run(process.execPath, [
        CLI_PATH,
        'runner',
        '--nats',
        'nats://127.0.0.1:1',
        '--insecure-no-auth',
        '--backend',
        'worker-thread',
      ]),
      (error: { code?: number; stderr?: string }) =>
        error.code === 2 && /Cannot reach NATS at nats:\/\/127\.0\.0\.1:1/.test(error.stderr ?? ''),
    )
  })
})

describe('npm run cluster-demo', () => {
  it('runs the main job through two runners and stops everything it started', async () => {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'cluster-demo'], {
      cwd: REPOSITORY,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    })
    assert.match(stdout, /Digest of 3 notes: 7 entities and 5 relations in the memory graph\./)
    assert.equal((stderr.match(/takes up to 2 runs at once/g) ?? []).length, 2)
    assert.equal((stderr.match(/stopped\./g) ?? []).length, 2)
  })
})
