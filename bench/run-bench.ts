/**
 * `npm run bench`: loads every backend present, calibrates the pause between sampled runs,
 * measures each workload on every column (each backend, its cold-spawn baseline, the in-thread
 * floor; sampled runs interleaved across the columns, so a row shares the machine's state), then
 * prints the report and writes RESULTS.md and results.json: beside this folder's sources for a full
 * run, in a scratch directory for a quick or partial one.
 * Asserts nothing.
 */
import { appendFile, mkdtemp, writeFile } from 'node:fs/promises'
import { arch, cpus, loadavg, platform, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  BACKENDS,
  describeError,
  loadBackend,
  type BenchRuntime,
  type BenchRuntimeConfig,
  type BenchStarter,
  type LoadedBackend,
} from './backends.js'
import { floorStarter, measureCopyFloor } from './baseline-floor.js'
import { startBareBwrapChildFloor } from './floor-bare-bwrap-child.js'
import { bareChildFloor } from './floor-bare-child.js'
import { bareWorkerFloor } from './floor-bare-worker.js'
import { startLiveVmFloor } from './floor-live-vm.js'
import { measureFloors, type FloorResult } from './floor-probe.js'
import { BenchUsageError, isFullRun, parseBenchOptions, USAGE, type BenchOptions } from './cli-options.js'
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
import { measureMemoryInFreshProcess, memoryRunCounts } from './measure-memory.js'
import { loadPeer, PEERS } from './peers.js'
import { keyedPerCaller, REUSE_VARIANTS, REUSE_WORKLOADS } from './reuse-variants.js'
import { inSession } from './session-runs.js'
import { formatMs } from './statistics.js'
import {
  formatMeasurement,
  renderMarkdown,
  writeResults,
  type BenchResults,
  type ResultCell,
  type Subject,
} from './report.js'
import { measureTypeCheckInChild } from './type-check.js'
import { measureTracingSection, renderTracingSection } from './tracing.js'
import { measureNatsSection, renderNatsSection } from './nats.js'
import { measureServeSection, renderServeSection } from './serve.js'
import {
  buildBigValue,
  WORKLOADS,
  type MemoryWorkload,
  type SampledWorkload,
  type ThroughputWorkload,
  type Workload,
  type WorkloadName,
} from './workloads.js'

/** A column of the table and how to start what it measures. */
interface MeasuredSubject {
  readonly subject: Subject
  readonly starter: BenchStarter
  /** Config every workload of this column starts with. */
  readonly config: BenchRuntimeConfig
  /** Workloads this column does not run (a peer without the feature), each with why. */
  readonly notApplicable?: Readonly<Partial<Record<WorkloadName, string>>>
  /** When set, the column runs only these workloads and has no cell for the others. */
  readonly workloads?: readonly WorkloadName[]
  /** Whether each request carries its caller's `reuseKey` (the starter adds it; memory's fresh process needs telling). */
  readonly isKeyedPerCaller?: boolean
}

const RESULTS_DIRECTORY = fileURLToPath(new URL('..', import.meta.url))

function progress(line: string): void {
  process.stderr.write(`${line}\n`)
}

function configFor(measured: MeasuredSubject, workload: Workload): BenchRuntimeConfig {
  return workload.kind === 'sampled' ? { ...measured.config, ...workload.config } : measured.config
}

type Started =
  { readonly ok: true; readonly runtime: BenchRuntime } | { readonly ok: false; readonly measurement: Measurement }

/** Why `measured` does not run `workload`, as a cell; `undefined` when it does. */
function skippedCell(measured: MeasuredSubject, workload: Workload): Measurement | undefined {
  if (measured.subject.role === 'cold' && workload.coldSkipReason !== undefined)
    return { kind: 'skipped', reason: workload.coldSkipReason }
  const notApplicable = measured.notApplicable?.[workload.name]
  return notApplicable === undefined ? undefined : { kind: 'skipped', reason: notApplicable, isNotApplicable: true }
}

