/**
 * Turns a finished benchmark run into the Markdown report (printed and written to RESULTS.md)
 * and the raw JSON (results.json). Pure formatting: every number is measured elsewhere.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CopyFloor } from './baseline-floor.js'
import type { FloorResult } from './floor-probe.js'
import type { MeasurePlan, Measurement, RefillPause } from './measure.js'
import { renderFloors } from './report-floors.js'
import { formatMs } from './statistics.js'
import { REUSE_TARGET_PEER } from './reuse-variants.js'
import { judgeTarget, targetOf, TARGET_BACKEND } from './targets.js'
import { renderTypeCheckSection, type TypeCheckMeasurement } from './type-check.js'
import type { WorkloadName } from './workloads.js'

/** Where the run happened. */
export interface MachineInfo {
  readonly date: string
  readonly node: string
  readonly cpuModel: string
  readonly cores: number
  readonly platform: string
  readonly totalMemoryGiB: number
  /** `os.loadavg()[0]` when the run started and when it ended: how shared the machine was. */
  readonly loadAverageAtStart: number
  readonly loadAverageAtEnd: number
}

/** The command-line choices a run was made with. */
export interface RunOptionsInfo {
  readonly isQuick: boolean
  readonly workloads: readonly WorkloadName[]
  readonly backends: readonly string[]
}

/** What a column of the table measures. */
export type SubjectRole = 'backend' | 'cold' | 'reuse' | 'floor' | 'peer'

/** A column of the table: a backend as configured, its cold baseline, the floor, or a peer. */
export interface Subject {
  readonly id: string
  readonly role: SubjectRole
  /** The backend a `backend`, `cold` or `reuse` column belongs to. */
  readonly backend?: string
}

/** One measured cell. */
export interface ResultCell {
  readonly subject: string
  readonly workload: WorkloadName
  readonly measurement: Measurement
}

/** Everything a run produced; written as results.json as is. */
export interface BenchResults {
  readonly machine: MachineInfo
  readonly options: RunOptionsInfo
  readonly plan: MeasurePlan
  readonly workloadDescriptions: Readonly<Partial<Record<WorkloadName, string>>>
  readonly bigValue: { readonly rows: number; readonly jsonBytes: number; readonly copyFloor: CopyFloor } | undefined
  /** Pause before every sampled run, in ms: the largest backend's refill pause. */
  readonly pauseMs: number
  readonly refillPauses: Readonly<Record<string, RefillPause>>
  readonly skippedBackends: readonly { readonly backend: string; readonly reason: string }[]
  /** The spawn and context floors, measured before the workloads. */
  readonly floors: readonly FloorResult[]
  readonly subjects: readonly Subject[]
  readonly cells: readonly ResultCell[]
  /** The type check of Code Mode (section `typecheck`), when it ran. */
  readonly typeCheck?: TypeCheckMeasurement | { readonly failed: string }
}

function formatProblems(measurement: Measurement): string {
  if (!('problems' in measurement) || measurement.problems.failedRuns === 0) return ''
  return ` ⚠ ${measurement.problems.failedRuns} failed`
}

/** One table cell: `median / p90 ms`, `N runs/s` or the RSS growth. */
export function formatMeasurement(measurement: Measurement | undefined): string {
  if (measurement === undefined) return '—'
  switch (measurement.kind) {
    case 'samples':
      if (measurement.summary.count === 0) return `no samples${formatProblems(measurement)}`
      return `${formatMs(measurement.summary.median)} / ${formatMs(measurement.summary.p90)} ms${formatProblems(measurement)}`
    case 'rate':
      return `${measurement.runsPerSecond.toFixed(0)} runs/s${formatProblems(measurement)}`
    case 'memory': {
      const sign = measurement.growthPercent >= 0 ? '+' : ''
      return `${sign}${measurement.growthPercent.toFixed(1)} % (${measurement.rssAfterFirstMiB.toFixed(0)} → ${measurement.rssAfterTotalMiB.toFixed(0)} MiB)${formatProblems(measurement)}`
    }
    case 'skipped':
      return measurement.isNotApplicable === true ? 'n/a' : 'skipped'
    case 'failed':
      return 'failed'
  }
}

