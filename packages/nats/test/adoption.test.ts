/**
 * Adoptable sessions (README "Adoptable sessions") on a real nats-server with worker-thread
 * runners: a session moves between two callers of one identity that share an adoptionKey, with
 * its variables and memo, and back; a caller with another key, another tenant, a dead runner and
 * a busy session are each refused as documented; a killed caller's session waits to be adopted.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { CodeRuntimeError, startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime, resolveNatsRuntimeConfig, type NatsRuntimeConfigInput, type Runner } from '@code-runtime/nats'
import { heldTools } from './held-tools.js'
import {
  ROGUE,
  RUNNER,
  startNatsServer,
  startTestRunners,
  TENANT_PERMISSIONS,
  VICTIM,
  type NatsServer,
} from './nats-server.js'

const RUNNER_PROCESS = fileURLToPath(new URL('./runner-process.js', import.meta.url))
const CALLER_PROCESS = fileURLToPath(new URL('./adopting-caller-process.js', import.meta.url))
const TEST_LIMIT = { timeout: 120_000 }
const KEY = randomBytes(32)
const TIMING = { heartbeatMs: 200, lostAfterMs: 1_000 }

/** A child process of ours, once it printed `marker`; with what it printed. */
function startProcess(script: string, args: readonly string[], marker: RegExp): Promise<[ChildProcess, string]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} printed nothing matching ${String(marker)}: ${output}`))
    }, 30_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const found = marker.exec(output)
      if (found === null) return
      clearTimeout(timer)
      resolve([child, found[1] ?? ''])
    })
    child.once('exit', code => {
      clearTimeout(timer)
      reject(new Error(`${script} exited (${String(code)}) early`))
    })
  })
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise(resolve => child.once('exit', () => resolve()))
}

const isCode = (code: string, fragment?: RegExp) => (error: unknown) =>
  CodeRuntimeError.is(error) && error.code === code && (fragment === undefined || fragment.test(error.message))

describe('adoptable sessions under the tenant permissions', () => {
  let server: NatsServer
  let runner: Runner
  const callers: (() => Promise<void>)[] = []
  async function caller(config: Partial<NatsRuntimeConfigInput> = {}, adoptable = true): Promise<NatsCodeRuntime> {
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      ...VICTIM,
      ...(adoptable ? { adoptionKey: KEY } : {}),
      ...TIMING,
      ...config,
    })
    callers.push(dispose)
    return runtime
  }

  before(async () => {
    server = await startNatsServer({ extraConfig: TENANT_PERMISSIONS })
    ;[runner] = (await startTestRunners(server.url, 1, {
      id: 'keeper',
      concurrency: 8,
      maxRunsPerCaller: 8,
      ...TIMING,
      nats: { servers: server.url, ...RUNNER },
    })) as [Runner]
  }, TEST_LIMIT)
  after(async () => {
    await Promise.all(callers.map(dispose => dispose()))
    await runner.drain(500)
    await server.dispose()
  }, TEST_LIMIT)

  it('moves a session to another caller with its variables and memo, and back', TEST_LIMIT, async () => {
    const a = await caller()
    const b = await caller()
    const session = await a.openSession()
    assert.match(session.address ?? '', /^keeper\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/)
    assert.ok((session.address ?? '').length <= 200)
    assert.equal((await session.run({ program: 'let x = 41', bindings: [] })).error, undefined)
    await session.keepMemo('declare let x: number')
    const adopted = await b.adoptSession(session.address ?? '')
    assert.equal(adopted.memo, 'declare let x: number')
    assert.equal(adopted.session.id, session.id)
    assert.equal(adopted.session.address, session.address)
    assert.equal((await adopted.session.run({ program: 'x + 1', bindings: [] })).value, 42)
    // The former holder hears of the move and fails at once, naming it.
    assert.equal(session.movedAway, true)
    assert.equal(session.endReason, 'lost')
    const refused = await session.run({ program: 'x', bindings: [] })
    assert.equal(refused.error?.kind, 'worker-exit')
    assert.match(refused.error?.message ?? '', /moved to another caller/)
    await assert.rejects(session.keepMemo('stale'), isCode('CODE_RUNTIME_SESSION_CLOSED'))
    // And back: the first caller adopts it again and sees what the second assigned.
    assert.equal((await adopted.session.run({ program: 'x = 43', bindings: [] })).error, undefined)
    const back = await a.adoptSession(session.address ?? '')
    assert.equal(back.memo, 'declare let x: number')
    assert.equal((await back.session.run({ program: 'x', bindings: [] })).value, 43)
    assert.equal(adopted.session.movedAway, true)
    await back.session.dispose()
    await assert.rejects(b.adoptSession(session.address ?? ''), isCode('CODE_RUNTIME_SESSION_CLOSED', /session lost/))
  })

  it(
    'lets a session go without ending it: the runner keeps it past lostAfterMs for an adopter',
    TEST_LIMIT,
    async () => {
      const stopping = await caller()
      const b = await caller()
      const session = await stopping.openSession()
      assert.equal((await session.run({ program: 'let kept = "let go"', bindings: [] })).error, undefined)
      await session.release()
      assert.equal(session.movedAway, true)
      assert.equal((await session.run({ program: 'kept', bindings: [] })).error?.kind, 'worker-exit')
      // Longer than the runner waits for a silent caller: a session let go is not ended by the silence.
      await new Promise(resolve => setTimeout(resolve, TIMING.lostAfterMs * 2))
      const adopted = await b.adoptSession(session.address ?? '')
      assert.equal((await adopted.session.run({ program: 'kept', bindings: [] })).value, 'let go')
      // A session that cannot be adopted is disposed instead: nobody else could ever reach it.
      const plain = await (await caller({}, false)).openSession()
      await plain.release()
      assert.equal(plain.endReason, 'disposed')
      await adopted.session.dispose()
    },
  )

  it('refuses an adopter with another key as a lost session; the holder keeps it', TEST_LIMIT, async () => {
    const holder = await caller()
    const stranger = await caller({ adoptionKey: randomBytes(32) })
    const session = await holder.openSession()
    await session.run({ program: 'let kept = 7', bindings: [] })
    const rejectedBefore = runner.load().rejectedMessages
    await assert.rejects(
      stranger.adoptSession(session.address ?? ''),
      isCode('CODE_RUNTIME_SESSION_CLOSED', /session lost/),
    )
    assert.ok(runner.load().rejectedMessages > rejectedBefore)
    assert.equal(session.movedAway, false)
    assert.equal((await session.run({ program: 'kept', bindings: [] })).value, 7)
    await session.dispose()
  })

  it('refuses another tenant holding the same key, with the same answer as a wrong key', TEST_LIMIT, async () => {
    const holder = await caller()
    const rogue = await caller({ ...ROGUE })
    const session = await holder.openSession()
    await session.run({ program: 'let secret = 1', bindings: [] })
    await assert.rejects(
      rogue.adoptSession(session.address ?? ''),
      isCode('CODE_RUNTIME_SESSION_CLOSED', /session lost/),
    )
    assert.equal((await session.run({ program: 'secret', bindings: [] })).value, 1)
    await session.dispose()
  })

  it('waits for a run in flight, then adopts', TEST_LIMIT, async () => {
    const a = await caller()
    const b = await caller()
    const session = await a.openSession()
    const held = heldTools()
    const running = session.run({ program: 'let done = await tools.hold({})', bindings: [held.tools] })
    await held.entered
    const adopting = b.adoptSession(session.address ?? '')
    setTimeout(() => held.release(), 500)
    const adopted = await adopting
    assert.equal((await running).error, undefined)
    assert.equal((await adopted.session.run({ program: 'done', bindings: [] })).value, 'released')
    await adopted.session.dispose()
  })

  it('refuses a memo past 512 KiB, a malformed address, and adoption without a key', TEST_LIMIT, async () => {
    const a = await caller()
    const plain = await caller({}, false)
    const session = await a.openSession()
    await assert.rejects(session.keepMemo('é'.repeat(300 * 1024)), isCode('CODE_RUNTIME_INVALID_REQUEST'))
    await session.keepMemo('x'.repeat(512 * 1024))
    await assert.rejects(a.adoptSession('not an address'), isCode('CODE_RUNTIME_INVALID_REQUEST'))
    await assert.rejects(plain.adoptSession(session.address ?? ''), isCode('CODE_RUNTIME_INVALID_CONFIG'))
    const unadoptable = await plain.openSession()
    assert.equal(unadoptable.address, undefined)
    assert.equal((await unadoptable.run({ program: '1 + 1', bindings: [] })).value, 2)
    await Promise.all([session.dispose(), unadoptable.dispose()])
    assert.throws(
      () => resolveNatsRuntimeConfig({ servers: server.url, adoptionKey: new Uint8Array(31) }),
      (error: unknown) => CodeRuntimeError.is(error) && error.field === 'adoptionKey',
    )
  })
})

describe('adoptable sessions when a caller or a runner dies', () => {
  let server: NatsServer
  before(async () => {
    server = await startNatsServer()
  }, TEST_LIMIT)
  after(() => server.dispose(), TEST_LIMIT)
  const inboxPrefix = '_INBOX.gateway'

  it("keeps a killed caller's session for an adopter, past lostAfterMs", TEST_LIMIT, async () => {
    const [runner] = (await startTestRunners(server.url, 1, { id: 'steady', ...TIMING })) as [Runner]
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      inboxPrefix,
      adoptionKey: KEY,
      ...TIMING,
    })
    try {
      const [child, address] = await startProcess(
        CALLER_PROCESS,
        [server.url, inboxPrefix, KEY.toString('hex')],
        /address (\S+)\n/,
      )
      child.kill('SIGKILL')
      await exited(child)
      // Well past the runner's silence limit: a session that is not adoptable would be gone by now.
      await new Promise(resolve => setTimeout(resolve, TIMING.lostAfterMs * 3))
      assert.equal(runner.load().active, 1)
      const adopted = await runtime.adoptSession(address)
      assert.equal(adopted.memo, 'x: number')
      assert.equal((await adopted.session.run({ program: 'x + 1', bindings: [] })).value, 42)
      await adopted.session.dispose()
      assert.equal(runner.load().active, 0)
    } finally {
      await dispose()
      await runner.drain(500)
    }
  })

  it('says the session is lost once its runner is killed, to an adopter and to its holder', TEST_LIMIT, async () => {
    const [doomed] = await startProcess(RUNNER_PROCESS, [server.url, 'doomed', '2'], /(ready)\n/)
    const config = { servers: server.url, inboxPrefix, adoptionKey: KEY, ...TIMING }
    const holder = await startCodeRuntime(NatsCodeRuntime, config)
    const adopter = await startCodeRuntime(NatsCodeRuntime, config)
    try {
      const session = await holder.runtime.openSession()
      await session.run({ program: 'let x = 1', bindings: [] })
      doomed.kill('SIGKILL')
      await exited(doomed)
      await assert.rejects(
        adopter.runtime.adoptSession(session.address ?? ''),
        isCode('CODE_RUNTIME_SESSION_CLOSED', /session lost/),
      )
      // Its holder hears no beat any more: past lostAfterMs the session is lost, and a run says so.
      const deadline = Date.now() + 15_000
      while (session.endReason !== 'lost' && Date.now() < deadline)
        await new Promise(resolve => setTimeout(resolve, 20))
      const result = await session.run({ program: 'x', bindings: [] })
      assert.equal(result.error?.kind, 'worker-exit')
      assert.equal(result.error?.session?.ended, 'lost')
    } finally {
      doomed.kill('SIGKILL')
      await Promise.all([holder.dispose(), adopter.dispose()])
    }
  })
})
