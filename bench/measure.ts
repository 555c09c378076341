/**
 * How a workload is measured on a started runtime: sampled runs one at a time (with a pause
 * between them so a spawn-ahead pool is full again, as a caller with ready workers sees it) and
 * concurrent callers for throughput; also the calibration of that pause from the backend's own
 * cold-spawn time. Memory has its own module (it runs in a fresh process).
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime, BenchStarter } from './backends.js'
import { summarizeSamples, type SampleSummary } from './statistics.js'
import {
  benchBindings,
  type ResultCheck,
  type SampledWorkload,
  type ThroughputWorkload,
  type Workload,
} from './workloads.js'

/** How many runs and how long: the full plan of the issue, or a quick smoke plan. */
export interface MeasurePlan {
  /** Runs before the measured ones, discarded (JIT, first-use costs). */
  readonly warmupRuns: number
  /** Measured runs of a sampled workload. */
  readonly runs: number
  /** Measured runs of a sampled workload whose warm-up took longer than `slowAfterMs`. */
  readonly slowRuns: number
  readonly slowAfterMs: number
  readonly throughputMs: number
  /** Concurrent callers of the throughput and memory workloads. */
  readonly callers: number
  /** Runs before the memory workload's first reading and in all, with a fresh substrate per run. */
  readonly memoryFirstRuns: number
  readonly memoryTotalRuns: number
  /** The same where runs are fast: a reuse column or the in-thread floor. */
  readonly fastMemoryFirstRuns: number
  readonly fastMemoryTotalRuns: number
  /** Cold runs timed to calibrate the refill pause. */
  readonly calibrationRuns: number
}

// Sized to take about 22 minutes on 2 quiet cores with every backend and peer (bench/README.md):
// 12 samples keep the median's spread small next to the differences measured, and fresh-substrate
// memory runs 2 000 (10 000 would take 4 to 7 minutes per backend at 25 to 40 runs/s).
export const FULL_PLAN: MeasurePlan = Object.freeze({
  warmupRuns: 2,
  runs: 12,
  slowRuns: 5,
  slowAfterMs: 1_000,
  throughputMs: 3_000,
  callers: 4,
  memoryFirstRuns: 200,
  memoryTotalRuns: 2_000,
  fastMemoryFirstRuns: 1_000,
  fastMemoryTotalRuns: 10_000,
  calibrationRuns: 10,
})

export const QUICK_PLAN: MeasurePlan = Object.freeze({
  warmupRuns: 1,
  runs: 5,
  slowRuns: 2,
  slowAfterMs: 1_000,
  throughputMs: 1_000,
  callers: 4,
  memoryFirstRuns: 100,
  memoryTotalRuns: 500,
  fastMemoryFirstRuns: 200,
  fastMemoryTotalRuns: 2_000,
  calibrationRuns: 5,
})

/** Runs whose result was not what the workload means: how many, and the first distinct reasons. */
export interface RunProblems {
  readonly failedRuns: number
  readonly reasons: readonly string[]
}

/** One cell of the report. */
export type Measurement =
  | {
      readonly kind: 'samples'
      readonly unit: 'ms'
      readonly summary: SampleSummary
      readonly samples: readonly number[]
      readonly problems: RunProblems
    }
  | {
      readonly kind: 'rate'
      readonly unit: 'runs/s'
      readonly runsPerSecond: number
      readonly runs: number
      readonly seconds: number
      readonly callers: number
      /** Each run's latency as its caller saw it, under load. */
      readonly latencyMs: SampleSummary
      /** CPU time of the host process (every thread, not child processes) per run, in ms: robust to a busy machine. */
      readonly cpuMsPerRun: number
      readonly problems: RunProblems
    }
  | {
      readonly kind: 'memory'
      readonly unit: 'MiB'
      readonly firstRuns: number
      readonly totalRuns: number
      readonly rssAfterFirstMiB: number
      readonly rssAfterTotalMiB: number
      /** RSS growth from the first reading to the second, in percent. */
      readonly growthPercent: number
      readonly heapUsedAfterFirstMiB: number
      readonly heapUsedAfterTotalMiB: number
      readonly problems: RunProblems
    }
  | {
      readonly kind: 'skipped'
      readonly reason: string
      /** The column cannot run this workload at all (shown as n/a), rather than was not run this time. */
      readonly isNotApplicable?: boolean
    }
  | { readonly kind: 'failed'; readonly reason: string }

