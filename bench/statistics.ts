/**
 * Summaries of repeated measurements: median and p90 are what the report prints; the rest goes
 * to results.json so a reader can judge the spread.
 */

/** Summary of a series of samples, in the samples' own unit. */
export interface SampleSummary {
  readonly count: number
  readonly median: number
  readonly p90: number
  readonly min: number
  readonly max: number
  readonly mean: number
}

/**
 * The `fraction` quantile of `sorted` (ascending), interpolated linearly between the two nearest
 * ranks, so the median of an even count is the mean of the middle two.
 */
export function quantile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN
  const position = (sorted.length - 1) * fraction
  const lowerIndex = Math.floor(position)
  const upperIndex = Math.ceil(position)
  const lower = sorted[lowerIndex] ?? Number.NaN
  const upper = sorted[upperIndex] ?? Number.NaN
  return lower + (upper - lower) * (position - lowerIndex)
}

/** Median, p90, min, max and mean of `samples` (not modified). */
export function summarizeSamples(samples: readonly number[]): SampleSummary {
  const sorted = [...samples].sort((left, right) => left - right)
  const total = sorted.reduce((sum, sample) => sum + sample, 0)
  return {
    count: sorted.length,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
  }
}

/** Milliseconds with about three significant digits. */
export function formatMs(value: number): string {
  const magnitude = Math.abs(value)
  const decimals = magnitude < 1 ? 3 : magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0
  return value.toFixed(decimals)
}
