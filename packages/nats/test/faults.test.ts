/**
 * Faults against a real nats-server, with nothing lost and nothing doubled: a runner killed with
 * SIGKILL mid-run, a caller process killed mid-run, every runner busy, NATS down at the start and
 * NATS restarted mid-run, and credentials.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { CodeRuntimeError, startCodeRuntime, type CodeRunResult } from '@code-runtime/core'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import { heldTools } from './held-tools.js'
import { freePort, startNatsServer, startTestRunners, type NatsServer } from './nats-server.js'

const RUNNER_PROCESS = fileURLToPath(new URL('./runner-process.js', import.meta.url))
const CALLER_PROCESS = fileURLToPath(new URL('./caller-process.js', import.meta.url))

/**
 * A node process of ours that prints `marker` once it is ready for the test's next step. One that
 * does not within `limitMs` is killed and fails the test (once seen: a caller that never printed
 * `pinged` held the whole suite for good).
 */
function startProcess(
  script: string,
  args: readonly string[],
  marker: string,
  limitMs = 30_000,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} printed no ${marker} within ${limitMs} ms; it printed: ${output}`))
    }, limitMs)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (!output.includes(marker)) return
      clearTimeout(timer)
      resolve(child)
    })
    child.once('exit', code => {
      clearTimeout(timer)
      reject(new Error(`${script} exited (${String(code)}) before ${marker}`))
    })
  })
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise(resolve => child.once('exit', () => resolve()))
}

/**
 * Resolves once the program is inside its held call; fails with the run's result if the run ends
 * first (a run that never reaches a runner would otherwise leave the test waiting for good).
 */
async function entered(held: { readonly entered: Promise<void> }, running: Promise<CodeRunResult>): Promise<void> {
  const ended = running.then(result => {
    throw new Error(`the run ended before its held call: ${JSON.stringify(result.error ?? result.value)}`)
  })
  ended.catch(() => undefined)
  await Promise.race([held.entered, ended])
}

async function waitFor(check: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/**
 * Each test's own limit, far past what it takes beside a CPU hog: once a test of this file hung and
 * the whole file ran into the runner's 15-minute limit without saying which one.
 */
const TEST_LIMIT = { timeout: 120_000 }

describe('nats faults', () => {
  let server: NatsServer
  before(async () => {
    server = await startNatsServer()
  }, TEST_LIMIT)
  after(() => server.dispose(), TEST_LIMIT)

  it(
    'settles a run whose runner is killed as worker-exit naming it, never retried; a run elsewhere is unaffected',
    TEST_LIMIT,
    async () => {
      const first = await startProcess(RUNNER_PROCESS, [server.url, 'doomed', '1'], 'ready')
      // Three seconds of silence, not one: starting the second runner beside a CPU hog once kept the
      // live doomed runner from a heartbeat for just over a second, and the run was lost before the kill.
      const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
        servers: server.url,
        heartbeatMs: 200,
        lostAfterMs: 3_000,
      })
      let second: ChildProcess | undefined
      try {
        const doomed = heldTools()
        const lost = runtime.run({
          program: "await tools.mark({ run: 'lost' })\nreturn await tools.hold({})",
          bindings: [doomed.tools],
        })
        await entered(doomed, lost)
        // The doomed runner is full: the next run goes to the second one.
        second = await startProcess(RUNNER_PROCESS, [server.url, 'survivor', '1'], 'ready')
        const healthy = heldTools()
        const fine = runtime.run({
          program: "await tools.mark({ run: 'fine' })\nreturn await tools.hold({})",
          bindings: [healthy.tools],
        })
        await entered(healthy, fine)
        const killedAt = performance.now()
        first.kill('SIGKILL')
        const result = await lost
        const lostAfterMs = performance.now() - killedAt
        assert.equal(result.error?.kind, 'worker-exit')
        assert.match(result.error?.message ?? '', /The runner doomed stopped answering .*not retried/)
        assert.equal(result.usage.runner, 'doomed')
        // Detected by heartbeats, not by a wall ceiling.
        assert.ok(lostAfterMs < 60_000)
        healthy.release()
        doomed.release()
        const other = await fine
        assert.equal(other.value, 'released')
        assert.equal(other.usage.runner, 'survivor')
        // Nothing ran twice: each program's first call happened once.
        assert.deepEqual(
          [...doomed.calls, ...healthy.calls],
          ['mark {"run":"lost"}', 'hold', 'mark {"run":"fine"}', 'hold'],
        )
      } finally {
        await dispose()
        first.kill('SIGKILL')
        second?.kill('SIGTERM')
        await Promise.all([exited(first), ...(second === undefined ? [] : [exited(second)])])
      }
    },
  )

  it('aborts the run of a caller process that is killed', TEST_LIMIT, async () => {
    const [runner] = (await startTestRunners(server.url, 1, {
      id: 'orphaned',
      lostAfterMs: 1_000,
      heartbeatMs: 200,
    })) as [Runner]
    try {
      const caller = await startProcess(CALLER_PROCESS, [server.url], 'pinged')
      assert.equal(runner.load().active, 1)
      caller.kill('SIGKILL')
      await exited(caller)
      await waitFor(() => runner.load().active === 0, 'the runner to abort the orphaned run')
    } finally {
      await runner.drain(500)
    }
  })

  it(
    'waits for a free runner up to maxQueueMs, then fails without running anything; a run that gets a slot in time runs once',
    TEST_LIMIT,
    async () => {
      const [runner] = (await startTestRunners(server.url, 1, { id: 'single', concurrency: 1 })) as [Runner]
      const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, maxQueueMs: 400 })
      const patient = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, maxQueueMs: 20_000 })
      try {
        const busy = heldTools()
        const holding = runtime.run({ program: 'return await tools.hold({})', bindings: [busy.tools] })
        await busy.entered
        const queued = heldTools()
        const refused = await runtime.run({ program: "await tools.mark({ run: 'queued' })", bindings: [queued.tools] })
        assert.equal(refused.error?.kind, 'timeout')
        assert.match(
          refused.error?.message ?? '',
          /No runner had a free slot within 400 ms \(maxQueueMs\); nothing ran/,
        )
        assert.deepEqual(queued.calls, [])
        const later = heldTools()
        const waiting = patient.runtime.run({
          program: "await tools.mark({ run: 'later' })\nreturn 'ran'",
          bindings: [later.tools],
        })
        busy.release()
        assert.equal((await holding).value, 'released')
        assert.equal((await waiting).value, 'ran')
        assert.deepEqual(later.calls, ['mark {"run":"later"}'])
      } finally {
        await Promise.all([dispose(), patient.dispose()])
        await runner.drain(500)
      }
    },
  )

  it('resolves a run in flight when NATS restarts under it', TEST_LIMIT, async () => {
    const [runner] = (await startTestRunners(server.url, 1, {
      id: 'steady',
      heartbeatMs: 200,
      lostAfterMs: 1_000,
    })) as [Runner]
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      heartbeatMs: 200,
      lostAfterMs: 1_000,
    })
    try {
      const held = heldTools()
      const running = runtime.run({ program: 'return await tools.hold({})', bindings: [held.tools] })
      await held.entered
      await server.stop()
      await new Promise(resolve => setTimeout(resolve, 300))
      await server.restart()
      held.release()
      const result = await running
      // Either it finished once NATS was back, or it failed saying the runner was lost: never a hang.
      assert.ok(result.value === 'released' || result.error?.kind === 'worker-exit', JSON.stringify(result))
    } finally {
      await dispose()
      await runner.drain(500)
    }
  })
})

describe('nats at start-up and with credentials', () => {
  it('fails to start with CODE_RUNTIME_UNAVAILABLE naming the server when NATS is down', TEST_LIMIT, async () => {
    const url = `nats://127.0.0.1:${await freePort()}`
    await assert.rejects(
      startCodeRuntime(NatsCodeRuntime, { servers: url }),
      (error: unknown) =>
        CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE' && error.message.includes(url),
    )
  })

  it('serves only callers with the credentials, and runners too', TEST_LIMIT, async () => {
    const server = await startNatsServer({ user: 'fleet', pass: 's3cret' })
    try {
      await assert.rejects(
        startTestRunners(server.url, 1),
        (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE',
      )
      const [runner] = (await startTestRunners(server.url, 1, {
        nats: { servers: server.url, user: 'fleet', pass: 's3cret' },
      })) as [Runner]
      try {
        await assert.rejects(
          startCodeRuntime(NatsCodeRuntime, { servers: server.url, user: 'fleet', pass: 'wrong' }),
          (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE',
        )
        const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
          servers: server.url,
          user: 'fleet',
          pass: 's3cret',
        })
        try {
          assert.equal((await runtime.run({ program: 'return 6 * 7', bindings: [] })).value, 42)
        } finally {
          await dispose()
        }
      } finally {
        await runner.drain(500)
      }
    } finally {
      await server.dispose()
    }
  })
})
