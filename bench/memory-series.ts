/**
 * The memory investigation of issue 14, on its own (the bench's memory cell keeps two readings):
 * runs `return 1` many times and prints one line per checkpoint with the host's RSS next to V8's
 * own accounting, so the growth can be split into JS heap and native memory.
 *
 * node --expose-gc bench/dist/memory-series.js [--mode fresh|reuse|bare-worker] [--runs N]
 *   [--every N] [--callers N] [--stack-mb N] [--max-old-mb N]
 *
 * `fresh` and `reuse` run the worker-thread backend (a fresh worker per run, or `reuseWorkers`);
 * `bare-worker` spawns `new Worker` of an eval script that posts at once, with
 * `resourceLimits.stackSizeMb` when `--stack-mb` is given, to tell the backend's cost from the
 * thread's. Start it with `MALLOC_ARENA_MAX=2` in its environment to see what glibc's per-thread
 * arenas add, and `--max-old-mb` (the backend's `maxOldGenerationSizeMb`) to see how much of a
 * recycled worker's growth is garbage its heap has not collected yet. Every reading is taken after a pause and a forced GC. Prints a table, writes nothing.
 */
import { readdirSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { getHeapStatistics } from 'node:v8'
import { Worker, type ResourceLimits } from 'node:worker_threads'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

const MIB = 1024 * 1024
const SETTLE_MS = 300

type RunOnce = () => Promise<void>

function bareWorkerRun(resourceLimits: ResourceLimits | undefined): RunOnce {
  return () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', {
        eval: true,
        ...(resourceLimits === undefined ? {} : { resourceLimits }),
      })
      worker.once('message', () => {
        void worker.terminate().then(() => resolve(), reject)
      })
      worker.once('error', reject)
    })
}

/** Threads of this process (Linux): the main thread, Node's own, and one per live worker. */
function threadCount(): number | string {
  try {
    return readdirSync('/proc/self/task').length
  } catch {
    return '?'
  }
}

async function reading(runs: number, startedAt: number): Promise<string> {
  await sleep(SETTLE_MS)
  globalThis.gc?.()
  await sleep(SETTLE_MS)
  const memory = process.memoryUsage()
  const heap = getHeapStatistics()
  const native = memory.rss - heap.total_physical_size
  const cells = [
    runs,
    (memory.rss / MIB).toFixed(1),
    (heap.total_physical_size / MIB).toFixed(1),
    (heap.used_heap_size / MIB).toFixed(1),
    (heap.malloced_memory / MIB).toFixed(1),
    (memory.external / MIB).toFixed(1),
    (native / MIB).toFixed(1),
    threadCount(),
    ((performance.now() - startedAt) / 1_000).toFixed(0),
  ]
  return `| ${cells.join(' | ')} |`
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'fresh' },
      runs: { type: 'string', default: '10000' },
      every: { type: 'string', default: '1000' },
      callers: { type: 'string', default: '4' },
      'stack-mb': { type: 'string' },
      'max-old-mb': { type: 'string' },
    },
  })
  const runs = Number(values.runs)
  const every = Number(values.every)
  const callers = Number(values.callers)
  const stackMb = values['stack-mb'] === undefined ? undefined : Number(values['stack-mb'])
  let runOnce: RunOnce
  let dispose = (): Promise<void> => Promise.resolve()
  if (values.mode === 'bare-worker') {
    runOnce = bareWorkerRun(stackMb === undefined ? undefined : { stackSizeMb: stackMb })
  } else if (values.mode === 'fresh' || values.mode === 'reuse') {
    const maxOld = values['max-old-mb'] === undefined ? {} : { maxOldGenerationSizeMb: Number(values['max-old-mb']) }
    const started = await startCodeRuntime(WorkerThreadCodeRuntime, {
      reuseWorkers: values.mode === 'reuse',
      ...maxOld,
    })
    dispose = started.dispose
    runOnce = async () => {
      const result = await started.runtime.run({ program: 'return 1', bindings: [] })
      if (result.error !== undefined) throw new Error(`a run failed: ${result.error.kind}: ${result.error.message}`)
    }
  } else {
    throw new Error(`--mode: unknown '${values.mode ?? ''}', choose fresh, reuse or bare-worker`)
  }
  console.log(
    `mode ${values.mode}, ${callers} callers, MALLOC_ARENA_MAX=${process.env['MALLOC_ARENA_MAX'] ?? 'unset'}, stackSizeMb ${stackMb ?? 'default'}, maxOldGenerationSizeMb ${values['max-old-mb'] ?? 'default'}, gc ${typeof globalThis.gc === 'function' ? 'forced' : 'not exposed'}`,
  )
  console.log(
    '| runs | RSS MiB | V8 heap (physical) MiB | JS heap used MiB | V8 malloced MiB | external MiB | RSS − V8 heap MiB | threads | s |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const startedAt = performance.now()
  console.log(await reading(0, startedAt))
  try {
    let done = 0
    while (done < runs) {
      const target = Math.min(runs, done + every)
      let started = done
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (started < target) {
            started++
            await runOnce()
          }
        }),
      )
      done = target
      console.log(await reading(done, startedAt))
    }
  } finally {
    await dispose()
  }
}

await main()
