// Attacks on the host's time, memory and stability. Each ends in its documented outcome and
// the runtime keeps working.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { echoTools, startWorkerRuntime } from '../start.js'

describe('hostile program: floods, bombs and fatal allocations', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime({ computeMs: 500, maxWallMs: 5_000, maxOutputBytes: 1_000_000 })
  })
  after(() => started.dispose())
  const healthy = async (): Promise<void> => {
    assert.deepEqual(await started.runtime.run({ program: 'return await tools.echo("alive")', bindings: [echoTools] }), { logs: [], value: 'alive' })
  }

  it('stops a microtask bomb at computeMs', async () => {
    const result = await started.runtime.run({ program: 'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})', bindings: [] })
    assert.equal(result.error?.kind, 'timeout')
    await healthy()
  })

  it('stops a timer bomb', async () => {
    const result = await started.runtime.run({
      program: 'const bomb = () => { for (let i = 0; i < 50; i++) setTimeout(bomb, 0) }; bomb(); await new Promise(() => {})',
      bindings: [],
    })
    assert.equal(result.error?.kind, 'timeout')
    await healthy()
  })

  it('answers 10 000 concurrent binding calls', async () => {
    const result = await started.runtime.run({
      program: 'const all = await Promise.all(Array.from({ length: 10_000 }, (_, i) => tools.echo(i)))\nreturn all.reduce((a, b) => a + b, 0)',
      bindings: [echoTools],
    })
    assert.deepEqual(result, { logs: [], value: (9_999 * 10_000) / 2 })
  })

  it('survives throwing an object whose toString and getters throw', async () => {
    const result = await started.runtime.run({
      program: 'throw { toString() { throw new Error("no") }, get name() { throw new Error("no") }, get message() { throw new Error("no") } }',
      bindings: [],
    })
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /^Uncaught /)
    await healthy()
  })

  it('refuses new Array(1e9).fill(0), which would abort the whole process', async () => {
    const result = await started.runtime.run({ program: 'new Array(1e9).fill(0)', bindings: [] })
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /^RangeError: Array fill of 1000000000 elements refused/)
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
