// The run engine and its run session on in-memory substrates: every way a run settles, each
// failure kind, settling exactly once, and disposal. A real guest runs the programs; a scripted
// one plays the subverted or dying substrate.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError, type CodeBindingNamespace, type CodeRunResult } from '@code-runtime/core'
import { RunEngine, type RunEngineOptions } from './run-engine.js'
import {
  answerRunStart,
  deferred,
  drain,
  GuestSubstrate,
  InMemoryFactory,
  RecyclableSubstrate,
  ScriptedSubstrate,
  TEST_LIMITS as LIMITS,
  type GuestScript,
} from '../../test/in-memory-substrate.js'
import type { Substrate } from './substrate.js'

function engineOn<S extends Substrate>(
  factory: InMemoryFactory<S>,
  options: Partial<Omit<RunEngineOptions, 'factory'>> = {},
): RunEngine {
  return new RunEngine({ ...LIMITS, ...options, factory })
}

function guestEngine(options: Partial<Omit<RunEngineOptions, 'factory'>> = {}): {
  engine: RunEngine
  factory: InMemoryFactory<GuestSubstrate>
} {
  const factory = new InMemoryFactory(() => new GuestSubstrate())
  return { engine: engineOn(factory, options), factory }
}

function scriptedEngine(
  script: GuestScript,
  options: Partial<Omit<RunEngineOptions, 'factory'>> = {},
): { engine: RunEngine; factory: InMemoryFactory<ScriptedSubstrate> } {
  const factory = new InMemoryFactory(() => new ScriptedSubstrate(script))
  return { engine: engineOn(factory, options), factory }
}

/** `tools.echo(x)` resolves `x`; `tools.hang()` never settles; `tools.hook()` runs the test's hook. */
function tools(hook: () => void = () => {}): CodeBindingNamespace {
  return {
    global: 'tools',
    functions: {
      echo: async (args: unknown) => args as null,
      hang: () => new Promise<null>(() => {}),
      hook: async () => {
        hook()
        return new Promise<null>(() => {})
      },
    },
  }
}

function failureOf(result: CodeRunResult): { kind: string; message: string } {
  assert.ok(result.error !== undefined, `expected a failure, got ${JSON.stringify(result)}`)
  return { kind: result.error.kind, message: result.error.message }
}

