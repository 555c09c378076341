// Persistent sessions on in-memory substrates: a dedicated substrate per session, runs that keep
// it, the run-stop exchange (answered, unanswered, forged), a guest that speaks out of turn, the
// heap budget, the session cap, and disposal. A real guest runs the programs; a scripted one plays
// the subverted guest.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  CodeRuntimeError,
  type CodeBindingNamespace,
  type CodeRunFailure,
  type CodeRunResult,
  type CodeSession,
} from '@code-runtime/core'
import { RunEngine, type RunEngineOptions } from './run-engine.js'
import { RUN_STOP_GRACE_MS } from './run-session.js'
import {
  drain,
  GuestSubstrate,
  InMemoryFactory,
  ScriptedSubstrate,
  TEST_LIMITS as LIMITS,
  type GuestScript,
} from '../../test/in-memory-substrate.js'

type Options = Partial<Omit<RunEngineOptions, 'factory'>>

function guestEngine(options: Options = {}): { engine: RunEngine; factory: InMemoryFactory<GuestSubstrate> } {
  const factory = new InMemoryFactory(() => new GuestSubstrate())
  return { engine: new RunEngine({ ...LIMITS, ...options, factory }), factory }
}

function scriptedEngine(
  script: GuestScript,
  options: Options = {},
): { engine: RunEngine; factory: InMemoryFactory<ScriptedSubstrate> } {
  const factory = new InMemoryFactory(() => new ScriptedSubstrate(script))
  return { engine: new RunEngine({ ...LIMITS, ...options, factory }), factory }
}

/** A scripted guest: every run-start ends with `1` unless the program says `hang`; run-stop is answered unless `silent`. */
function honestScript(silent = false): GuestScript {
  return (message, substrate) => {
    if (message.kind === 'run-start' && !message.source.includes('hang')) {
      setImmediate(() => substrate.emit({ kind: 'run-end', outcome: 'value', valueJson: '1' }))
    }
    if (message.kind === 'run-stop' && !silent) setImmediate(() => substrate.emit({ kind: 'run-stopped' }))
  }
}

const hang: CodeBindingNamespace = { global: 'tools', functions: { hang: () => new Promise<null>(() => {}) } }

function failureOf(result: CodeRunResult): CodeRunFailure {
  assert.ok(result.error !== undefined, `expected a failure, got ${JSON.stringify(result)}`)
  return result.error
}

async function assertRejects(pending: Promise<unknown>, code: string): Promise<CodeRuntimeError> {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  assert.ok(CodeRuntimeError.is(error), `expected ${code}, got ${String(error)}`)
  assert.equal(error.code, code, error.message)
  return error
}

/** Aborts as soon as the run has started, with `reason`. */
function abortSoon(reason = 'stopped by the caller'): AbortSignal {
  const controller = new AbortController()
  setTimeout(() => controller.abort(new Error(reason)), 20)
  return controller.signal
}

