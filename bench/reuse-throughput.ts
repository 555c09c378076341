/**
 * Throughput of the worker-thread backend's reuse mode against fresh workers: 4 callers run the
 * trivial program back to back (no pause) for a fixed time, in four columns: fresh workers (the
 * default), reuse without keys, reuse with one key for every caller, and reuse with a key per
 * caller (4 tenants). The columns alternate round by round, so a machine shared with other work
 * slows each of them alike; each round starts at the next column, and each column waits for the
 * workers of the one before to finish exiting, so no column always pays for its predecessor's
 * teardown. The report is the median of the rounds.
 *
 * node bench/dist/reuse-throughput.js [--rounds N] [--seconds S]
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { summarizeSamples } from './statistics.js'

const CALLERS = 4

/** Pause between columns: a disposed runtime's workers are gone, but the OS may still reap them. */
const SETTLE_MS = 500

interface Column {
  readonly name: string
  readonly reuseWorkers: boolean
  /** The key caller `index` sends, or undefined for none. */
  readonly keyOf: (index: number) => string | undefined
}

const COLUMNS: readonly Column[] = [
  { name: 'fresh worker per run', reuseWorkers: false, keyOf: () => undefined },
  { name: 'reuse, no key', reuseWorkers: true, keyOf: () => undefined },
  { name: 'reuse, 1 key', reuseWorkers: true, keyOf: () => 'tenant' },
  { name: 'reuse, 4 keys (one per caller)', reuseWorkers: true, keyOf: index => `tenant-${index}` },
]

/** Runs/s of one column over `ms` of back-to-back runs, after a short warm-up. */
async function measure(column: Column, ms: number): Promise<number> {
  const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, { reuseWorkers: column.reuseWorkers })
  try {
    const caller = async (index: number, until: number): Promise<number> => {
      const reuseKey = column.keyOf(index)
      let runs = 0
      while (performance.now() < until) {
        const result = await runtime.run({
          program: 'return 1',
          bindings: [],
          ...(reuseKey === undefined ? {} : { reuseKey }),
        })
        if (result.error !== undefined) throw new Error(`${column.name}: ${result.error.message}`)
        runs++
      }
      return runs
    }
    const callers = (until: number): Promise<number[]> =>
      Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index, until)))
    await callers(performance.now() + Math.min(500, ms / 4))
    const started = performance.now()
    const counts = await callers(started + ms)
    const elapsed = performance.now() - started
    return (counts.reduce((sum, count) => sum + count, 0) * 1000) / elapsed
  } finally {
    await dispose()
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '3' } },
  })
  const rounds = Number(values.rounds)
  const ms = Number(values.seconds) * 1000
  const samples = new Map<string, number[]>(COLUMNS.map(column => [column.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < COLUMNS.length; step++) {
      const column = COLUMNS[(round + step) % COLUMNS.length]
      if (column === undefined) continue
      await sleep(SETTLE_MS)
      const runsPerSecond = await measure(column, ms)
      samples.get(column.name)?.push(runsPerSecond)
      console.error(`round ${round + 1}: ${column.name}: ${runsPerSecond.toFixed(1)} runs/s`)
    }
  }
  const fresh = summarizeSamples(samples.get(COLUMNS[0]?.name ?? '') ?? []).median
  console.log(`| ${CALLERS} callers, trivial program, back to back | runs/s (median of ${rounds}) | × fresh |`)
  console.log('|---|---|---|')
  for (const column of COLUMNS) {
    const value = summarizeSamples(samples.get(column.name) ?? []).median
    console.log(`| ${column.name} | ${value.toFixed(1)} | ${(value / fresh).toFixed(1)} |`)
  }
}

await main()