describe('RunEngine with a real guest', () => {
  it('settles a value with its logs, calls and usage, and kills the substrate', async () => {
    const { engine, factory } = guestEngine()
    const result = await engine.run({
      program: "console.log('looking', 2)\nconst answer = await tools.echo({ n: 41 })\nreturn answer.n + 1",
      bindings: [tools()],
    })
    assert.equal(result.error, undefined)
    assert.equal(result.value, 42)
    assert.deepEqual(result.logs, ['looking 2'])
    assert.deepEqual(
      result.calls.map(({ namespace, member, outcome }) => ({ namespace, member, outcome })),
      [{ namespace: 'tools', member: 'echo', outcome: 'ok' }],
    )
    assert.equal(result.usage.bindingCalls, 1)
    assert.ok((result.usage.endHeapBytes ?? 0) > 0, 'the guest reports its heap')
    assert.equal(factory.spawned[0]?.alive, false, 'one substrate per run')
    await engine.dispose()
  })

  it('settles a thrown error as `exception`', async () => {
    const { engine } = guestEngine()
    const failure = failureOf(await engine.run({ program: "throw new Error('no such order')", bindings: [] }))
    assert.equal(failure.kind, 'exception')
    assert.match(failure.message, /no such order/)
    await engine.dispose()
  })

  it('refuses a program that does not compile as `exception` without taking a substrate', async () => {
    const { engine, factory } = guestEngine()
    const failure = failureOf(await engine.run({ program: 'return (', bindings: [] }))
    assert.equal(failure.kind, 'exception')
    assert.equal(factory.spawnCalls, 0)
    await engine.dispose()
  })

  it('settles a value that is not lossless JSON as `invalid-output`', async () => {
    const { engine } = guestEngine()
    const failure = failureOf(await engine.run({ program: 'return { total: () => 1 }', bindings: [] }))
    assert.equal(failure.kind, 'invalid-output')
    await engine.dispose()
  })

  it('settles a log flood as `output-limit` and keeps the logs within the cap', async () => {
    const { engine, factory } = guestEngine({ maxOutputBytes: 200 })
    const result = await engine.run({
      program: "for (let i = 0; i < 50; i++) console.log('x'.repeat(20))\nreturn 1",
      bindings: [],
    })
    assert.equal(failureOf(result).kind, 'output-limit')
    assert.ok(Buffer.byteLength(JSON.stringify(result.logs)) <= 200)
    assert.equal(factory.spawned[0]?.alive, false)
    await engine.dispose()
  })

  it('settles as `timeout` naming maxWallMs when the program waits too long, the call recorded in flight', async () => {
    // Long enough for the program to make its call first on a loaded machine (80 ms was not).
    const { engine } = guestEngine({ budgets: { computeMs: 2_000, maxWallMs: 1_000 } })
    const result = await engine.run({ program: 'await tools.hang()', bindings: [tools()] })
    const failure = failureOf(result)
    assert.equal(failure.kind, 'timeout')
    assert.match(failure.message, /1000 ms of wall time \(maxWallMs\)/)
    assert.deepEqual(
      result.error?.budget,
      { name: 'maxWallMs', limit: 1_000 },
      'the budget is a fact beside the message [#failure-facts]',
    )
    assert.deepEqual(
      result.calls.map(call => call.outcome),
      ['in-flight'],
    )
    await engine.dispose()
  })

  it('settles as `timeout` naming computeMs once the substrate was busy for the budget', async () => {
    const factory = new InMemoryFactory(() => new GuestSubstrate())
    const engine = engineOn(factory, { budgets: { computeMs: 30, maxWallMs: 10_000 } })
    const hook = (): void => {
      const substrate = factory.spawned[0]
      if (substrate !== undefined) substrate.busy = 31
    }
    const result = await engine.run({ program: 'await tools.hook()', bindings: [tools(hook)] })
    const failure = failureOf(result)
    assert.equal(failure.kind, 'timeout')
    assert.match(failure.message, /30 ms of compute \(computeMs\)/)
    assert.deepEqual(result.error?.budget, { name: 'computeMs', limit: 30 })
    await engine.dispose()
  })

  it('settles as `abort` without taking a substrate when the signal fired before the run', async () => {
    const { engine, factory } = guestEngine()
    const failure = failureOf(
      await engine.run({ program: 'return 1', bindings: [], signal: AbortSignal.abort('caller gave up') }),
    )
    assert.deepEqual(failure, { kind: 'abort', message: 'caller gave up' })
    assert.equal(factory.spawnCalls, 0)
    await engine.dispose()
  })

  it('settles as `abort` with the reason when the signal fires during the run, and kills the substrate', async () => {
    const { engine, factory } = guestEngine()
    const controller = new AbortController()
    const result = await engine.run({
      program: 'await tools.hook()',
      bindings: [tools(() => controller.abort('user pressed stop'))],
      signal: controller.signal,
    })
    assert.deepEqual(failureOf(result), { kind: 'abort', message: 'user pressed stop' })
    assert.equal(factory.spawned[0]?.alive, false)
    await engine.dispose()
  })

  it('reuses a substrate in a fresh context when asked to', async () => {
    const factory = new InMemoryFactory(() => new GuestSubstrate())
    const engine = engineOn(factory, { reuseSubstrates: true })
    const first = await engine.run({ program: 'globalThis.leftover = 1\nreturn 1', bindings: [] })
    assert.equal(first.value, 1)
    await drain()
    const second = await engine.run({ program: 'return typeof globalThis.leftover', bindings: [] })
    assert.equal(second.value, 'undefined')
    assert.equal(factory.spawnCalls, 1)
    assert.equal(factory.spawned[0]?.recycles, 2, 'each clean end recycles')
    await engine.dispose()
    assert.equal(factory.spawned[0]?.alive, false)
  })
})

