/**
 * The worker-thread backend's config (CONTRACT section #budget-fields plus our own knobs), validated once
 * when the plugin loads. `run()` never defaults or rechecks.
 */
import { MAX_TIMER_MS, readBooleanField, readConfigObject, readIntegerField, readNumberField } from '@code-runtime/core'

/** A fully defaulted, validated config. */
export interface WorkerThreadConfig {
  /** Budget of measured busy time of the worker, in milliseconds. */
  readonly computeMs: number
  /** Wall-clock ceiling of a run, in milliseconds. */
  readonly maxWallMs: number
  /** Cap on the compact JSON of logs plus value or failure message, in bytes. */
  readonly maxOutputBytes: number
  /** Most log entries one run may print; the next ends the run `output-limit`. */
  readonly maxLogEntries: number
  /** Budget for the JSON bytes of the arguments of binding calls in flight, held on the host. */
  readonly maxPendingCallBytes: number
  /** Heap cap of each worker (V8 old generation), in MiB. */
  readonly maxOldGenerationSizeMb: number
  /**
   * Budget of memory outside the V8 heap (array buffers, typed arrays) each worker may hold, in
   * MiB: the heap cap does not count it.
   */
  readonly maxArrayBufferMb: number
  /** How many fresh, never-used workers to keep spawned ahead of demand. */
  readonly spawnAhead: number
  /**
   * Opt-in high-throughput mode: a worker whose run ended cleanly is reused for later runs, each
   * in a fresh `vm` context. Weaker isolation between runs (they share a thread, its heap and
   * its realm); off by default.
   */
  readonly reuseWorkers: boolean
}

/** The config as users write it: every field optional. */
export type WorkerThreadConfigInput = Partial<WorkerThreadConfig>

export const DEFAULT_WORKER_THREAD_CONFIG: WorkerThreadConfig = Object.freeze({
  computeMs: 60_000,
  maxWallMs: 600_000,
  maxOutputBytes: 64 * 1024 * 1024,
  maxLogEntries: 1_000_000,
  maxPendingCallBytes: 128 * 1024 * 1024,
  maxOldGenerationSizeMb: 512,
  maxArrayBufferMb: 256,
  spawnAhead: 1,
  reuseWorkers: false,
})

const FIELDS = Object.keys(DEFAULT_WORKER_THREAD_CONFIG)
const LABEL = 'worker-thread'

/**
 * Validates and defaults a worker-thread config.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field, the rule and the value.
 */
export function resolveWorkerThreadConfig(input: unknown): WorkerThreadConfig {
  const config = readConfigObject(LABEL, input, FIELDS)
  const defaults = DEFAULT_WORKER_THREAD_CONFIG
  return Object.freeze({
    // Budgets and the heap cap take fractions, as in the reference: `resourceLimits` accepts them.
    computeMs: readNumberField(LABEL, config, 'computeMs', { default: defaults.computeMs, min: 0, minIsExclusive: true, max: MAX_TIMER_MS }),
    maxWallMs: readNumberField(LABEL, config, 'maxWallMs', { default: defaults.maxWallMs, min: 0, minIsExclusive: true, max: MAX_TIMER_MS }),
    maxOutputBytes: readIntegerField(LABEL, config, 'maxOutputBytes', { default: defaults.maxOutputBytes, min: 4, max: Number.MAX_SAFE_INTEGER }),
    maxLogEntries: readIntegerField(LABEL, config, 'maxLogEntries', { default: defaults.maxLogEntries, min: 1, max: Number.MAX_SAFE_INTEGER }),
    maxPendingCallBytes: readIntegerField(LABEL, config, 'maxPendingCallBytes', { default: defaults.maxPendingCallBytes, min: 1024, max: Number.MAX_SAFE_INTEGER }),
    maxOldGenerationSizeMb: readNumberField(LABEL, config, 'maxOldGenerationSizeMb', { default: defaults.maxOldGenerationSizeMb, min: 8, max: 65_536 }),
    maxArrayBufferMb: readNumberField(LABEL, config, 'maxArrayBufferMb', { default: defaults.maxArrayBufferMb, min: 16, max: 1_048_576 }),
    spawnAhead: readIntegerField(LABEL, config, 'spawnAhead', { default: defaults.spawnAhead, min: 0, max: 64 }),
    reuseWorkers: readBooleanField(LABEL, config, 'reuseWorkers', defaults.reuseWorkers),
  })
}
