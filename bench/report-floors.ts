/**
 * The floors section of the report: each floor as measured, then every backend's figures as
 * ratios to their floor (a cold run to its spawn floor, a warm or back-to-back run to the
 * live-worker vm floor, a fresh substrate per run at 1 and 4 callers to the spawn floor, and host
 * CPU per run to the spawn floor's host CPU).
 */
import { BACKENDS } from './backends.js'
import type { FloorName, FloorResult } from './floor-probe.js'
import type { Measurement } from './measure.js'
import type { BenchResults } from './report.js'
import { formatMs } from './statistics.js'
import type { WorkloadName } from './workloads.js'

/**
 * What one run of `measurement` costs the caller, in ms: the median of a sampled workload, or
 * the wall time per run of a throughput workload (1000 / runs per second); `undefined` when it
 * has no such number.
 */
export function msPerRun(measurement: Measurement | undefined): number | undefined {
  if (measurement?.kind === 'samples' && measurement.summary.count > 0) return measurement.summary.median
  if (measurement?.kind === 'rate' && measurement.runsPerSecond > 0) return 1_000 / measurement.runsPerSecond
  return undefined
}

/** `value ms = N×` of the floor, or `—` when either is missing or the floor is not positive. */
export function formatAgainstFloor(value: number | undefined, floor: number | undefined, unit = 'ms'): string {
  if (value === undefined || floor === undefined || !(floor > 0)) return '—'
  return `${formatMs(value)} ${unit} = ${(value / floor).toFixed(2)}×`
}

/**
 * A cold run against the backend's sandbox floor, named: `—` for a backend without one, and
 * `not measured` when the floor could not run here (no bubblewrap).
 */
export function formatAgainstSandboxFloor(
  coldMs: number | undefined,
  floorName: FloorName | undefined,
  floorMs: number | undefined,
): string {
  if (floorName === undefined) return '—'
  if (floorMs === undefined) return `${floorName} not measured`
  return `${formatAgainstFloor(coldMs, floorMs)} (${floorName})`
}

function floorOf(results: BenchResults, name: FloorName): FloorResult | undefined {
  return results.floors.find(floor => floor.name === name)
}

function measurementOf(results: BenchResults, subject: string, workload: WorkloadName): Measurement | undefined {
  return results.cells.find(cell => cell.subject === subject && cell.workload === workload)?.measurement
}

function renderFloorList(results: BenchResults): string[] {
  return results.floors.map(floor => {
    const other =
      floor.otherCpuMsPerRound === undefined
        ? ''
        : `; ${floor.otherCpuCovers ?? 'other'}: ${formatMs(floor.otherCpuMsPerRound)} ms`
    return `- **${floor.name}**: ${floor.description}. Median / p90 ${formatMs(floor.wallMs.median)} / ${formatMs(floor.wallMs.p90)} ms over ${floor.wallMs.count} rounds; CPU per round, ${floor.cpuCovers}: ${formatMs(floor.hostCpuMsPerRound)} ms${other}.`
  })
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`
}

function renderRatioTable(results: BenchResults): string[] {
  const vmFloor = floorOf(results, 'live-worker-vm')?.wallMs.median
  const header = [
    'backend',
    'spawn floor (reuse: vm floor)',
    'cold `return 1`',
    'cold `return 1` / sandbox floor',
    'trivial (after pause) / vm floor',
    'trivial-b2b / vm floor',
    'throughput1 per run',
    'throughput per run',
    'host CPU per run (throughput1)',
  ]
  const lines = [tableRow(header), tableRow(header.map((_, index) => (index < 2 ? '---' : '---:')))]
  for (const subject of results.subjects.filter(
    candidate => candidate.role === 'backend' || candidate.role === 'reuse',
  )) {
    // A reuse column recycles a live worker: no spawn on its path, so its per-run figures are
    // compared to the live-worker vm floor, and it has no cold run.
    const isReuse = subject.role === 'reuse'
    const spawnFloorName = BACKENDS.find(entry => entry.name === subject.backend)?.spawnFloor
    const runFloorName = isReuse ? 'live-worker-vm' : spawnFloorName
    const runFloor = runFloorName === undefined ? undefined : floorOf(results, runFloorName)
    const runFloorMs = runFloor?.wallMs.median
    const sandboxFloorName = BACKENDS.find(entry => entry.name === subject.backend)?.sandboxFloor
    const sandboxMs = sandboxFloorName === undefined ? undefined : floorOf(results, sandboxFloorName)?.wallMs.median
    const single = measurementOf(results, subject.id, 'throughput1')
    const coldMs = msPerRun(measurementOf(results, `${subject.id} cold`, 'trivial'))
    lines.push(
      tableRow([
        subject.id,
        runFloorName ?? '—',
        isReuse ? '—' : formatAgainstFloor(coldMs, runFloorMs),
        isReuse ? '—' : formatAgainstSandboxFloor(coldMs, sandboxFloorName, sandboxMs),
        formatAgainstFloor(msPerRun(measurementOf(results, subject.id, 'trivial')), vmFloor),
        formatAgainstFloor(msPerRun(measurementOf(results, subject.id, 'trivial-b2b')), vmFloor),
        formatAgainstFloor(msPerRun(single), runFloorMs),
        formatAgainstFloor(msPerRun(measurementOf(results, subject.id, 'throughput')), runFloorMs),
        formatAgainstFloor(single?.kind === 'rate' ? single.cpuMsPerRun : undefined, runFloor?.hostCpuMsPerRound),
      ]),
    )
  }
  return lines
}

/** The `## Floors` section of RESULTS.md, or nothing when no floor was measured. */
export function renderFloors(results: BenchResults): string[] {
  if (results.floors.length === 0) return []
  return [
    '## Floors',
    '',
    'Measured in the same run, before the workloads, their rounds interleaved; each backend figure below is `value = ratio` to its floor (1.00× is the floor; lower is not possible without skipping what the floor does).',
    '',
    ...renderFloorList(results),
    '',
    ...renderRatioTable(results),
    '',
    "- Cold `return 1` is the cold column's trivial (a spawn per run, after the pause) against the backend's spawn floor, and for the container also against `bare-bwrap-child`, the bare child inside bubblewrap with the container's namespaces (`not measured` when bubblewrap could not run here); trivial and trivial-b2b are against the live-worker vm floor (no spawn on the path); throughput per run is 1000 / runs per second, a fresh substrate per run, against the spawn floor (at 4 callers on fewer cores the runs overlap, so the wall time per run can fall below one spawn).",
    '- The reuse rows (a recycled worker, no spawn on the path) have the live-worker vm floor as their floor for every figure, and no cold run.',
    "- Host CPU per run counts every thread of the host process, not child processes: for worker-thread it is the whole cost of a fresh worker against the bare worker's; for process and container it is only the host's side of a child (the children's own CPU would need /proc readings of each child before it exits, which the bench does not take), against the bare child's host side.",
    '',
  ]
}