describe('RunEngine with a substrate that fails or lies', () => {
  it('settles as `worker-exit` when no substrate can be started', async () => {
    const factory = new InMemoryFactory<ScriptedSubstrate>(() => Promise.reject(new Error('spawn failed')))
    const engine = engineOn(factory)
    const failure = failureOf(await engine.run({ program: 'return 1', bindings: [] }))
    assert.equal(failure.kind, 'worker-exit')
    assert.match(failure.message, /could not be started/)
    await engine.dispose()
  })

  for (const [reason, expected] of [
    [{ kind: 'out-of-memory' }, /ran out of memory \(maxOldGenerationSizeMb: 64 MiB\)/],
    [{ kind: 'crashed', detail: 'SIGSEGV' }, /crashed before the program finished/],
    [{ kind: 'exited', code: 7 }, /exit code 7/],
    [
      { kind: 'over-budget', message: 'Stopped for using more than 8 MiB of array buffers.' },
      /^Stopped for using more than 8 MiB of array buffers\.$/,
    ],
  ] as const) {
    it(`settles a substrate that dies (${reason.kind}) as \`worker-exit\` with a message that says why`, async () => {
      const { engine } = scriptedEngine((message, substrate) => {
        if (message.kind === 'run-start') setImmediate(() => substrate.die(reason))
      })
      const failure = failureOf(await engine.run({ program: 'return 1', bindings: [] }))
      assert.equal(failure.kind, 'worker-exit')
      assert.match(failure.message, expected)
      await engine.dispose()
    })
  }

  const forgeries: readonly [string, unknown, RegExp][] = [
    ['a message of unknown kind', { kind: 'run-over' }, /a message of unknown kind/],
    ['a message that is not an object', 42, /not an object/],
    [
      'a call to an unknown member',
      { kind: 'call-request', id: 1, namespace: 0, member: 'constructor', argsJson: '{}' },
      /unknown member/,
    ],
    [
      'a call to an unknown namespace',
      { kind: 'call-request', id: 1, namespace: 3, member: 'echo', argsJson: '{}' },
      /unknown namespace/,
    ],
    [
      'call arguments that are not JSON',
      { kind: 'call-request', id: 1, namespace: 0, member: 'echo', argsJson: '{' },
      /not JSON/,
    ],
    ['a completion value that is not JSON', { kind: 'run-end', outcome: 'value', valueJson: '{' }, /not JSON/],
    [
      'a completion value that is not lossless JSON',
      { kind: 'run-end', outcome: 'value', valueJson: '1e400' },
      /not lossless JSON/,
    ],
  ]
  for (const [what, raw, expected] of forgeries) {
    it(`stops a substrate that sends ${what} as \`worker-exit\``, async () => {
      let calls = 0
      const bindings: CodeBindingNamespace[] = [{ global: 'tools', functions: { echo: async () => ++calls } }]
      const { engine, factory } = scriptedEngine((message, substrate) => {
        if (message.kind === 'run-start') setImmediate(() => substrate.emit(raw))
      })
      const failure = failureOf(await engine.run({ program: 'return 1', bindings }))
      assert.equal(failure.kind, 'worker-exit')
      assert.match(failure.message, /^The sandbox sent /)
      assert.match(failure.message, expected)
      assert.equal(calls, 0)
      assert.equal(factory.spawned[0]?.alive, false)
      await engine.dispose()
    })
  }

  it('never recycles a substrate whose completion value was forged, even in reuse mode', async () => {
    const factory = new InMemoryFactory(
      () =>
        new RecyclableSubstrate((message, substrate) => {
          if (message.kind === 'run-start')
            setImmediate(() => substrate.emit({ kind: 'run-end', outcome: 'value', valueJson: 'not json' }))
        }),
    )
    const engine = engineOn(factory, { reuseSubstrates: true })
    const failure = failureOf(await engine.run({ program: 'return 1', bindings: [] }))
    assert.equal(failure.kind, 'worker-exit')
    await drain()
    assert.equal(factory.spawned[0]?.recycles, 0)
    assert.equal(factory.spawned[0]?.alive, false)
    await engine.dispose()
  })

  it('settles once: messages after the end are ignored and no host function starts', async () => {
    const logged: string[] = []
    let calls = 0
    const bindings: CodeBindingNamespace[] = [{ global: 'tools', functions: { echo: async () => ++calls } }]
    const { engine, factory } = scriptedEngine((message, substrate) => {
      if (message.kind !== 'run-start') return
      setImmediate(() => {
        substrate.emit('before the end')
        substrate.emit({ kind: 'run-end', outcome: 'value', valueJson: '"first"' })
        substrate.emit('after the end')
        substrate.emit({ kind: 'call-request', id: 1, namespace: 0, member: 'echo', argsJson: '{}' })
        substrate.emit({ kind: 'run-end', outcome: 'exception', message: 'second ending' })
        substrate.emit({ kind: 'nonsense' })
        substrate.die({ kind: 'crashed', detail: 'late' })
      })
    })
    const result = await engine.run({ program: 'return 1', bindings, onLog: text => logged.push(text) })
    assert.equal(result.error, undefined)
    assert.equal(result.value, 'first')
    assert.deepEqual(result.logs, ['before the end'])
    await drain()
    assert.deepEqual(logged, ['before the end'])
    assert.equal(calls, 0)
    assert.equal(factory.spawned[0]?.terminations, 1)
    await engine.dispose()
  })

  it('answers only after the host function settled, and drops its late answer after a timeout', async () => {
    const answer = deferred<string>()
    const { engine, factory } = scriptedEngine(
      (message, substrate) => {
        if (message.kind === 'run-start')
          setImmediate(() =>
            substrate.emit({ kind: 'call-request', id: 1, namespace: 0, member: 'slow', argsJson: '{}' }),
          )
      },
      { budgets: { computeMs: 2_000, maxWallMs: 50 } },
    )
    const result = await engine.run({
      program: 'return 1',
      bindings: [{ global: 'tools', functions: { slow: () => answer.promise } }],
    })
    assert.equal(failureOf(result).kind, 'timeout')
    answer.resolve('too late')
    await drain()
    const sent = factory.spawned[0]?.sent.map(message => message.kind)
    assert.deepEqual(sent, ['run-start'], 'no call-result after the run settled')
    assert.deepEqual(
      result.calls.map(call => call.outcome),
      ['in-flight'],
    )
    await engine.dispose()
  })
})