const MAX_REASONS = 3

/** Counts runs whose result was not what the workload means. */
export class ProblemLog {
  failedRuns = 0
  readonly reasons: string[] = []

  note(check: ResultCheck, result: CodeRunResult): void {
    const problem = check(result)
    if (problem === undefined) return
    this.failedRuns++
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(problem)) this.reasons.push(problem)
  }

  snapshot(): RunProblems {
    return { failedRuns: this.failedRuns, reasons: [...this.reasons] }
  }
}

function requestOf(workload: Workload, signal?: AbortSignal): CodeRunRequest {
  const request = { program: workload.program, bindings: benchBindings() }
  return signal === undefined ? request : { ...request, signal }
}

interface Sample {
  /** The metric's value, or `undefined` when this run cannot give one. */
  readonly value: number | undefined
  readonly elapsedMs: number
  readonly result: CodeRunResult
}

async function sampleOnce(runtime: BenchRuntime, workload: SampledWorkload): Promise<Sample> {
  const controller = workload.abortAfterMs === undefined ? undefined : new AbortController()
  const request = requestOf(workload, controller?.signal)
  let abortedAt: number | undefined
  const startedAt = performance.now()
  const running = runtime.run(request)
  const abortTimer =
    controller === undefined
      ? undefined
      : setTimeout(() => {
          abortedAt = performance.now()
          controller.abort(new Error('Aborted by the benchmark.'))
        }, workload.abortAfterMs)
  const result = await running
  const settledAt = performance.now()
  clearTimeout(abortTimer)
  const elapsedMs = settledAt - startedAt
  switch (workload.metric) {
    case 'elapsed':
      return { value: elapsedMs, elapsedMs, result }
    case 'overshoot':
      return { value: elapsedMs - (workload.config.computeMs ?? 0), elapsedMs, result }
    case 'abort-settle':
      return { value: abortedAt === undefined ? undefined : settledAt - abortedAt, elapsedMs, result }
  }
}

/** The state of one column while its samples are taken. */
class SampledColumn {
  readonly runtime: BenchRuntime
  readonly samples: number[] = []
  readonly problems = new ProblemLog()
  measuredRuns: number
  startedRuns = 0

  constructor(runtime: BenchRuntime, measuredRuns: number) {
    this.runtime = runtime
    this.measuredRuns = measuredRuns
  }
}

/**
 * Runs `workload` on every runtime, one run at a time and interleaved (a run on the first, one on
 * the second, ..., then again), waiting `pauseMs` before every run, so all columns see the same
 * machine over the same minutes even when other work on it comes and goes. Each column keeps one
 * sample per measured run, after `plan.warmupRuns` discarded ones; a column whose warm-up took
 * longer than `plan.slowAfterMs` measures `plan.slowRuns` runs. A back-to-back workload skips the
 * pause (its caller measures one column at a time). A run that settles without a
 * value for the metric (an abort workload that ended before the abort) is counted as a problem
 * and gives no sample.
 */
export async function measureSamples(
  runtimes: readonly BenchRuntime[],
  workload: SampledWorkload,
  plan: MeasurePlan,
  pauseMs: number,
): Promise<Measurement[]> {
  const columns = runtimes.map(runtime => new SampledColumn(runtime, plan.runs))
  const isActive = (column: SampledColumn): boolean => column.startedRuns < plan.warmupRuns + column.measuredRuns
  while (columns.some(isActive)) {
    for (const column of columns.filter(isActive)) {
      if (workload.isBackToBack !== true) await sleep(pauseMs)
      const isWarmup = column.startedRuns < plan.warmupRuns
      column.startedRuns++
      const sample = await sampleOnce(column.runtime, workload)
      if (isWarmup) {
        if (sample.elapsedMs > plan.slowAfterMs) column.measuredRuns = Math.min(column.measuredRuns, plan.slowRuns)
        continue
      }
      column.problems.note(workload.check, sample.result)
      if (sample.value !== undefined) column.samples.push(sample.value)
    }
  }
  return columns.map(column => ({
    kind: 'samples',
    unit: 'ms',
    summary: summarizeSamples(column.samples),
    samples: column.samples,
    problems: column.problems.snapshot(),
  }))
}

