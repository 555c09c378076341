// Reuse mode: a worker is recycled for a later run only when nothing of the
// run before can still execute. Each test arms one kind of work that outlives its run, then
// keeps the runtime busy with innocent programs past the moment that work would wake up; with
// one worker spawned at a time the recycled worker serves them, so leaked work would land in
// one of them (as a timeout) or leave a worker spinning forever.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Worker } from 'node:worker_threads'
import type { CodeRuntime } from '@code-runtime/core'
import { outcomeOf, startWorkerRuntime } from './start.js'

/** When the armed work wakes up, relative to the end of the arming run. */
const WAKE_AFTER_MS = 200

/** The leaked work, once awake: a loop that never ends, so any run it lands in times out. */
const SPIN = 'for (;;) {}'

const INNOCENT =
  'const junk = []\nfor (let i = 0; i < 300_000; i++) junk.push({ i, text: "y" + i })\nawait new Promise((resolve) => setTimeout(resolve, 10))\nreturn "innocent"'

/**
 * Runs innocent programs one after another until well past the wake-up time (3× it, and at least
 * 10 runs), asserting each one. Each allocates some garbage (~20 MB) so that collections, and
 * with them finalization callbacks, happen while they run.
 */
async function assertInnocentRunsUnaffected(runtime: CodeRuntime): Promise<void> {
  const started = performance.now()
  for (let index = 0; index < 10 || performance.now() - started < 3 * WAKE_AFTER_MS; index++) {
    const result = await runtime.run({ program: INNOCENT, bindings: [] })
    assert.deepEqual(outcomeOf(result), { logs: [], value: 'innocent' }, `innocent run ${index}`)
  }
}

/** Collects the workers spawned in this process from now on. */
function watchWorkers(): { readonly workers: Worker[]; stop(): void } {
  const workers: Worker[] = []
  const listener = (worker: Worker): void => {
    workers.push(worker)
  }
  process.on('worker', listener)
  return { workers, stop: () => process.off('worker', listener) }
}

/**
 * Runs `program` (which arms work that outlives it and returns "armed") in a reuse-mode runtime
 * that spawns on demand only, so the few workers it has serve every later run; then asserts that
 * innocent runs are unaffected and that the arming run's worker was replaced, not left running
 * its leftover work until the runtime is disposed.
 */
async function assertArmedWorkCannotLeak(program: string): Promise<void> {
  // computeMs is far above what an innocent run needs and far below the test's own timeout.
  const { runtime, dispose } = await startWorkerRuntime({ reuseWorkers: true, spawnAhead: 0, computeMs: 5_000 })
  const spawned = watchWorkers()
  try {
    const armed = await runtime.run({ program, bindings: [] })
    assert.deepEqual(outcomeOf(armed), { logs: [], value: 'armed' })
    const [armedWorker] = spawned.workers
    assert.ok(armedWorker !== undefined, 'the arming run spawned a worker')
    const exited = new Promise(resolve => armedWorker.once('exit', resolve))
    await assertInnocentRunsUnaffected(runtime)
    await exited
  } finally {
    spawned.stop()
    await dispose()
  }
}

// Each test fails on a timeout when the leftover work keeps the arming worker alive.
describe('worker-thread reuse mode: nothing of a run executes after it', () => {
  it('does not recycle a worker with a pending Atomics.waitAsync', { timeout: 30_000 }, async () => {
    await assertArmedWorkCannotLeak(`const cell = new Int32Array(new SharedArrayBuffer(4))
Atomics.waitAsync(cell, 0, 0, ${WAKE_AFTER_MS}).value.then(() => { ${SPIN} })
return "armed"`)
  })

  it(
    'does not recycle a worker whose program armed Atomics.waitAsync after it returned',
    { timeout: 30_000 },
    async () => {
      await assertArmedWorkCannotLeak(`const cell = new Int32Array(new SharedArrayBuffer(4))
;(async () => {
  for (let i = 0; i < 10; i++) await null
  Atomics.waitAsync(cell, 0, 0, ${WAKE_AFTER_MS}).value.then(() => { ${SPIN} })
})()
return "armed"`)
    },
  )

  it(
    'does not recycle a worker with a FinalizationRegistry that can still call back',
    { timeout: 30_000 },
    async () => {
      // The targets are garbage at once and the run's own allocations collect them: the callback
      // is due from then on, whichever program the worker runs by the time it is called.
      await assertArmedWorkCannotLeak(`const registry = new FinalizationRegistry(() => { ${SPIN} })
for (let i = 0; i < 1000; i++) registry.register({ i }, i)
globalThis.keep = registry
const junk = []
for (let i = 0; i < 300_000; i++) junk.push({ i, text: "x" + i })
return "armed"`)
    },
  )

  it('replaces a worker whose program left a promise chain running forever', { timeout: 30_000 }, async () => {
    await assertArmedWorkCannotLeak('(async () => { for (;;) await null })()\nreturn "armed"')
  })
})
