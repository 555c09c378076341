/**
 * The memory workload: host RSS after a first batch of runs and after many more. It runs in a
 * fresh Node process per column (see memory-probe.ts), because RSS in a process that has just
 * moved 5 MB values around and spawned hundreds of workers mostly shows what earlier workloads
 * left behind. Worker threads live in their host process, so its RSS covers them.
 */
import { execFile } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describeError, type BenchRuntime, type BenchRuntimeConfig } from './backends.js'
import { ProblemLog, runBatch, type MeasurePlan, type Measurement } from './measure.js'
import type { MemoryWorkload } from './workloads.js'

const MIB = 1024 * 1024

// Lets terminated substrates exit and a full GC run (when Node was started with --expose-gc), so
// the reading is of what stays, not of what is about to go.
async function settledMemory(settleMs: number): Promise<NodeJS.MemoryUsage> {
  await sleep(settleMs)
  globalThis.gc?.()
  await sleep(settleMs)
  return process.memoryUsage()
}

/** How many runs a memory measurement takes before its first reading and in all. */
export interface MemoryRunCounts {
  readonly firstRuns: number
  readonly totalRuns: number
}

/**
 * The run counts for a column: the plan's fast counts (10 000 runs in a full plan) where runs
 * cost no spawn (a reuse column, the in-thread floor), else the fresh-substrate counts.
 */
export function memoryRunCounts(plan: MeasurePlan, isFast: boolean): MemoryRunCounts {
  return isFast
    ? { firstRuns: plan.fastMemoryFirstRuns, totalRuns: plan.fastMemoryTotalRuns }
    : { firstRuns: plan.memoryFirstRuns, totalRuns: plan.memoryTotalRuns }
}

/** In this process: RSS after `counts.firstRuns` runs and after `counts.totalRuns` in all. */
export async function measureMemory(
  runtime: BenchRuntime,
  workload: MemoryWorkload,
  counts: MemoryRunCounts,
  callers: number,
  settleMs: number,
): Promise<Measurement> {
  const problems = new ProblemLog()
  await runBatch(runtime, workload, counts.firstRuns, callers, problems)
  const first = await settledMemory(settleMs)
  await runBatch(runtime, workload, counts.totalRuns - counts.firstRuns, callers, problems)
  const total = await settledMemory(settleMs)
  return {
    kind: 'memory',
    unit: 'MiB',
    firstRuns: counts.firstRuns,
    totalRuns: counts.totalRuns,
    rssAfterFirstMiB: first.rss / MIB,
    rssAfterTotalMiB: total.rss / MIB,
    growthPercent: ((total.rss - first.rss) / first.rss) * 100,
    heapUsedAfterFirstMiB: first.heapUsed / MIB,
    heapUsedAfterTotalMiB: total.heapUsed / MIB,
    problems: problems.snapshot(),
  }
}

/** What the fresh process measures: a backend by its table name, or the floor when `null`. */
export interface MemoryProbeRequest {
  readonly backend: string | null
  readonly config: BenchRuntimeConfig
  /** Whether each request carries its caller's `reuseKey` (the `reuse-key` column). */
  readonly isKeyedPerCaller: boolean
  readonly counts: MemoryRunCounts
  readonly callers: number
  readonly settleMs: number
}

const PROBE_ENTRY = fileURLToPath(new URL('./memory-probe.js', import.meta.url))
// 10 000 runs at a few dozen runs per second on a busy machine, with room to spare.
const PROBE_TIMEOUT_MS = 30 * 60 * 1_000

function isMemoryMeasurement(value: unknown): value is Measurement {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Record<string, unknown>
  if (candidate['kind'] === 'failed') return typeof candidate['reason'] === 'string'
  return (
    candidate['kind'] === 'memory' &&
    typeof candidate['growthPercent'] === 'number' &&
    typeof candidate['problems'] === 'object'
  )
}

/** Runs the memory workload in a fresh Node process (with `--expose-gc`) and reads its measurement. */
export async function measureMemoryInFreshProcess(request: MemoryProbeRequest): Promise<Measurement> {
  let stdout: string
  try {
    ;({ stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', PROBE_ENTRY, JSON.stringify(request)], {
      timeout: PROBE_TIMEOUT_MS,
      maxBuffer: MIB,
    }))
  } catch (error) {
    return { kind: 'failed', reason: `the memory probe process failed (${describeError(error)})` }
  }
  let decoded: unknown
  try {
    decoded = JSON.parse(stdout.trim().split('\n').at(-1) ?? '')
  } catch {
    decoded = undefined
  }
  return isMemoryMeasurement(decoded)
    ? decoded
    : { kind: 'failed', reason: 'the memory probe process printed no measurement' }
}