/** The first number over the second (a backend over its cold baseline or over a peer): medians for times, rates for throughput. */
export function formatRatio(measured: Measurement | undefined, cold: Measurement | undefined): string {
  if (measured === undefined || cold === undefined) return '—'
  if (measured.kind === 'samples' && cold.kind === 'samples' && cold.summary.median !== 0) {
    return `${(measured.summary.median / cold.summary.median).toFixed(2)}×`
  }
  if (measured.kind === 'rate' && cold.kind === 'rate' && cold.runsPerSecond !== 0) {
    return `${(measured.runsPerSecond / cold.runsPerSecond).toFixed(2)}×`
  }
  return '—'
}

function cellOf(results: BenchResults, subject: string, workload: WorkloadName): Measurement | undefined {
  return results.cells.find(cell => cell.subject === subject && cell.workload === workload)?.measurement
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`
}

/** The backend × workload table, with the cold baselines, the floor and the targets. */
export function renderTable(results: BenchResults): string {
  const backends = results.subjects.filter(subject => subject.role === 'backend')
  const floor = results.subjects.find(subject => subject.role === 'floor')
  const peers = results.subjects.filter(subject => subject.role === 'peer')
  const hasTargets = backends.some(subject => subject.id === TARGET_BACKEND)
  const reuseOf = (backend: Subject): Subject[] =>
    results.subjects.filter(subject => subject.role === 'reuse' && subject.backend === backend.id)
  const reusePeer = peers.find(peer => peer.id === REUSE_TARGET_PEER)
  const header = ['workload']
  for (const backend of backends) {
    header.push(backend.id, `${backend.id} cold`, `${backend.id} / cold`)
    for (const reuse of reuseOf(backend))
      header.push(reuse.id, ...(reusePeer === undefined ? [] : [`${reuse.id} / ${reusePeer.id}`]))
  }
  if (floor !== undefined) header.push(floor.id)
  for (const peer of peers) header.push(peer.id, ...(hasTargets ? [`${TARGET_BACKEND} / ${peer.id}`] : []))
  if (hasTargets) header.push(`${TARGET_BACKEND} target`)
  const lines = [tableRow(header), tableRow(header.map((_, index) => (index === 0 ? '---' : '---:')))]
  for (const workload of results.options.workloads) {
    const row: string[] = [workload]
    for (const backend of backends) {
      const measured = cellOf(results, backend.id, workload)
      const cold = cellOf(results, `${backend.id} cold`, workload)
      row.push(formatMeasurement(measured), formatMeasurement(cold), formatRatio(measured, cold))
      for (const reuse of reuseOf(backend)) {
        const reused = cellOf(results, reuse.id, workload)
        row.push(
          formatMeasurement(reused),
          ...(reusePeer === undefined ? [] : [formatRatio(reused, cellOf(results, reusePeer.id, workload))]),
        )
      }
    }
    if (floor !== undefined) row.push(formatMeasurement(cellOf(results, floor.id, workload)))
    for (const peer of peers) {
      const measured = cellOf(results, peer.id, workload)
      row.push(
        formatMeasurement(measured),
        ...(hasTargets ? [formatRatio(cellOf(results, TARGET_BACKEND, workload), measured)] : []),
      )
    }
    if (hasTargets) {
      const target = targetOf(workload)
      row.push(
        target === undefined
          ? '—'
          : `${target.text}: ${judgeTarget(target, cellOf(results, TARGET_BACKEND, workload))}`,
      )
    }
    lines.push(tableRow(row))
  }
  return lines.join('\n')
}

function renderNotes(results: BenchResults): string[] {
  const notes: string[] = []
  for (const { backend, reason } of results.skippedBackends) notes.push(`- **${backend}** skipped: ${reason}.`)
  for (const [backend, refill] of Object.entries(results.refillPauses)) {
    notes.push(
      `- ${backend}: cold \`return 1\` (spawn + run) median ${formatMs(refill.coldRunMs.median)} ms, max ${formatMs(refill.coldRunMs.max)} ms over ${refill.coldRunMs.count} runs → refill pause ${refill.pauseMs} ms.`,
    )
  }
  notes.push(`- Pause before every sampled run, in every column: ${results.pauseMs} ms.`)
  const { loadAverageAtStart, loadAverageAtEnd, cores } = results.machine
  notes.push(
    `- Load average (1 min) ${loadAverageAtStart.toFixed(1)} at the start and ${loadAverageAtEnd.toFixed(1)} at the end, on ${cores} cores: above ${cores} the machine was shared and every wall-clock number is inflated.`,
  )
  if (results.bigValue !== undefined) {
    const { rows, jsonBytes, copyFloor } = results.bigValue
    notes.push(
      `- bigvalue: ${rows} rows, ${(jsonBytes / 1024 / 1024).toFixed(2)} MiB of compact JSON. Copying it once in the host thread (median / p90): JSON round trip ${formatMs(copyFloor.jsonRoundTripMs.median)} / ${formatMs(copyFloor.jsonRoundTripMs.p90)} ms, \`structuredClone\` ${formatMs(copyFloor.structuredCloneMs.median)} / ${formatMs(copyFloor.structuredCloneMs.p90)} ms: the floor under any bridge that copies the value.`,
    )
  }
  for (const cell of results.cells) {
    const { measurement } = cell
    if (measurement.kind === 'skipped' || measurement.kind === 'failed') {
      notes.push(`- ${cell.subject} / ${cell.workload} ${measurement.kind}: ${measurement.reason}.`)
    } else if (measurement.problems.failedRuns > 0) {
      notes.push(
        `- ${cell.subject} / ${cell.workload}: ${measurement.problems.failedRuns} runs did not do the work: ${measurement.problems.reasons.join(' · ')}`,
      )
    }
    if (measurement.kind === 'rate') {
      notes.push(
        `- ${cell.subject} / ${cell.workload}: ${measurement.runs} runs in ${measurement.seconds.toFixed(1)} s by ${plural(measurement.callers, 'caller')}; latency under load median ${formatMs(measurement.latencyMs.median)} ms, p90 ${formatMs(measurement.latencyMs.p90)} ms; CPU of the host process (all its threads, child processes not included) ${formatMs(measurement.cpuMsPerRun)} ms per run.`,
      )
    }
  }
  return notes
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function renderMethod(results: BenchResults): string[] {
  const { plan } = results
  return [
    `- Sampled workloads: ${plural(plan.warmupRuns, 'warm-up run')} discarded, then ${plural(plan.runs, 'measured run')} one at a time (${plan.slowRuns} when a warm-up run took over ${plan.slowAfterMs} ms); cells are \`median / p90\`. The columns take turns run by run (backend, its cold baseline, floor, then again), so they share the machine over the same minutes even when other work on it comes and goes.`,
    '- Latency is what the caller sees: from `run()` to its settled result, with a fresh request object per run and the same `tools` namespace (`echo`, `bigValue`, `never`) in every workload.',
    '- Spawn-ahead refill: every worker serves one run and the pool spawns its replacement when a run takes one. To measure a caller who finds a worker ready, every sampled run waits first until the pool has refilled. The wait is measured, not guessed: before the workloads each backend times `return 1` with `spawnAhead: 0` (a cold spawn plus a run, which bounds the refill of one worker); its refill pause is twice the slowest of those, kept between 60 ms and 2 s, and every sampled run in every column (the floor too, so no worker of another column is still exiting during it) waits the largest refill pause. Throughput and memory have no pauses.',
    `- Throughput: one caller (throughput1) and ${plan.callers} concurrent callers (throughput) run \`return 1\` back to back for ${plan.throughputMs / 1000} s each, no pauses: the end-to-end cost of fresh workers.`,
    "- trivial-b2b: `return 1` with no pause before a run, each column measured alone (the others idle), so a pool refills only in the time the caller gives it: what a stream of agents' runs sees; trivial beside it is the same run after the refill pause.",
    "- session: `return 1` as a later run of one open session per column (`runtime.openSession()`, a first run not measured): no spawn and no fresh context on its path, beside trivial, the same program as a one-shot run. Only the repository's backends have sessions (the floor and the peers are n/a, the cold and reuse columns do not run it).",
    `- Memory: host RSS (worker threads live in the host process, so it covers them) after ${plan.memoryFirstRuns} and after ${plan.memoryTotalRuns} runs of \`return 1\` with a fresh substrate per run, and after ${plan.fastMemoryFirstRuns} and ${plan.fastMemoryTotalRuns} where runs are fast (the reuse columns, the floor), by ${plan.callers} callers, no pauses, each read after terminated workers had time to exit and a forced GC; the cell is the growth between the two readings. For backends that run programs in child processes, the children's memory is not in this number. Each column measures in a fresh Node process, so what earlier workloads left in the heap does not blur the readings.`,
    '- hotloop: `computeMs: 1000`; the sample is elapsed − 1000 ms, so in the cold column it includes the spawn (the budget starts once the worker is ready). abort: `abort()` 100 ms into a run awaiting a never-settling binding; the sample is the time from `abort()` to the settled result.',
    '- Baselines, measured in the same benchmark run: **cold** is the same backend with `spawnAhead: 0` (a cold spawn per run, same pauses); **floor** is the same program in the host thread: amaro strip-only, the same `(async function () {…})` wrapper, `vm.Script` in a fresh `vm.createContext()` per run, plain async binding functions (values are not copied, so bigvalue is a lower bound no isolating backend can reach) and a captured console; its `computeMs` is a vm timeout.',
    '- The ratio columns are backend / cold and worker-thread / peer: below 1× is faster for times, above 1× is more runs/s for throughput.',
    "- Reuse columns (backends with a reuse mode): **reuse** is `reuseWorkers: true` with no `reuseKey` (any run may get a recycled worker, a fresh context per run); **reuse-key** adds a `reuseKey` per caller (the throughput and memory callers are 4 tenants; sampled runs are one tenant), so a worker is recycled only within its tenant. hotloop and abort are not run there (both end with the worker stopped). Beside each is its ratio to the isolated-vm peer: the issue's target is reuse throughput ≥ that peer's.",
    "- Peers, measured in the same run and in the same interleaved turns as the columns above: **reference** is the seed's reference from npm (`@deepseek-ai/dsh-code-runtime-worker-thread`, a fresh worker per run, no pool; needs Node ≥ 22.13: on an older Node it runs in a child process of the Node binary named by `BENCH_PEER_NODE`, timed here, so its times include one pipe round trip and its throughput CPU leaves out the child; with neither it is skipped with a note); **isolated-vm** is a runner on the `isolated-vm` package with a fresh isolate and context per run in the host process (no spawn, none of our limits or checks). n/a marks a workload a peer does not run, with the reason in the notes.",
  ]
}