async function startFor(measured: MeasuredSubject, workload: Workload): Promise<Started> {
  const skipped = skippedCell(measured, workload)
  if (skipped !== undefined) return { ok: false, measurement: skipped }
  let runtime: BenchRuntime
  try {
    runtime = await measured.starter.start(configFor(measured, workload))
  } catch (error) {
    return { ok: false, measurement: { kind: 'failed', reason: `could not start (${describeError(error)})` } }
  }
  if (workload.kind !== 'sampled' || workload.inSession !== true) return { ok: true, runtime }
  const openSession = runtime.openSession
  if (openSession === undefined) {
    await runtime.dispose()
    return { ok: false, measurement: { kind: 'skipped', reason: 'no sessions', isNotApplicable: true } }
  }
  try {
    return { ok: true, runtime: await inSession(runtime, openSession) }
  } catch (error) {
    await runtime.dispose()
    return { ok: false, measurement: { kind: 'failed', reason: `could not open a session (${describeError(error)})` } }
  }
}

async function failedOnThrow(measure: () => Promise<Measurement>): Promise<Measurement> {
  try {
    return await measure()
  } catch (error) {
    return { kind: 'failed', reason: `a run threw (${describeError(error)})` }
  }
}

/**
 * Every column's measurement of a sampled workload: taken interleaved, or for a back-to-back
 * workload one column after another, so no other column's run gives a pool time to refill.
 */
async function measureSampledWorkload(
  subjects: readonly MeasuredSubject[],
  workload: SampledWorkload,
  plan: MeasurePlan,
  pauseMs: number,
): Promise<Measurement[]> {
  if (workload.isBackToBack !== true) return measureSampledTogether(subjects, workload, plan, pauseMs)
  const measurements: Measurement[] = []
  for (const measured of subjects)
    measurements.push(...(await measureSampledTogether([measured], workload, plan, pauseMs)))
  return measurements
}

/** The given columns' measurements of a sampled workload, their runs interleaved. */
async function measureSampledTogether(
  subjects: readonly MeasuredSubject[],
  workload: SampledWorkload,
  plan: MeasurePlan,
  pauseMs: number,
): Promise<Measurement[]> {
  const started = await Promise.all(subjects.map(measured => startFor(measured, workload)))
  const runtimes = started.flatMap(start => (start.ok ? [start.runtime] : []))
  try {
    let measured: Measurement[]
    try {
      measured = await measureSamples(runtimes, workload, plan, pauseMs)
    } catch (error) {
      const failed: Measurement = { kind: 'failed', reason: `a run threw (${describeError(error)})` }
      measured = runtimes.map(() => failed)
    }
    let next = 0
    return started.map(start =>
      start.ok ? (measured[next++] ?? { kind: 'failed', reason: 'no measurement' }) : start.measurement,
    )
  } finally {
    await Promise.all(runtimes.map(runtime => runtime.dispose()))
  }
}

/** One column's measurement of a throughput or memory workload, the columns one after another. */
async function measureAloneWorkload(
  measured: MeasuredSubject,
  workload: ThroughputWorkload | MemoryWorkload,
  plan: MeasurePlan,
  pauseMs: number,
): Promise<Measurement> {
  const skipped = skippedCell(measured, workload)
  if (skipped !== undefined) return skipped
  progress(`[${measured.subject.id}] ${workload.name}: measuring`)
  if (workload.kind === 'memory') {
    const isFloor = measured.subject.role === 'floor'
    return measureMemoryInFreshProcess({
      backend: isFloor ? null : (measured.subject.backend ?? null),
      config: measured.config,
      isKeyedPerCaller: measured.isKeyedPerCaller === true,
      counts: memoryRunCounts(plan, isFloor || measured.config.reuseWorkers === true),
      callers: plan.callers,
      settleMs: pauseMs,
    })
  }
  const start = await startFor(measured, workload)
  if (!start.ok) return start.measurement
  try {
    return await failedOnThrow(() => measureThroughput(start.runtime, workload, plan))
  } finally {
    await start.runtime.dispose()
  }
}

/** Every column's measurement of `workload`, in column order. */
async function measureWorkload(
  subjects: readonly MeasuredSubject[],
  workload: Workload,
  plan: MeasurePlan,
  pauseMs: number,
): Promise<Measurement[]> {
  if (workload.kind === 'sampled') return measureSampledWorkload(subjects, workload, plan, pauseMs)
  const measurements: Measurement[] = []
  for (const measured of subjects) measurements.push(await measureAloneWorkload(measured, workload, plan, pauseMs))
  return measurements
}

