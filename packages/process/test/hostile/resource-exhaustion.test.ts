// Attacks on memory and CPU, as plain programs (inside the JavaScript sandbox) and through the
// test-only escaped entry (the child's main realm, no sandbox guards), on both backends. Each
// ends in its documented outcome, the host survives, and the runtime serves the next program.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import { NODE_BASELINE_MEMORY_MB } from '@code-runtime/process'
import {
  startContainerRuntime,
  startHookedRuntime,
  startProcessRuntime,
  type BackendName,
  type HookedRuntime,
} from '../start.js'

const BACKENDS: readonly BackendName[] = ['process', 'container']

/** Small limits, so each attack ends fast. maxMemoryMb is the smallest the running Node plus this heap accepts. */
const SMALL = {
  computeMs: 1_000,
  maxWallMs: 20_000,
  maxOldGenerationSizeMb: 64,
  maxMemoryMb: 64 + NODE_BASELINE_MEMORY_MB,
}

interface Runner {
  run(request: CodeRunRequest): Promise<CodeRunResult>
  dispose(): Promise<void>
}

async function startPlain(backend: BackendName, config: typeof SMALL): Promise<Runner> {
  const started = backend === 'process' ? await startProcessRuntime(config) : await startContainerRuntime(config)
  return { run: request => started.runtime.run(request), dispose: started.dispose }
}

async function assertHealthy(runner: Runner): Promise<void> {
  assert.equal((await runner.run({ program: 'return 6 * 7', bindings: [] })).value, 42)
}

// 16 KiB strings fill the 64 MB heap in ~4 000 steps, but V8's last collections before it gives up
// cost CPU too: on a loaded machine they passed one second (seen: 'timeout' at 1.3 s). So the heap
// attack runs under HEAP_CONFIG, whose compute budget is far above what filling the heap costs, and
// the heap cap, not the compute budget, is what ends it.
const HEAP_BOMB = "const kept = []\nwhile (true) kept.push({ text: 'x'.repeat(16 * 1024) + kept.length })"
const HEAP_CONFIG = { ...SMALL, computeMs: 20_000, maxWallMs: 60_000 }
const ARRAY_BUFFER_BOMB = `const kept = []
try { while (true) kept.push(new Uint8Array(64 * 1024 * 1024).fill(1)) }
catch (error) { return { keptMb: kept.length * 64, message: error.message } }`
const MAP_GROWTH = 'const map = new Map()\nfor (let i = 0; ; i++) map.set(i, i)'

for (const backend of BACKENDS) {
  describe(`hostile program on the ${backend} backend: memory and CPU`, () => {
    let plain: Runner
    let escaped: HookedRuntime
    let heapPlain: Runner
    let heapEscaped: HookedRuntime
    before(async () => {
      const startEscaped = (config: typeof SMALL) =>
        startHookedRuntime(backend, 'escaped-child-entry', { config, withoutPermissionModel: true })
      ;[plain, escaped, heapPlain, heapEscaped] = await Promise.all([
        startPlain(backend, SMALL),
        startEscaped(SMALL),
        startPlain(backend, HEAP_CONFIG),
        startEscaped(HEAP_CONFIG),
      ])
    })
    after(async () => {
      await Promise.all([plain, escaped, heapPlain, heapEscaped].map(runner => runner?.dispose()))
    })

    for (const [label, runner, heapRunner] of [
      ['as a plain program', () => plain, () => heapPlain],
      ['after an escape', () => escaped, () => heapEscaped],
    ] as const) {
      describe(label, () => {
        // Heap exhaustion: V8 stops the child at maxOldGenerationSizeMb; the host reads its crash report.
        it('fills the heap: worker-exit naming maxOldGenerationSizeMb', async () => {
          const result = await heapRunner().run({ program: HEAP_BOMB, bindings: [] })
          assert.equal(result.error?.kind, 'worker-exit', result.error?.message)
          assert.match(result.error?.message ?? '', /maxOldGenerationSizeMb: 64 MiB/)
          await assertHealthy(heapRunner())
        })

        // Memory outside the heap: RLIMIT_AS (maxMemoryMb) makes the allocation fail inside the child.
        it('allocates ArrayBuffers until the address-space limit refuses one', async () => {
          const result = await runner().run({ program: ARRAY_BUFFER_BOMB, bindings: [] })
          assert.equal(result.error, undefined, result.error?.message)
          const value = result.value as { keptMb: number; message: string }
          assert.match(value.message, /Array buffer allocation failed/)
          assert.ok(value.keptMb < SMALL.maxMemoryMb, `kept ${value.keptMb} MiB`)
          await assertHealthy(runner())
        })

        // CPU: a hot loop is stopped at computeMs of CPU time measured from /proc, never reported by the child.
        it('spins past computeMs: timeout naming computeMs', async () => {
          const result = await runner().run({ program: 'while (true) {}', bindings: [] })
          assert.deepEqual(result.error, {
            kind: 'timeout',
            message: 'Stopped after 1000 ms of compute (computeMs). Do less work per run, or split it across runs.',
            budget: { name: 'computeMs', limit: 1000 },
          })
          await assertHealthy(runner())
        })
      })
    }

    // CPU spent by a grandchild counts too: the budget is the CPU time of the child's whole tree.
    it('after an escape, burns CPU in a grandchild while the child idles: timeout naming computeMs', async () => {
      const result = await escaped.run({
        program:
          "require('node:child_process').spawn(process.execPath, ['-e', 'while (true) {}'], { stdio: 'ignore' })\nawait new Promise(() => {})",
        bindings: [],
      })
      assert.equal(result.error?.kind, 'timeout')
      assert.match(result.error?.message ?? '', /computeMs/)
      await assertHealthy(escaped)
    })
  })
}

// V8's maximum Map size. In a worker thread growing past it aborts the whole process; in a child
// process's main thread it is a RangeError, and inside the sandbox a guard refuses it earlier.
// About 16 million insertions each, so the four runs share one test and run at once.
describe("hostile program: a Map grown past V8's maximum size", () => {
  const BIG = { computeMs: 60_000, maxWallMs: 120_000, maxOldGenerationSizeMb: 1024, maxMemoryMb: 3072 }
  const runners: Runner[] = []
  after(() => Promise.all(runners.map(runner => runner.dispose())))

  it('ends as an exception in the program, plain and escaped, on both backends; the host survives', async () => {
    for (const backend of BACKENDS) {
      runners.push(await startPlain(backend, BIG))
      runners.push(
        await startHookedRuntime(backend, 'escaped-child-entry', { config: BIG, withoutPermissionModel: true }),
      )
    }
    const results = await Promise.all(runners.map(runner => runner.run({ program: MAP_GROWTH, bindings: [] })))
    const [processPlain, processEscaped, containerPlain, containerEscaped] = results
    for (const plainResult of [processPlain, containerPlain]) {
      assert.equal(plainResult?.error?.kind, 'exception')
      assert.match(
        plainResult?.error?.message ?? '',
        /^RangeError: Map maximum size exceeded \(16000000 entries in this sandbox\)/,
      )
    }
    for (const escapedResult of [processEscaped, containerEscaped]) {
      assert.deepEqual(escapedResult?.error, { kind: 'exception', message: 'Error: Map maximum size exceeded' })
    }
    for (const runner of runners) await assertHealthy(runner)
  })
})
