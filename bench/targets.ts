/**
 * The targets of issue 3 for the worker-thread backend, and whether a measurement meets them.
 * Reported, never asserted.
 */
import type { Measurement } from './measure.js'
import type { WorkloadName } from './workloads.js'

/** The backend the targets are written for. */
export const TARGET_BACKEND = 'worker-thread'

/** One target: its text for the report and the number it bounds. */
export interface Target {
  readonly workload: WorkloadName
  /** As the report prints it, e.g. `≤ 2.5 ms`. */
  readonly text: string
  readonly bound: number
  readonly direction: 'at-most' | 'at-least'
}

export const TARGETS: readonly Target[] = [
  { workload: 'trivial', text: '≤ 2.5 ms', bound: 2.5, direction: 'at-most' },
  { workload: 'calls10k', text: '≤ 500 ms', bound: 500, direction: 'at-most' },
  { workload: 'bigvalue', text: '≤ 60 ms', bound: 60, direction: 'at-most' },
  { workload: 'logs', text: '≤ 30 ms', bound: 30, direction: 'at-most' },
  { workload: 'hotloop', text: '≤ 50 ms overshoot', bound: 50, direction: 'at-most' },
  { workload: 'abort', text: '≤ 10 ms settle', bound: 10, direction: 'at-most' },
  { workload: 'throughput', text: '≥ 100 runs/s', bound: 100, direction: 'at-least' },
  { workload: 'memory', text: 'RSS within ±10 %', bound: 10, direction: 'at-most' },
]

/** `runs failed`: some runs did not do the work, so the number does not say whether the target is met. */
export type TargetVerdict = 'met' | 'not met' | 'runs failed' | 'no data'

/** The number a target bounds: the median, the rate, or the absolute RSS growth. */
function targetedValue(measurement: Measurement): number | undefined {
  switch (measurement.kind) {
    case 'samples':
      return measurement.summary.count === 0 ? undefined : measurement.summary.median
    case 'rate':
      return measurement.runsPerSecond
    case 'memory':
      return Math.abs(measurement.growthPercent)
    case 'skipped':
    case 'failed':
      return undefined
  }
}

/** Whether `measurement` meets `target`; a measurement with failed runs is not judged. */
export function judgeTarget(target: Target, measurement: Measurement | undefined): TargetVerdict {
  if (measurement === undefined) return 'no data'
  const value = targetedValue(measurement)
  if (value === undefined || Number.isNaN(value)) return 'no data'
  if ('problems' in measurement && measurement.problems.failedRuns > 0) return 'runs failed'
  const isMet = target.direction === 'at-most' ? value <= target.bound : value >= target.bound
  return isMet ? 'met' : 'not met'
}

/** The target of `workload`, if the issue sets one. */
export function targetOf(workload: WorkloadName): Target | undefined {
  return TARGETS.find(target => target.workload === workload)
}
