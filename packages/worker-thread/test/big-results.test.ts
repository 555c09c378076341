// A large binding result streams to the worker in parts (parsed there while the host checks the
// rest): the program must still get it whole or not at all, whatever fails on the way.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeBindingNamespace, CodeJsonValue, StartedCodeRuntime } from '@code-runtime/core'
import type { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { startWorkerRuntime } from './start.js'

/** About 60 bytes a row: 40 000 rows make ~2.4 MB of JSON, about ten parts. */
const COUNT = 40_000
function rows(count: number): CodeJsonValue[] {
  return Array.from({ length: count }, (_, id) => ({
    id,
    name: `row ${id}`,
    tags: ['a', id % 2 === 0],
    nested: { shelf: id % 7 },
  }))
}
const big = rows(COUNT)

/** `rows` with element `index` replaced by what `spoil` makes of it: a value refused late in the walk. */
function spoiledAt(index: number, spoil: (row: Record<string, unknown>) => unknown): unknown[] {
  const copy: unknown[] = rows(COUNT)
  copy[index] = spoil(copy[index] as Record<string, unknown>)
  return copy
}

const SUMMARY =
  'return { length: rows.length, isArray: Array.isArray(rows), plain: Object.getPrototypeOf(rows) === Array.prototype, ids: rows.reduce((sum, row) => sum + row.id, 0), last: rows[rows.length - 1] }'
const EXPECTED = { length: COUNT, isArray: true, plain: true, ids: (COUNT * (COUNT - 1)) / 2, last: big[COUNT - 1] }

function bigTools(extra: Record<string, () => Promise<unknown>> = {}): CodeBindingNamespace {
  return { global: 'tools', functions: { big: async () => big, small: async () => [1, 2, 3], ...extra } }
}

describe('worker-thread: a large binding result in parts', () => {
  let started: StartedCodeRuntime<WorkerThreadCodeRuntime>
  before(async () => {
    started = await startWorkerRuntime({})
  })
  after(() => started.dispose())

  it('delivers a value of many parts whole, as one plain array of the program', async () => {
    const result = await started.runtime.run({
      program: `const rows = await tools.big({})\n${SUMMARY}`,
      bindings: [bigTools()],
    })
    assert.deepEqual(result.value, EXPECTED)
  })

  // Each refusal comes after several parts were sent: they must be dropped, the call rejected.
  const late: [string, () => unknown[], RegExp][] = [
    [
      'a throwing getter',
      () =>
        spoiledAt(35_000, row =>
          Object.defineProperty(row, 'name', {
            get: () => {
              throw new Error('gone')
            },
            enumerable: true,
          }),
        ),
      /value\[35000\]\.name has a getter that threw/,
    ],
    ['a BigInt', () => spoiledAt(39_999, () => 10n), /value\[39999\] is a BigInt/],
    [
      'a cycle',
      () => {
        const value = rows(COUNT) as unknown[]
        ;(value[30_000] as { nested: unknown }).nested = value
        return value
      },
      /value\[30000\]\.nested refers back/,
    ],
  ]
  for (const [label, make, pattern] of late) {
    it(`rejects the call cleanly on ${label} met after some parts, and the next call gets its own value`, async () => {
      const spoiled = make()
      const program = `let message = 'resolved'
        try { await tools.bad({}) } catch (error) { message = error.message }
        const rows = await tools.big({})
        return { message, summary: (() => { ${SUMMARY} })() }`
      const result = await started.runtime.run({ program, bindings: [bigTools({ bad: async () => spoiled })] })
      const value = result.value as { message: string; summary: unknown }
      assert.match(value.message, pattern)
      assert.deepEqual(value.summary, EXPECTED)
    })
  }

  it('settles an abort that lands mid-transfer as an abort, and the next run gets its value whole', async () => {
    const controller = new AbortController()
    const aborting = bigTools({
      big: async () => {
        // After this function returns, the host walks and sends the parts in one task; the abort
        // lands in the next one, while the worker is still parsing them.
        setImmediate(() => controller.abort('stop'))
        return big
      },
    })
    const aborted = await started.runtime.run({
      program: 'const rows = await tools.big({})\nwhile (true) {}',
      bindings: [aborting],
      signal: controller.signal,
    })
    assert.deepEqual(aborted.error, { kind: 'abort', message: 'stop' })
    const next = await started.runtime.run({
      program: `const rows = await tools.big({})\n${SUMMARY}`,
      bindings: [bigTools()],
    })
    assert.deepEqual(next.value, EXPECTED)
  })
})

describe('worker-thread reuse: a result still streaming when its run ends', () => {
  let started: StartedCodeRuntime<WorkerThreadCodeRuntime>
  before(async () => {
    started = await startWorkerRuntime({ reuseWorkers: true, spawnAhead: 0 })
  })
  after(() => started.dispose())

  // The run ends without awaiting its call; its parts reach the ended context or nothing. The
  // next run on the recycled worker numbers its calls from 1 again and must see only its own.
  it('leaves no part of an abandoned call to the next run on the same worker', async () => {
    const first = await started.runtime.run({
      program: 'void tools.big({})\nawait null\nreturn 1',
      bindings: [bigTools()],
    })
    assert.equal(first.value, 1)
    for (let round = 0; round < 2; round++) {
      const next = await started.runtime.run({
        program:
          'const small = await tools.small({})\nconst rows = await tools.big({})\nreturn { small, summary: (() => { ' +
          SUMMARY +
          ' })() }',
        bindings: [bigTools()],
      })
      assert.deepEqual(next.value, { small: [1, 2, 3], summary: EXPECTED })
    }
  })
})
