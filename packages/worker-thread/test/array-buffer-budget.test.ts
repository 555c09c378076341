// The array-buffer budget: memory outside the V8 heap is bounded per worker,
// even while the program allocates in a synchronous loop, and the runtime stays usable.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from '@code-runtime/core'
import { resolveWorkerThreadConfig } from '@code-runtime/worker-thread'
import { outcomeOf, startWorkerRuntime } from './start.js'

const MIB = 1024 * 1024
const CAP_MB = 128

const BUDGET_MESSAGE = `The program held more than ${CAP_MB} MiB of ArrayBuffer and typed-array memory (maxArrayBufferMb) and was stopped. Hold fewer or smaller buffers at once.`

/** Runs `work` while sampling this process's resident memory; resolves its result and the peak growth. */
async function measureRssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  const baseline = process.memoryUsage.rss()
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 2)
  try {
    const result = await work()
    peak = Math.max(peak, process.memoryUsage.rss())
    return { result, growthBytes: peak - baseline }
  } finally {
    clearInterval(sampler)
  }
}

describe('worker-thread array-buffer budget (maxArrayBufferMb)', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime({ maxArrayBufferMb: CAP_MB, computeMs: 60_000 })
  })
  after(() => started.dispose())
  const healthy = async (): Promise<void> => {
    assert.deepEqual(
      outcomeOf(await started.runtime.run({ program: 'return new Uint8Array(4).length', bindings: [] })),
      { logs: [], value: 4 },
    )
  }

  it('stops a program holding 1 GiB in 16 MiB chunks near the cap, and the host does not grow by 1 GiB', async () => {
    // Each chunk is written to, so its pages are really resident.
    const program =
      'const held = []\nfor (let i = 0; i < 64; i++) { const chunk = new Uint8Array(16 * 1024 * 1024); chunk.fill(1); held.push(chunk) }\nreturn held.length'
    const { result, growthBytes } = await measureRssGrowth(() => started.runtime.run({ program, bindings: [] }))
    assert.deepEqual(result.error, { kind: 'worker-exit', message: BUDGET_MESSAGE })
    // The worker stops at the cap (128 MiB) plus at most one chunk; the rest of the margin is
    // the worker's own start-up and allocator slack, far below the 1 GiB the program asked for.
    assert.ok(growthBytes < 400 * MIB, `the host grew by ${Math.round(growthBytes / MIB)} MiB`)
    await healthy()
  })

  it('stops the same loop through paths that are not plain constructor calls', async () => {
    const programs = [
      'const held = []; const source = new Uint8Array(16 * 1024 * 1024); for (;;) held.push(source.slice())',
      'const held = []; const source = new Uint8Array(16 * 1024 * 1024); for (;;) held.push(source.toReversed())',
      'const held = []; for (;;) held.push(new TextEncoder().encode("x".repeat(16 * 1024 * 1024)))',
      'const held = []; for (;;) held.push(structuredClone(new ArrayBuffer(16 * 1024 * 1024)))',
      'const held = []; class Chunk extends Float64Array {}; for (;;) held.push(new Chunk(2 * 1024 * 1024))',
      'const buffer = new ArrayBuffer(0, { maxByteLength: 1024 * 1024 * 1024 }); for (let size = 16; ; size += 16) buffer.resize(size * 1024 * 1024)',
    ]
    for (const program of programs) {
      const result = await started.runtime.run({ program, bindings: [] })
      assert.deepEqual(result.error, { kind: 'worker-exit', message: BUDGET_MESSAGE }, program)
    }
    await healthy()
  })

  it('refuses a single allocation over the cap before it happens, even inside try/catch', async () => {
    const result = await started.runtime.run({
      program: 'try { new ArrayBuffer(1024 * 1024 * 1024) } catch { return "caught" }',
      bindings: [],
    })
    assert.deepEqual(result.error, { kind: 'worker-exit', message: BUDGET_MESSAGE })
    await healthy()
  })

  // test262's ArrayBuffer/allocation-limit, length-is-too-large-throws and
  // data-allocation-after-object-creation: the language says these throw, and V8 throws them.
  it('leaves V8 its own catchable RangeError for sizes no host can map, in the order the language gives', async () => {
    const program = [
      'const outcomes = []',
      'for (const size of [7 * 2 ** 50, 2 ** 53 - 1, 2 ** 53, Infinity]) {',
      '  try { new ArrayBuffer(size); outcomes.push("made") } catch (error) { outcomes.push(error instanceof RangeError) }',
      '}',
      'try { new Float64Array(2 ** 45) } catch (error) { outcomes.push(error instanceof RangeError) }',
      'class Refused extends Error {}',
      'const newTarget = function () {}.bind(null)',
      'Object.defineProperty(newTarget, "prototype", { get() { throw new Refused() } })',
      'try { Reflect.construct(ArrayBuffer, [7 * 2 ** 50], newTarget) } catch (error) { outcomes.push(error instanceof Refused) }',
      'return outcomes',
    ].join('\n')
    const result = await started.runtime.run({ program, bindings: [] })
    assert.deepEqual(outcomeOf(result), { logs: [], value: [true, true, true, true, true, true] })
    await healthy()
  })

  it('leaves programs under the budget alone: holding less than the cap, and churning 1 GiB of garbage', async () => {
    const holding = await started.runtime.run({
      program:
        'const held = []\nfor (let i = 0; i < 4; i++) { const chunk = new Uint8Array(16 * 1024 * 1024); chunk.fill(i); held.push(chunk) }\nreturn held.reduce((sum, chunk) => sum + chunk[7], 0)',
      bindings: [],
    })
    assert.deepEqual(outcomeOf(holding), { logs: [], value: 6 })
    const churning = await started.runtime.run({
      program:
        'let total = 0\nfor (let i = 0; i < 64; i++) { const chunk = new Uint8Array(16 * 1024 * 1024); chunk[0] = 1; total += chunk.length }\nreturn total',
      bindings: [],
    })
    assert.deepEqual(outcomeOf(churning), { logs: [], value: 1024 * MIB })
    const small = await started.runtime.run({
      program:
        'const all = []\nfor (let i = 0; i < 10_000; i++) all.push(new Uint8Array(16))\nreturn [all.length, new Uint8Array(2) instanceof Uint8Array, Uint8Array.from([1, 2]).constructor === Uint8Array, Uint8Array.name]',
      bindings: [],
    })
    assert.deepEqual(outcomeOf(small), { logs: [], value: [10_000, true, true, 'Uint8Array'] })
  })

  it('validates maxArrayBufferMb like every other budget', () => {
    assert.equal(resolveWorkerThreadConfig({}).maxArrayBufferMb, 256)
    assert.equal(resolveWorkerThreadConfig({ maxArrayBufferMb: 64 }).maxArrayBufferMb, 64)
    for (const value of [0, 8, -1, Number.NaN, '64']) {
      assert.throws(
        () => resolveWorkerThreadConfig({ maxArrayBufferMb: value }),
        (error: unknown) => {
          return (
            error instanceof CodeRuntimeError &&
            error.code === 'CODE_RUNTIME_INVALID_CONFIG' &&
            /maxArrayBufferMb/.test(error.message)
          )
        },
        String(value),
      )
    }
  })
})