/** Loads the selected backends; the ones that cannot be imported or started are skipped. */
async function prepareBackends(options: BenchOptions, plan: MeasurePlan) {
  const subjects: MeasuredSubject[] = []
  const refillPauses: Record<string, RefillPause> = {}
  const skippedBackends: { backend: string; reason: string }[] = []
  for (const entry of BACKENDS.filter(backend => options.backends.includes(backend.name))) {
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
    progress(
      `[${backend.name}] cold \`return 1\` max ${refill.coldRunMs.max.toFixed(1)} ms: pause ${refill.pauseMs} ms`,
    )
    subjects.push(
      { subject: { id: backend.name, role: 'backend', backend: backend.name }, starter: backend, config: {} },
      {
        subject: { id: `${backend.name} cold`, role: 'cold', backend: backend.name },
        starter: backend,
        config: { spawnAhead: 0 },
      },
    )
    if (entry.hasReuse === true) subjects.push(...reuseSubjects(backend))
  }
  return { subjects, refillPauses, skippedBackends }
}

/** The reuse columns of a backend that has a reuse mode. */
function reuseSubjects(backend: LoadedBackend): MeasuredSubject[] {
  return REUSE_VARIANTS.map(variant => ({
    subject: { id: `${backend.name} ${variant.suffix}`, role: 'reuse', backend: backend.name },
    starter: variant.isKeyedPerCaller ? keyedPerCaller(backend) : backend,
    config: variant.config,
    workloads: REUSE_WORKLOADS,
    isKeyedPerCaller: variant.isKeyedPerCaller,
  }))
}

/** The spawn and context floors, each measured in this process before the workloads. */
async function measureAllFloors(plan: MeasurePlan): Promise<FloorResult[]> {
  progress('floors: measuring')
  const bwrapChild = await startBareBwrapChildFloor()
  const sandboxFloors = 'skipped' in bwrapChild ? [] : [bwrapChild]
  if ('skipped' in bwrapChild) progress(bwrapChild.skipped)
  const liveVm = await startLiveVmFloor()
  try {
    const floors = await measureFloors([bareWorkerFloor, bareChildFloor, ...sandboxFloors, liveVm], plan)
    for (const floor of floors)
      progress(
        `[${floor.name}] median ${formatMs(floor.wallMs.median)} ms, host CPU ${formatMs(floor.hostCpuMsPerRound)} ms per round`,
      )
    return floors
  } finally {
    await liveVm.dispose()
  }
}

/**
 * Where the results go: beside the sources for a full run, else a fresh scratch directory, so a
 * quick or partial run never replaces the committed RESULTS.md and results.json.
 */
async function resultsDirectoryFor(options: BenchOptions): Promise<string> {
  if (isFullRun(options)) return RESULTS_DIRECTORY
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  return mkdtemp(join(tmpdir(), `code-runtime-bench-${stamp}-`))
}

/** Loads every peer; the ones that cannot load here are skipped with their reason. */
async function preparePeers(skipped: { backend: string; reason: string }[]): Promise<MeasuredSubject[]> {
  const subjects: MeasuredSubject[] = []
  for (const entry of PEERS) {
    const load = await loadPeer(entry)
    if (!load.ok) {
      skipped.push({ backend: load.name, reason: load.reason })
      progress(`[${load.name}] skipped: ${load.reason}`)
      continue
    }
    subjects.push({
      subject: { id: entry.name, role: 'peer' },
      starter: load.starter,
      config: {},
      notApplicable: entry.notApplicable,
    })
  }
  return subjects
}

function describeMachine(loadAverageAtStart: number): BenchResults['machine'] {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpuModel: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    platform: `${platform()} ${arch()}`,
    totalMemoryGiB: totalmem() / 1024 ** 3,
    loadAverageAtStart,
    loadAverageAtEnd: loadavg()[0] ?? Number.NaN,
  }
}

/** The type check section, in a fresh process so its first check is one; a failure is reported, not thrown. */
async function measureTypeCheck(isQuick: boolean): Promise<BenchResults['typeCheck']> {
  progress('typecheck: measuring in a child process')
  try {
    const measurement = await measureTypeCheckInChild(isQuick ? 20 : 60)
    progress(
      `typecheck: warm median ${formatMs(measurement.warm.median)} ms, p90 ${formatMs(measurement.warm.p90)} ms, first ${formatMs(measurement.firstMs)} ms`,
    )
    return measurement
  } catch (error) {
    return { failed: describeError(error) }
  }
}