describe('RunEngine disposal', () => {
  it('settles an in-flight run as `abort`, resolves after every substrate exited, then refuses runs', async () => {
    const { engine, factory } = guestEngine({ spawnAhead: 2 })
    const started = deferred<undefined>()
    const running = engine.run({ program: 'await tools.hook()', bindings: [tools(() => started.resolve(undefined))] })
    await started.promise
    const disposal = engine.dispose()
    assert.equal(engine.dispose(), disposal, 'disposal happens once')
    const failure = failureOf(await running)
    assert.equal(failure.kind, 'abort')
    assert.match(failure.message, /disposed/)
    await disposal
    assert.ok(factory.spawned.length >= 1)
    for (const substrate of factory.spawned) assert.equal(substrate.alive, false)
    await assert.rejects(
      engine.run({ program: 'return 1', bindings: [] }),
      (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_DISPOSED',
    )
  })

  it('settles a run still waiting for its substrate as `abort`, and kills the substrate that arrives late', async () => {
    const spawn = deferred<ScriptedSubstrate>()
    const factory = new InMemoryFactory(() => spawn.promise)
    const engine = engineOn(factory)
    const running = engine.run({ program: 'return 1', bindings: [] })
    await drain()
    const disposal = engine.dispose()
    assert.equal(failureOf(await running).kind, 'abort')
    const late = new ScriptedSubstrate(answerRunStart('1'))
    spawn.resolve(late)
    await disposal
    assert.equal(late.alive, false)
    assert.deepEqual(late.sent, [], 'the late substrate never got the program')
  })

  it('settles a run as `abort` whenever disposal lands between its substrate arriving and its start', async () => {
    // Disposal is tried at every microtask after the spawn resolves: one of them falls between
    // the hand-out of the substrate and the start of its session.
    for (let microtasks = 0; microtasks < 40; microtasks++) {
      const spawn = deferred<ScriptedSubstrate>()
      const engine = engineOn(new InMemoryFactory(() => spawn.promise), {
        budgets: { computeMs: 60_000, maxWallMs: 60_000 },
      })
      const running = engine.run({ program: 'return 1', bindings: [] })
      await drain()
      const substrate = new ScriptedSubstrate()
      spawn.resolve(substrate)
      for (let turn = 0; turn < microtasks; turn++) await Promise.resolve()
      const disposal = engine.dispose()
      const settled = await Promise.race([
        running,
        new Promise<'hung'>(resolve => setTimeout(() => resolve('hung'), 500)),
      ])
      if (settled === 'hung') assert.fail(`disposal ${microtasks} microtasks after the spawn left the run hanging`)
      assert.equal(failureOf(settled).kind, 'abort')
      await disposal
      assert.equal(substrate.alive, false)
    }
  })

  it('settles a run waiting for its substrate as `abort` when its signal fires', async () => {
    const spawn = deferred<ScriptedSubstrate>()
    const engine = engineOn(new InMemoryFactory(() => spawn.promise))
    const controller = new AbortController()
    const running = engine.run({ program: 'return 1', bindings: [], signal: controller.signal })
    await drain()
    controller.abort('not any more')
    assert.deepEqual(failureOf(await running), { kind: 'abort', message: 'not any more' })
    const late = new ScriptedSubstrate()
    spawn.resolve(late)
    await drain()
    assert.equal(late.alive, false)
    await engine.dispose()
  })
})
