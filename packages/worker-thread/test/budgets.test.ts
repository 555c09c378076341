import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeBindingNamespace } from '@code-runtime/core'
import { countWorkerSpawns, echoTools, measureSmallBudgetMs, outcomeOf, startWorkerRuntime } from './start.js'

describe('worker-thread budgets', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime({ computeMs: 400, maxWallMs: 3_000 })
  })
  after(() => started.dispose())

  it('catches a hot loop while a decoy binding call is pending', async () => {
    const decoy: CodeBindingNamespace = { global: 'slow', functions: { wait: () => new Promise(() => {}) } }
    const result = await started.runtime.run({
      program: 'const pending = slow.wait({}); while (true) {}',
      bindings: [decoy],
    })
    assert.equal(result.error?.kind, 'timeout')
    assert.match(result.error?.message ?? '', /400 ms of compute \(computeMs\)/)
  })

  it('does not charge time spent awaiting a slow binding to computeMs', async () => {
    const slow: CodeBindingNamespace = {
      global: 'slow',
      functions: { wait: () => new Promise(resolve => setTimeout(() => resolve('done'), 900)) },
    }
    const result = await started.runtime.run({ program: 'return await slow.wait({})', bindings: [slow] })
    assert.deepEqual(outcomeOf(result), { logs: [], value: 'done' })
  })

  it('stops a program awaiting forever at maxWallMs', async () => {
    // The log line must reach the host before the budget ends, however loaded the machine is.
    const maxWallMs = await measureSmallBudgetMs(started.runtime, 300)
    const { runtime, dispose } = await startWorkerRuntime({ maxWallMs })
    try {
      const result = await runtime.run({ program: 'console.log("waiting"); await new Promise(() => {})', bindings: [] })
      assert.equal(result.error?.kind, 'timeout')
      assert.match(result.error?.message ?? '', new RegExp(`${maxWallMs} ms of wall time \\(maxWallMs\\)`))
      assert.deepEqual(result.logs, ['waiting'])
    } finally {
      await dispose()
    }
  })

  it('aborts a hot loop with the signal reason as the message', async () => {
    const controller = new AbortController()
    // The program says when it is about to loop; a timer started with run() could fire while the
    // run still waits for a worker on a loaded machine, and no loop would be aborted at all.
    const ready: CodeBindingNamespace = {
      global: 'tools',
      functions: {
        looping: async () => {
          setImmediate(() => controller.abort('user pressed stop'))
          return null
        },
      },
    }
    const result = await started.runtime.run({
      program: 'await tools.looping({}); while (true) {}',
      bindings: [ready],
      signal: controller.signal,
    })
    assert.deepEqual(result.error, { kind: 'abort', message: 'user pressed stop' })
  })

  it('settles an already-aborted run without starting a worker', async () => {
    const { runtime, dispose } = await startWorkerRuntime({ spawnAhead: 0 })
    const spawns = countWorkerSpawns()
    try {
      const controller = new AbortController()
      controller.abort(new Error('too late'))
      const result = await runtime.run({ program: 'return 1', bindings: [echoTools], signal: controller.signal })
      assert.deepEqual(outcomeOf(result), { logs: [], error: { kind: 'abort', message: 'Error: too late' } })
      assert.equal(spawns.count, 0)
    } finally {
      spawns.stop()
      await dispose()
    }
  })

  it('reports heap exhaustion as worker-exit and runs the next program on the same runtime', async () => {
    const { runtime, dispose } = await startWorkerRuntime({ maxOldGenerationSizeMb: 32 })
    try {
      const result = await runtime.run({
        program:
          'const hoard = []; while (true) hoard.push({ index: hoard.length, text: "x".repeat(64) + hoard.length })',
        bindings: [],
      })
      assert.equal(result.error?.kind, 'worker-exit')
      assert.match(result.error?.message ?? '', /memory \(maxOldGenerationSizeMb: 32 MiB\)/)
      assert.deepEqual(outcomeOf(await runtime.run({ program: 'return 6 * 7', bindings: [] })), { logs: [], value: 42 })
    } finally {
      await dispose()
    }
  })
})

describe('worker-thread reuse mode (opt-in)', () => {
  it('serves many runs from few workers, each in a fresh context, and replaces a worker after a timeout', async () => {
    const { runtime, dispose } = await startWorkerRuntime({ reuseWorkers: true, computeMs: 200 })
    const spawns = countWorkerSpawns()
    try {
      for (let index = 0; index < 20; index++) {
        const result = await runtime.run({
          program: `const seen = typeof leftover; globalThis.leftover = ${index}; return seen`,
          bindings: [],
        })
        assert.equal(outcomeOf(result).value, 'undefined', `run ${index} saw no global of the run before`)
      }
      // Without reuse 20 runs spawn at least 20 workers; other runtimes of this file may add a few.
      assert.ok(spawns.count < 10, `20 clean runs spawned ${spawns.count} workers`)
      const spun = await runtime.run({ program: 'while (true) {}', bindings: [] })
      assert.equal(spun.error?.kind, 'timeout')
      assert.equal(outcomeOf(await runtime.run({ program: 'return "after"', bindings: [] })).value, 'after')
    } finally {
      spawns.stop()
      await dispose()
    }
  })
})