/** `callers` concurrent loops, each running the request back to back until `count` runs started. */
export async function runBatch(
  runtime: BenchRuntime,
  workload: Workload,
  count: number,
  callers: number,
  problems: ProblemLog,
): Promise<void> {
  const request = requestOf(workload)
  let started = 0
  const caller = async (index: number): Promise<void> => {
    while (started < count) {
      started++
      problems.note(workload.check, await runtime.run(request, index))
    }
  }
  await Promise.all(Array.from({ length: callers }, (_, index) => caller(index)))
}

/** Runs per second from the workload's callers (or the plan's), back to back, with no pauses, for `plan.throughputMs`. */
export async function measureThroughput(
  runtime: BenchRuntime,
  workload: ThroughputWorkload,
  plan: MeasurePlan,
): Promise<Measurement> {
  await runBatch(runtime, workload, plan.warmupRuns, 1, new ProblemLog())
  const request = requestOf(workload)
  const problems = new ProblemLog()
  const latencies: number[] = []
  const cpuAtStart = process.cpuUsage()
  const startedAt = performance.now()
  const deadline = startedAt + plan.throughputMs
  const caller = async (index: number): Promise<void> => {
    while (performance.now() < deadline) {
      const runStartedAt = performance.now()
      const result = await runtime.run(request, index)
      latencies.push(performance.now() - runStartedAt)
      problems.note(workload.check, result)
    }
  }
  const callers = workload.callers ?? plan.callers
  await Promise.all(Array.from({ length: callers }, (_, index) => caller(index)))
  const seconds = (performance.now() - startedAt) / 1_000
  const cpu = process.cpuUsage(cpuAtStart)
  return {
    kind: 'rate',
    unit: 'runs/s',
    runsPerSecond: latencies.length / seconds,
    runs: latencies.length,
    seconds,
    callers,
    latencyMs: summarizeSamples(latencies),
    cpuMsPerRun: (cpu.user + cpu.system) / 1_000 / latencies.length,
    problems: problems.snapshot(),
  }
}

/** The pause between sampled runs for one backend, and the cold runs it was derived from. */
export interface RefillPause {
  readonly pauseMs: number
  /** `return 1` with `spawnAhead: 0`, in ms: a spawn plus a run. */
  readonly coldRunMs: SampleSummary
}

/** Never pause less than this between sampled runs (timer and exit noise). */
export const MIN_REFILL_PAUSE_MS = 60
/** Never pause more than this, however slow a cold spawn is. */
export const MAX_REFILL_PAUSE_MS = 2_000

/**
 * Measures how long a cold spawn takes on this machine right now (`return 1` with
 * `spawnAhead: 0`: spawn to ready plus the run, which bounds the refill of one worker) and
 * returns twice the slowest of them, within [{@link MIN_REFILL_PAUSE_MS}, {@link MAX_REFILL_PAUSE_MS}].
 */
export async function calibrateRefillPause(backend: BenchStarter, plan: MeasurePlan): Promise<RefillPause> {
  const runtime = await backend.start({ spawnAhead: 0 })
  const samples: number[] = []
  try {
    const request: CodeRunRequest = { program: 'return 1', bindings: benchBindings() }
    for (let index = 0; index < plan.warmupRuns + plan.calibrationRuns; index++) {
      await sleep(MIN_REFILL_PAUSE_MS)
      const startedAt = performance.now()
      await runtime.run(request)
      if (index >= plan.warmupRuns) samples.push(performance.now() - startedAt)
    }
  } finally {
    await runtime.dispose()
  }
  const coldRunMs = summarizeSamples(samples)
  const pauseMs = Math.min(MAX_REFILL_PAUSE_MS, Math.max(MIN_REFILL_PAUSE_MS, Math.ceil(2 * coldRunMs.max)))
  return { pauseMs, coldRunMs }
}
