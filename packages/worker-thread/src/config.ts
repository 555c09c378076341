/**
 * The worker-thread backend's config (CONTRACT section #budget-fields plus our own knobs), validated once
 * when the plugin loads. `run()` never defaults or rechecks.
 */
import {
  DEFAULT_SHARED_BACKEND_CONFIG,
  readBooleanField,
  readConfigObject,
  readNumberField,
  readSharedBackendConfig,
  type SharedBackendConfig,
} from '@code-runtime/core/internal'

/** A fully defaulted, validated config: the fields every backend shares (see core's `SharedBackendConfig`) and this backend's own. */
export interface WorkerThreadConfig extends SharedBackendConfig {
  /**
   * Budget of memory outside the V8 heap (array buffers, typed arrays) each worker may hold, in
   * MiB: the heap cap does not count it.
   */
  readonly maxArrayBufferMb: number
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
    maxArrayBufferMb: readNumberField(LABEL, config, 'maxArrayBufferMb', {
      default: defaults.maxArrayBufferMb,
      min: 16,
      max: 1_048_576,
    }),
    reuseWorkers: readBooleanField(LABEL, config, 'reuseWorkers', defaults.reuseWorkers),
  })
}