/** The whole RESULTS.md. */
export function renderMarkdown(results: BenchResults): string {
  const { machine, options } = results
  const plan = options.isQuick ? 'quick plan (`--quick`)' : 'full plan'
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${machine.date}: Node ${machine.node}, ${machine.cpuModel}, ${machine.cores} cores, ${machine.platform}, ${machine.totalMemoryGiB.toFixed(1)} GiB RAM; ${plan}; workloads: ${options.workloads.join(', ')}; backends: ${options.backends.join(', ') || 'none'}. Raw numbers: \`results.json\`.`,
    '',
    renderTable(results),
    '',
    ...renderFloors(results),
    ...(results.typeCheck === undefined
      ? []
      : 'failed' in results.typeCheck
        ? ['## Type check', '', `Failed: ${results.typeCheck.failed}`, '']
        : renderTypeCheckSection(results.typeCheck)),
    '## Notes',
    '',
    ...renderNotes(results),
    '',
    '## Workloads',
    '',
    ...options.workloads.map(workload => `- **${workload}**: ${results.workloadDescriptions[workload] ?? ''}`),
    '',
    '## Method',
    '',
    ...renderMethod(results),
    '',
  ].join('\n')
}

/** Writes RESULTS.md and results.json into `directory`. */
export async function writeResults(results: BenchResults, directory: string): Promise<void> {
  await writeFile(join(directory, 'RESULTS.md'), renderMarkdown(results))
  await writeFile(join(directory, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
}
