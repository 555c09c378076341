/**
 * `npm run bench`: loads every backend present, calibrates its refill pause, measures each
 * workload on the backend, on its cold-spawn baseline and on the in-thread floor (one workload
 * at a time across all of them, so a row shares the machine's state), then prints the report
 * and writes RESULTS.md and results.json beside this folder's sources. Asserts nothing.
 */
import { cpus, platform, arch, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { BACKENDS, describeError, loadBackend, type BenchRuntimeConfig, type BenchStarter, type LoadedBackend } from './backends.js'
import { floorStarter, measureCopyFloor } from './baseline-floor.js'
import { BenchUsageError, parseBenchOptions, USAGE, type BenchOptions } from './cli-options.js'
import {
  calibrateRefillPause,
  FULL_PLAN,
  measureSamples,
  measureThroughput,
  MIN_REFILL_PAUSE_MS,
  QUICK_PLAN,
  type MeasurePlan,
  type Measurement,
  type RefillPause,
} from './measure.js'
import { measureMemoryInFreshProcess } from './measure-memory.js'
import { formatMeasurement, renderMarkdown, writeResults, type BenchResults, type ResultCell, type Subject } from './report.js'
import { buildBigValue, WORKLOADS, type Workload, type WorkloadName } from './workloads.js'

/** A column of the table and how to start what it measures. */
interface MeasuredSubject {
  readonly subject: Subject
  readonly starter: BenchStarter
  /** Config every workload of this column starts with. */
  readonly config: BenchRuntimeConfig
  /** Wait before each sampled run, in ms. */
  readonly pauseMs: number
}

const RESULTS_DIRECTORY = fileURLToPath(new URL('..', import.meta.url))

function progress(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function measureWorkload(measured: MeasuredSubject, workload: Workload, plan: MeasurePlan): Promise<Measurement> {
  if (measured.subject.role === 'cold' && workload.coldSkipReason !== undefined) {
    return { kind: 'skipped', reason: workload.coldSkipReason }
  }
  if (workload.kind === 'memory') {
    return measureMemoryInFreshProcess({
      backend: measured.subject.role === 'floor' ? null : (measured.subject.backend ?? null),
      config: measured.config,
      plan,
      settleMs: Math.max(measured.pauseMs, MIN_REFILL_PAUSE_MS),
    })
  }
  const config = workload.kind === 'sampled' ? { ...measured.config, ...workload.config } : measured.config
  let runtime
  try {
    runtime = await measured.starter.start(config)
  } catch (error) {
    return { kind: 'failed', reason: `could not start (${describeError(error)})` }
  }
  try {
    switch (workload.kind) {
      case 'sampled':
        return await measureSamples(runtime, workload, plan, measured.pauseMs)
      case 'throughput':
        return await measureThroughput(runtime, workload, plan)
    }
  } catch (error) {
    return { kind: 'failed', reason: `a run threw (${describeError(error)})` }
  } finally {
    await runtime.dispose()
  }
}

/** Loads the selected backends; the ones that cannot be imported or started are skipped. */
async function prepareBackends(options: BenchOptions, plan: MeasurePlan) {
  const subjects: MeasuredSubject[] = []
  const refillPauses: Record<string, RefillPause> = {}
  const skippedBackends: { backend: string; reason: string }[] = []
  for (const entry of BACKENDS.filter((backend) => options.backends.includes(backend.name))) {
    const load = await loadBackend(entry)
    if (!load.ok) {
      skippedBackends.push({ backend: load.name, reason: load.reason })
      progress(`[${load.name}] skipped: ${load.reason}`)
      continue
    }
    const backend: LoadedBackend = load.backend
    let refill: RefillPause
    try {
      refill = await calibrateRefillPause(backend, plan)
    } catch (error) {
      const reason = `could not be started (${describeError(error)})`
      skippedBackends.push({ backend: backend.name, reason })
      progress(`[${backend.name}] skipped: ${reason}`)
      continue
    }
    refillPauses[backend.name] = refill
    progress(`[${backend.name}] pause between sampled runs: ${refill.pauseMs} ms`)
    subjects.push(
      { subject: { id: backend.name, role: 'backend', backend: backend.name }, starter: backend, config: {}, pauseMs: refill.pauseMs },
      { subject: { id: `${backend.name} cold`, role: 'cold', backend: backend.name }, starter: backend, config: { spawnAhead: 0 }, pauseMs: refill.pauseMs },
    )
  }
  return { subjects, refillPauses, skippedBackends }
}

function describeMachine(): BenchResults['machine'] {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpuModel: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    platform: `${platform()} ${arch()}`,
    totalMemoryGiB: totalmem() / 1024 ** 3,
    isGcExposed: typeof globalThis.gc === 'function',
  }
}

async function runBench(options: BenchOptions): Promise<void> {
  const plan = options.isQuick ? QUICK_PLAN : FULL_PLAN
  const workloads = WORKLOADS.filter((workload) => options.workloads.includes(workload.name))
  const bigValue = options.workloads.includes('bigvalue') ? buildBigValue() : undefined
  const { subjects, refillPauses, skippedBackends } = await prepareBackends(options, plan)
  subjects.push({ subject: { id: 'floor', role: 'floor' }, starter: floorStarter, config: {}, pauseMs: 0 })
  const cells: ResultCell[] = []
  for (const workload of workloads) {
    for (const measured of subjects) {
      const measurement = await measureWorkload(measured, workload, plan)
      cells.push({ subject: measured.subject.id, workload: workload.name, measurement })
      progress(`[${measured.subject.id}] ${workload.name}: ${formatMeasurement(measurement)}`)
    }
  }
  const workloadDescriptions: Partial<Record<WorkloadName, string>> = {}
  for (const workload of workloads) workloadDescriptions[workload.name] = workload.description
  const results: BenchResults = {
    machine: describeMachine(),
    options: { isQuick: options.isQuick, workloads: options.workloads, backends: options.backends },
    plan,
    workloadDescriptions,
    bigValue: bigValue === undefined
      ? undefined
      : { rows: bigValue.rows.length, jsonBytes: bigValue.jsonBytes, copyFloor: measureCopyFloor(bigValue.rows, plan.runs) },
    refillPauses,
    skippedBackends,
    subjects: subjects.map((measured) => measured.subject),
    cells,
  }
  process.stdout.write(renderMarkdown(results))
  await writeResults(results, RESULTS_DIRECTORY)
  progress(`Wrote ${RESULTS_DIRECTORY}RESULTS.md and results.json`)
}

let options: BenchOptions | undefined
try {
  options = parseBenchOptions(process.argv.slice(2), BACKENDS.map((backend) => backend.name))
} catch (error) {
  if (!(error instanceof BenchUsageError)) throw error
  process.stderr.write(`${error.message}\n\n${USAGE}\n`)
  process.exitCode = 2
}
if (options?.isHelp === true) process.stdout.write(`${USAGE}\n`)
else if (options !== undefined) await runBench(options)
