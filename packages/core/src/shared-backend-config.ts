/**
 * The config fields every backend of this project shares (the contract's budgets and heap cap,
 * plus the host-protection caps and the spawn-ahead count), with their defaults and ranges
 * defined once: a config that loads on one backend loads on another with the same meaning.
 */
import { MAX_TIMER_MS, readIntegerField, readNumberField, type ConfigRecord } from './config-fields.js'

/** The shared fields, fully defaulted and validated. */
export interface SharedBackendConfig {
  /** Budget of measured busy time of the substrate (a worker's busy time, a child's CPU time), in milliseconds. */
  readonly computeMs: number
  /** Wall-clock ceiling of a run, in milliseconds. */
  readonly maxWallMs: number
  /** Cap on the compact JSON of logs plus value or failure message, in bytes. */
  readonly maxOutputBytes: number
  /** Most log entries one run may print; the next ends the run `output-limit`. */
  readonly maxLogEntries: number
  /** Budget for the JSON bytes of the arguments of binding calls in flight, held on the host. */
  readonly maxPendingCallBytes: number
  /** Heap cap of each substrate (V8 old generation), in MiB. */
  readonly maxOldGenerationSizeMb: number
  /** How many fresh, never-used substrates to keep spawned ahead of demand. */
  readonly spawnAhead: number
  /** Most persistent sessions open at once (each holds a substrate); 0 turns sessions off. */
  readonly maxSessions: number
  /** How long a session may go without a run before it expires, in milliseconds (a session's `idleMs` overrides it). */
  readonly sessionIdleMs: number
}

/** The defaults of {@link SharedBackendConfig}. */
export const DEFAULT_SHARED_BACKEND_CONFIG: SharedBackendConfig = Object.freeze({
  computeMs: 60_000,
  maxWallMs: 600_000,
  maxOutputBytes: 64 * 1024 * 1024,
  maxLogEntries: 1_000_000,
  maxPendingCallBytes: 128 * 1024 * 1024,
  maxOldGenerationSizeMb: 512,
  spawnAhead: 1,
  maxSessions: 16,
  sessionIdleMs: 900_000,
})

/** Options of {@link readSharedBackendConfig}. */
export interface SharedBackendConfigOptions {
  /**
   * True when the substrate takes its heap cap as a whole number of MiB (a `--max-old-space-size`
   * flag); false when fractions work (a worker's `resourceLimits`).
   */
  readonly wholeHeapMb: boolean
}

/**
 * Reads the shared fields of a config already checked by `readConfigObject`.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field, the rule and the value.
 */
export function readSharedBackendConfig(
  label: string,
  config: ConfigRecord,
  options: SharedBackendConfigOptions,
): SharedBackendConfig {
  const defaults = DEFAULT_SHARED_BACKEND_CONFIG
  const heapRule = { default: defaults.maxOldGenerationSizeMb, min: 8, max: 65_536 }
  return {
    // Budgets take fractions, as in the reference runtime (`computeMs: 5000.5` loads there).
    computeMs: readNumberField(label, config, 'computeMs', {
      default: defaults.computeMs,
      min: 0,
      minIsExclusive: true,
      max: MAX_TIMER_MS,
    }),
    maxWallMs: readNumberField(label, config, 'maxWallMs', {
      default: defaults.maxWallMs,
      min: 0,
      minIsExclusive: true,
      max: MAX_TIMER_MS,
    }),
    // 4 bytes hold the smallest output, `[]` plus `""`.
    maxOutputBytes: readIntegerField(label, config, 'maxOutputBytes', {
      default: defaults.maxOutputBytes,
      min: 4,
      max: Number.MAX_SAFE_INTEGER,
    }),
    maxLogEntries: readIntegerField(label, config, 'maxLogEntries', {
      default: defaults.maxLogEntries,
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    }),
    maxPendingCallBytes: readIntegerField(label, config, 'maxPendingCallBytes', {
      default: defaults.maxPendingCallBytes,
      min: 1024,
      max: Number.MAX_SAFE_INTEGER,
    }),
    maxOldGenerationSizeMb: options.wholeHeapMb
      ? readIntegerField(label, config, 'maxOldGenerationSizeMb', heapRule)
      : readNumberField(label, config, 'maxOldGenerationSizeMb', heapRule),
    spawnAhead: readIntegerField(label, config, 'spawnAhead', { default: defaults.spawnAhead, min: 0, max: 64 }),
    maxSessions: readIntegerField(label, config, 'maxSessions', { default: defaults.maxSessions, min: 0, max: 4096 }),
    sessionIdleMs: readNumberField(label, config, 'sessionIdleMs', {
      default: defaults.sessionIdleMs,
      min: 0,
      minIsExclusive: true,
      max: MAX_TIMER_MS,
    }),
  }
}