describe('RunEngine.openSession', () => {
  it('runs every program of a session on one substrate of its own, spawned for it and kept between runs', async () => {
    const { engine, factory } = guestEngine({ spawnAhead: 1 })
    assert.equal((await engine.run({ program: 'return 0', bindings: [] })).value, 0)
    const spawnedBefore = factory.spawnCalls
    const session = await engine.openSession({ maxHeapBytes: 32 * 1024 * 1024 })
    assert.equal(factory.spawnCalls, spawnedBefore + 1, 'a session never takes a substrate of the pool')
    assert.deepEqual(factory.spawnOptions.at(-1), { persistent: true, maxOldGenerationSizeMb: 32 })
    const substrate = factory.spawned.at(-1)
    assert.equal((await session.run({ program: 'globalThis.total = 40\nreturn 1', bindings: [] })).value, 1)
    assert.equal((await session.run({ program: 'return total + 2', bindings: [] })).value, 42)
    assert.equal(substrate?.alive, true)
    assert.equal(substrate.terminations, 0)
    await engine.dispose()
    assert.equal(substrate.alive, false)
    assert.equal(session.endReason, 'disposed')
  })

  it('keeps the session when the guest answers run-stop after an abort', async () => {
    const { engine, factory } = scriptedEngine(honestScript())
    const session = await engine.openSession()
    const failure = failureOf(
      await session.run({ program: 'await tools.hang()', bindings: [hang], signal: abortSoon() }),
    )
    assert.equal(failure.kind, 'abort')
    assert.doesNotMatch(failure.message, /lost/)
    assert.deepEqual(
      factory.spawned[0]?.sent.map(message => message.kind),
      ['run-start', 'run-stop'],
    )
    assert.equal(session.endReason, undefined)
    assert.equal((await session.run({ program: 'return 1', bindings: [] })).value, 1)
    await engine.dispose()
  })

  it('drops what the guest sent before it read run-stop, a run-end included', async () => {
    const { engine } = scriptedEngine((message, substrate) => {
      if (message.kind === 'run-stop') {
        substrate.emit({ kind: 'log-line', text: 'still printing' })
        substrate.emit({ kind: 'run-end', outcome: 'value', valueJson: '7' })
        setImmediate(() => substrate.emit({ kind: 'run-stopped' }))
      }
    })
    const session = await engine.openSession()
    const result = await session.run({ program: 'await tools.hang()', bindings: [hang], signal: abortSoon() })
    assert.equal(failureOf(result).kind, 'abort')
    assert.deepEqual(result.logs, [])
    assert.equal(session.endReason, undefined)
    await engine.dispose()
  })

  it('kills a guest that does not answer run-stop within the grace, and the session is lost', async () => {
    const { engine, factory } = scriptedEngine(honestScript(true))
    const session = await engine.openSession()
    const started = performance.now()
    const failure = failureOf(
      await session.run({ program: 'await tools.hang()', bindings: [hang], signal: abortSoon() }),
    )
    assert.ok(performance.now() - started >= RUN_STOP_GRACE_MS, 'the guest had its grace')
    assert.equal(failure.kind, 'abort')
    assert.match(failure.message, /This session is lost/)
    assert.deepEqual(failure.session, { id: session.id, ended: 'lost' })
    assert.equal(factory.spawned[0]?.alive, false)
    assert.equal(session.endReason, 'lost')
    const next = failureOf(await session.run({ program: 'return 1', bindings: [] }))
    assert.equal(next.kind, 'worker-exit')
    assert.match(next.message, /^This session was lost: The sandbox did not stop/)
    assert.deepEqual(next.session, { id: session.id, ended: 'lost' })
    await engine.dispose()
  })

  it('says nothing of a lost session when the caller disposes it while its guest is asked to stop', async () => {
    const { engine, factory } = scriptedEngine(honestScript(true))
    const session = await engine.openSession()
    const pending = session.run({ program: 'await tools.hang()', bindings: [hang], signal: abortSoon() })
    await new Promise(resolve => setTimeout(resolve, 60))
    assert.ok(
      factory.spawned[0]?.sent.some(message => message.kind === 'run-stop'),
      'the guest was asked to stop',
    )
    await session.dispose()
    const failure = failureOf(await pending)
    assert.equal(failure.kind, 'abort')
    assert.doesNotMatch(failure.message, /lost/)
    assert.equal(session.endReason, 'disposed')
    await engine.dispose()
  })

  it('kills the substrate at once on a compute timeout: the run says the session is lost', async () => {
    const { engine, factory } = scriptedEngine((message, substrate) => {
      if (message.kind === 'run-start') substrate.busy = 10_000
    })
    const session = await engine.openSession({ computeMs: 30 })
    const failure = failureOf(await session.run({ program: 'while (true) {}', bindings: [] }))
    assert.equal(failure.kind, 'timeout')
    assert.match(failure.message, /30 ms of compute/)
    assert.match(failure.message, /is lost/)
    assert.ok(
      !factory.spawned[0]?.sent.some(message => message.kind === 'run-stop'),
      'no run-stop to a computing guest',
    )
    assert.equal(session.endReason, 'lost')
    await engine.dispose()
  })

  it('treats a run-stopped nobody asked for as a protocol violation', async () => {
    const { engine, factory } = scriptedEngine((message, substrate) => {
      if (message.kind === 'run-start') setImmediate(() => substrate.emit({ kind: 'run-stopped' }))
    })
    const session = await engine.openSession()
    const failure = failureOf(await session.run({ program: 'return 1', bindings: [] }))
    assert.equal(failure.kind, 'worker-exit')
    assert.match(failure.message, /run-stopped out of turn/)
    assert.equal(factory.spawned[0]?.alive, false)
    assert.equal(session.endReason, 'lost')
    await engine.dispose()
  })

  it('ends the session when the guest speaks between runs (a second run-end, a forged run-stopped)', async () => {
    for (const forged of [
      { kind: 'run-end', outcome: 'value', valueJson: '2' },
      { kind: 'run-stopped' },
      { kind: 'guest-ready' },
    ]) {
      const { engine, factory } = scriptedEngine(honestScript())
      const session = await engine.openSession()
      assert.equal((await session.run({ program: 'return 1', bindings: [] })).value, 1)
      factory.spawned[0]?.emit(forged)
      assert.equal(session.endReason, 'lost', `after a forged ${forged.kind}`)
      assert.equal(factory.spawned[0]?.alive, false)
      const next = failureOf(await session.run({ program: 'return 1', bindings: [] }))
      assert.equal(next.kind, 'worker-exit')
      assert.match(next.message, /between runs/)
      await engine.dispose()
    }
  })

  it('ends the session when a run-end reports more used heap than maxHeapBytes, not merely more reserved heap', async () => {
    const { engine } = scriptedEngine((message, substrate) => {
      const used = message.kind === 'run-start' && message.source.includes('keep') ? 64 : 8
      if (message.kind === 'run-start')
        setImmediate(() =>
          substrate.emit({
            kind: 'run-end',
            outcome: 'value',
            valueJson: '1',
            heapBytes: 80 * 1024 * 1024,
            usedHeapBytes: used * 1024 * 1024,
          }),
        )
    })
    const session = await engine.openSession({ maxHeapBytes: 16 * 1024 * 1024 })
    assert.equal(
      (await session.run({ program: 'return 1', bindings: [] })).value,
      1,
      'garbage the young generation holds is not state',
    )
    assert.equal(session.endReason, undefined)
    const failure = failureOf(await session.run({ program: 'globalThis.keep = 1', bindings: [] }))
    assert.equal(failure.kind, 'worker-exit')
    assert.match(failure.message, /maxHeapBytes budget of 16777216/)
    assert.equal(session.endReason, 'lost')
    await engine.dispose()
  })

  it('caps open sessions, frees the slot of an ended one, and says when a substrate cannot start', async () => {
    const { engine } = scriptedEngine(honestScript(), { maxSessions: 1 })
    const first = await engine.openSession()
    await assertRejects(engine.openSession(), 'CODE_RUNTIME_SESSION_LIMIT')
    await first.dispose()
    const second = await engine.openSession()
    await second.dispose()
    await engine.dispose()

    const failing = new RunEngine({
      ...LIMITS,
      maxSessions: 1,
      factory: new InMemoryFactory<ScriptedSubstrate>(() => Promise.reject(new Error('no'))),
    })
    await assertRejects(failing.openSession(), 'CODE_RUNTIME_SESSION_START_FAILED')
    await assertRejects(failing.openSession(), 'CODE_RUNTIME_SESSION_START_FAILED')
    await failing.dispose()
  })

  it('refuses invalid options naming the field, and sessions after disposal', async () => {
    const { engine } = scriptedEngine(honestScript())
    for (const [options, field] of [
      [{ idleMs: 0 }, 'idleMs'],
      [{ maxHeapBytes: 1024 }, 'maxHeapBytes'],
      [{ maxHeapBytes: 65 * 1024 * 1024 }, 'maxHeapBytes'],
      [{ maxWallMs: 'soon' }, 'maxWallMs'],
      [[], undefined],
    ] as const) {
      const error = await assertRejects(engine.openSession(options as never), 'CODE_RUNTIME_INVALID_REQUEST')
      if (field !== undefined) assert.equal(error.field, field)
    }
    await engine.dispose()
    await assertRejects(engine.openSession(), 'CODE_RUNTIME_DISPOSED')
  })

  it('expires an idle session and frees its substrate', async () => {
    const { engine, factory } = scriptedEngine(honestScript())
    const session = await engine.openSession({ idleMs: 20 })
    await new Promise(resolve => setTimeout(resolve, 60))
    assert.equal(session.endReason, 'expired')
    assert.equal(factory.spawned[0]?.alive, false)
    const failure = failureOf(await session.run({ program: 'return 1', bindings: [] }))
    assert.equal(failure.kind, 'worker-exit')
    assert.match(failure.message, /expired after 20 ms without a run \(idleMs\)/)
    await engine.dispose()
  })

  it('settles a queued run as abort when its signal fires before its turn, and never starts it', async () => {
    const { engine, factory } = scriptedEngine(honestScript())
    const session = await engine.openSession()
    const inFlight = session.run({ program: 'hang', bindings: [] })
    const controller = new AbortController()
    const queued = session.run({ program: 'return 1', bindings: [], signal: controller.signal })
    controller.abort(new Error('no longer wanted'))
    const failure = failureOf(await queued)
    assert.equal(failure.kind, 'abort')
    assert.match(failure.message, /no longer wanted/)
    await session.dispose()
    assert.equal(failureOf(await inFlight).kind, 'abort')
    assert.equal(
      factory.spawned[0]?.sent.filter(message => message.kind === 'run-start').length,
      1,
      'the queued run never started',
    )
    await engine.dispose()
  })

  it('queues runs, and on dispose settles the one in flight as abort and rejects the queued ones', async () => {
    const { engine, factory } = scriptedEngine(honestScript())
    const session: CodeSession = await engine.openSession()
    const inFlight = session.run({ program: 'hang', bindings: [] })
    const queued = session.run({ program: 'return 1', bindings: [] })
    await drain()
    assert.equal(
      factory.spawned[0]?.sent.filter(message => message.kind === 'run-start').length,
      1,
      'one run at a time',
    )
    await session.dispose()
    assert.equal(failureOf(await inFlight).kind, 'abort')
    await assertRejects(queued, 'CODE_RUNTIME_SESSION_CLOSED')
    await assertRejects(session.run({ program: 'return 1', bindings: [] }), 'CODE_RUNTIME_SESSION_CLOSED')
    assert.equal(factory.spawned[0]?.alive, false)
    await engine.dispose()
  })
})