async function runBench(options: BenchOptions): Promise<void> {
  const loadAverageAtStart = loadavg()[0] ?? Number.NaN
  const plan = options.isQuick ? QUICK_PLAN : FULL_PLAN
  const workloads = WORKLOADS.filter(workload => options.workloads.includes(workload.name))
  const bigValue = options.workloads.includes('bigvalue') ? buildBigValue() : undefined
  // `--only typecheck` alone measures no runtime: no backends, floors or peers to prepare.
  const hasRuntimeWork = workloads.length > 0
  const { subjects, refillPauses, skippedBackends } = hasRuntimeWork
    ? await prepareBackends(options, plan)
    : { subjects: [], refillPauses: {}, skippedBackends: [] }
  const floors = hasRuntimeWork ? await measureAllFloors(plan) : []
  if (hasRuntimeWork) {
    subjects.push({ subject: { id: 'floor', role: 'floor' }, starter: floorStarter, config: {} })
    subjects.push(...(await preparePeers(skippedBackends)))
  }
  const pauseMs = Math.max(MIN_REFILL_PAUSE_MS, ...Object.values(refillPauses).map(refill => refill.pauseMs))
  progress(`pause before every sampled run: ${pauseMs} ms`)
  const cells: ResultCell[] = []
  for (const workload of workloads) {
    const runners = subjects.filter(measured => measured.workloads?.includes(workload.name) ?? true)
    const measurements = await measureWorkload(runners, workload, plan, pauseMs)
    runners.forEach((measured, index) => {
      const measurement = measurements[index] ?? { kind: 'failed', reason: 'no measurement' }
      cells.push({ subject: measured.subject.id, workload: workload.name, measurement })
      progress(`[${measured.subject.id}] ${workload.name}: ${formatMeasurement(measurement)}`)
    })
  }
  const typeCheck = options.sections.includes('typecheck') ? await measureTypeCheck(options.isQuick) : undefined
  const workloadDescriptions: Partial<Record<WorkloadName, string>> = {}
  for (const workload of workloads) workloadDescriptions[workload.name] = workload.description
  const results: BenchResults = {
    machine: describeMachine(loadAverageAtStart),
    options: { isQuick: options.isQuick, workloads: options.workloads, backends: options.backends },
    plan,
    workloadDescriptions,
    bigValue:
      bigValue === undefined
        ? undefined
        : {
            rows: bigValue.rows.length,
            jsonBytes: bigValue.jsonBytes,
            copyFloor: measureCopyFloor(bigValue.rows, plan.runs),
          },
    pauseMs,
    refillPauses,
    skippedBackends,
    floors,
    subjects: subjects.map(measured => measured.subject),
    cells,
    ...(typeCheck === undefined ? {} : { typeCheck }),
  }
  const nats = options.sections.includes('nats')
    ? renderNatsSection(await measureNatsSection(options.isQuick, progress))
    : ''
  const serve = options.sections.includes('serve')
    ? renderServeSection(await measureServeSection(options.isQuick, progress))
    : ''
  const tracing = options.sections.includes('tracing')
    ? renderTracingSection(await measureTracingSection(options.isQuick, progress))
    : ''
  process.stdout.write(
    renderMarkdown(results) +
      (nats === '' ? '' : `\n${nats}`) +
      (serve === '' ? '' : `\n${serve}`) +
      (tracing === '' ? '' : `\n${tracing}`),
  )
  const directory = await resultsDirectoryFor(options)
  await writeResults(results, directory)
  if (nats !== '') await writeFile(join(directory, 'NATS.md'), nats)
  // The product path belongs with the engine's numbers: RESULTS.md ends with it.
  if (serve !== '') await appendFile(join(directory, 'RESULTS.md'), `\n${serve}`)
  if (tracing !== '') await appendFile(join(directory, 'RESULTS.md'), `\n${tracing}`)
  progress(`Wrote ${join(directory, 'RESULTS.md')} and results.json`)
}

let options: BenchOptions | undefined
try {
  options = parseBenchOptions(
    process.argv.slice(2),
    BACKENDS.map(backend => backend.name),
  )
} catch (error) {
  if (!(error instanceof BenchUsageError)) throw error
  process.stderr.write(`${error.message}\n\n${USAGE}\n`)
  process.exitCode = 2
}
if (options?.isHelp === true) process.stdout.write(`${USAGE}\n`)
else if (options !== undefined) await runBench(options)
