/**
 * The worker-thread backend's config (CONTRACT section 5 plus our own knobs), validated once
 * when the plugin loads. `run()` never defaults or rechecks.
 */
import { DEFAULT_SHARED_BACKEND_CONFIG, MAX_TIMER_MS, readBooleanField, readConfigObject, readNumberField, readSharedBackendConfig } from '@code-runtime/core'

/** The largest timer delay Node accepts: core's, re-exported where this backend's config names it. */
export { MAX_TIMER_MS }

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

/** The defaults: the fields every backend shares (core's), plus this backend's own. */
export const DEFAULT_WORKER_THREAD_CONFIG: WorkerThreadConfig = Object.freeze({
  ...DEFAULT_SHARED_BACKEND_CONFIG,
  maxArrayBufferMb: 256,
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
    // The heap cap takes fractions too: `resourceLimits` accepts them.
    ...readSharedBackendConfig(LABEL, config, { wholeHeapMb: false }),
    maxArrayBufferMb: readNumberField(LABEL, config, 'maxArrayBufferMb', { default: defaults.maxArrayBufferMb, min: 16, max: 1_048_576 }),
    reuseWorkers: readBooleanField(LABEL, config, 'reuseWorkers', defaults.reuseWorkers),
  })
}
