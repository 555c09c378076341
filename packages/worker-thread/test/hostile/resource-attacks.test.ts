// Attacks on the host's time, memory and stability. Each ends in its documented outcome and
// the runtime keeps working.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { echoTools, outcomeOf, startWorkerRuntime } from '../start.js'

describe('hostile program: floods, bombs and fatal allocations', () => {
  // Small budgets end the bombs quickly. Every other attack runs under the default budgets: a
  // worker's busy time is wall time while it works, and work far below 500 ms on a quiet machine
  // (10 000 calls, a flood to the cap) ran into a 500 ms computeMs when other processes shared
  // the cores, ending in a timeout instead of its own outcome.
  let bombs: Awaited<ReturnType<typeof startWorkerRuntime>>
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    bombs = await startWorkerRuntime({ computeMs: 500, maxWallMs: 5_000 })
    started = await startWorkerRuntime({ maxOutputBytes: 1_000_000 })
  })
  after(() => Promise.all([bombs.dispose(), started.dispose()]))
  const healthy = async (runtime = started.runtime): Promise<void> => {
    assert.deepEqual(
      outcomeOf(await runtime.run({ program: 'return await tools.echo("alive")', bindings: [echoTools] })),
      { logs: [], value: 'alive' },
    )
  }

  it('stops a microtask bomb at computeMs', async () => {
    const result = await bombs.runtime.run({
      program: 'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})',
      bindings: [],
    })
    assert.equal(result.error?.kind, 'timeout')
    await healthy(bombs.runtime)
  })

  it('stops a timer bomb', async () => {
    const result = await bombs.runtime.run({
      program:
        'const bomb = () => { for (let i = 0; i < 50; i++) setTimeout(bomb, 0) }; bomb(); await new Promise(() => {})',
      bindings: [],
    })
    assert.equal(result.error?.kind, 'timeout')
    await healthy(bombs.runtime)
  })

  it('answers 10 000 concurrent binding calls', async () => {
    const result = await started.runtime.run({
      program:
        'const all = await Promise.all(Array.from({ length: 10_000 }, (_, i) => tools.echo(i)))\nreturn all.reduce((a, b) => a + b, 0)',
      bindings: [echoTools],
    })
    assert.deepEqual(outcomeOf(result), { logs: [], value: (9_999 * 10_000) / 2 })
  })

  it('survives throwing an object whose toString and getters throw', async () => {
    const result = await started.runtime.run({
      program:
        'throw { toString() { throw new Error("no") }, get name() { throw new Error("no") }, get message() { throw new Error("no") } }',
      bindings: [],
    })
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /^Uncaught /)
    await healthy()
  })

  it('refuses new Array(1e9).fill(0), which would abort the whole process', async () => {
    const result = await started.runtime.run({ program: 'new Array(1e9).fill(0)', bindings: [] })
    assert.equal(result.error?.kind, 'exception')
    assert.match(
      result.error?.message ?? '',
      /^RangeError: Array\.prototype\.fill over 1000000000 elements refused: this sandbox allows at most 16777216 in one built-in call\./,
    )
    await healthy()
  })

  it('ends a log flood at the output cap', async () => {
    const result = await started.runtime.run({ program: "while (true) console.log('x'.repeat(1000))", bindings: [] })
    assert.equal(result.error?.kind, 'output-limit')
    await healthy()
  })

  it('turns deep recursion into an ordinary exception', async () => {
    const result = await started.runtime.run({ program: 'const f = (n) => f(n + 1) + 1; f(0)', bindings: [] })
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /^RangeError: Maximum call stack size exceeded/)
    await healthy()
  })
})

describe('hostile program: V8 aborts through the global object', () => {
  // Redefining a global while Object.prototype carries a throwing `get` accessor aborted the
  // whole process (FATAL ERROR: v8::NamedPropertyDescriptorCallback) with interceptor globals.
  it('survives redefining a global under a poisoned descriptor prototype', async () => {
    const { runtime, dispose } = await startWorkerRuntime()
    try {
      const result = await runtime.run({
        program: [
          'globalThis.z = 1',
          "Object.defineProperty(Object.prototype, 'get', { get() { throw 1 }, configurable: true })",
          "try { Object.defineProperty(globalThis, 'z', { __proto__: null, value: 2 }) } catch {}",
          'delete Object.prototype.get',
          'return globalThis.z',
        ].join('\n'),
        bindings: [],
      })
      assert.equal(result.error, undefined)
      assert.equal(outcomeOf(await runtime.run({ program: 'return "host alive"', bindings: [] })).value, 'host alive')
    } finally {
      await dispose()
    }
  })
})
