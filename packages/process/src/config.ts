/**
 * The config of the process and container backends, validated once when the plugin loads:
 * the fields every backend shares (core's `readSharedBackendConfig`, same defaults and ranges),
 * plus the wire's frame cap and the OS limits each child runs under. `run()` never defaults or rechecks.
 */
import {
  DEFAULT_SHARED_BACKEND_CONFIG,
  readConfigObject,
  readIntegerField,
  readSharedBackendConfig,
  type ConfigRecord,
  type SharedBackendConfig,
} from '@code-runtime/core/internal'

/**
 * A fully defaulted, validated config of {@link ProcessCodeRuntime}: the fields every backend
 * shares (see core's `SharedBackendConfig`; `computeMs` budgets the child's CPU time) and the wire and memory limits.
 */
export interface ProcessConfig extends SharedBackendConfig {
  /** Largest frame either side may send over the wire, in bytes. */
  readonly maxMessageBytes: number
  /** Address-space limit of each child process (RLIMIT_AS), in MiB: all of its memory, ArrayBuffers included. */
  readonly maxMemoryMb: number
}

/** A fully defaulted, validated config of {@link ContainerCodeRuntime}. */
export interface ContainerConfig extends ProcessConfig {
  /** Most tasks (processes and threads) the sandbox may hold at once. */
  readonly maxProcesses: number
  /** Size of the sandbox's writable `/tmp`, in MiB; also the largest file it may write. */
  readonly tmpfsSizeMb: number
}

/** The process config as users write it: every field optional. */
export type ProcessConfigInput = Partial<ProcessConfig>

/** The container config as users write it: every field optional. */
export type ContainerConfigInput = Partial<ContainerConfig>

/**
 * Address space (MiB) each Node major needs beside its heap cap, measured with `prlimit --as` as
 * the smallest limit at which Node starts and fills a 64–512 MiB heap, plus a margin of about
 * 100 MiB: this is reserved, not resident, memory (code range, heap reservations, thread stacks,
 * allocator arenas), and Node 24's V8 reserves some 400 MiB more than Node 20's and 22's.
 * Measured: Node 20 needs up to 976, Node 22 up to 996, Node 24 up to 1409.
 */
const BASELINE_MB_BY_NODE_MAJOR: readonly (readonly [major: number, baselineMb: number])[] = [
  [20, 1024],
  [22, 1088],
  [24, 1536],
]

/** The newest measured major's baseline: a guess for newer majors, which have only grown so far. */
const NEWEST_MEASURED_BASELINE_MB = 1536

/**
 * The address space a Node version reserves beyond its heap, in MiB: the value measured for the
 * nearest major at or above it; majors newer than any measured get the newest measured value.
 * @example
 * ```ts
 * nodeBaselineMemoryMb('24.11.0') // 1536
 * ```
 */
export function nodeBaselineMemoryMb(nodeVersion: string): number {
  const major = Number.parseInt(nodeVersion, 10)
  for (const [known, baselineMb] of BASELINE_MB_BY_NODE_MAJOR) if (major <= known) return baselineMb
  return NEWEST_MEASURED_BASELINE_MB
}

/**
 * Address space the running Node reserves before and beside a program's heap (1024 MiB on Node
 * 20, 1088 on 22, 1536 on 24): `maxMemoryMb` must leave this much beside the heap cap. The child
 * runs on the host's own Node binary, so the host's version is the child's.
 */
export const NODE_BASELINE_MEMORY_MB = nodeBaselineMemoryMb(process.versions.node)

/** 256 MiB: room for large binding results, far below V8's string limit. */
const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024

/** V8's largest string is just under 2^29 UTF-16 units; a frame's JSON must fit in one. */
const MAX_MAX_MESSAGE_BYTES = 512 * 1024 * 1024

/** The defaults of {@link ProcessConfig}: the fields every backend shares (core's), plus the wire and memory limits. */
export const DEFAULT_PROCESS_CONFIG: ProcessConfig = Object.freeze({
  ...DEFAULT_SHARED_BACKEND_CONFIG,
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  maxMemoryMb: 4096,
})

/** The defaults of {@link ContainerConfig}: the process defaults, plus the sandbox's task and `/tmp` limits. */
export const DEFAULT_CONTAINER_CONFIG: ContainerConfig = Object.freeze({
  ...DEFAULT_PROCESS_CONFIG,
  maxProcesses: 64,
  tmpfsSizeMb: 64,
})

function readProcessFields(label: string, config: ConfigRecord, defaults: ProcessConfig): ProcessConfig {
  // The child takes its heap cap as a `--max-old-space-size` flag: whole MiB only.
  const shared = readSharedBackendConfig(label, config, { wholeHeapMb: true })
  const { maxOldGenerationSizeMb } = shared
  return {
    ...shared,
    maxMessageBytes: readIntegerField(label, config, 'maxMessageBytes', {
      default: defaults.maxMessageBytes,
      min: 1024 * 1024,
      max: MAX_MAX_MESSAGE_BYTES,
    }),
    // The heap lives inside the address space, next to Node's own reservations (1–1.5 GiB).
    maxMemoryMb: readIntegerField(label, config, 'maxMemoryMb', {
      default: Math.max(defaults.maxMemoryMb, maxOldGenerationSizeMb + NODE_BASELINE_MEMORY_MB),
      min: maxOldGenerationSizeMb + NODE_BASELINE_MEMORY_MB,
      max: 1_048_576,
    }),
  }
}

/**
 * Validates and defaults a process-backend config.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field, the rule and the value.
 * @example
 * ```ts
 * resolveProcessConfig({ computeMs: 5_000 }).maxMemoryMb // 4096
 * ```
 */
export function resolveProcessConfig(input: unknown): ProcessConfig {
  const label = 'process'
  const config = readConfigObject(label, input, Object.keys(DEFAULT_PROCESS_CONFIG))
  return Object.freeze(readProcessFields(label, config, DEFAULT_PROCESS_CONFIG))
}

/**
 * Validates and defaults a container-backend config.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field, the rule and the value.
 * @example
 * ```ts
 * resolveContainerConfig({ maxProcesses: 32 }).tmpfsSizeMb // 64
 * ```
 */
export function resolveContainerConfig(input: unknown): ContainerConfig {
  const label = 'container'
  const config = readConfigObject(label, input, Object.keys(DEFAULT_CONTAINER_CONFIG))
  const defaults = DEFAULT_CONTAINER_CONFIG
  return Object.freeze({
    ...readProcessFields(label, config, defaults),
    // Node alone runs about a dozen threads, and each counts as a task.
    maxProcesses: readIntegerField(label, config, 'maxProcesses', {
      default: defaults.maxProcesses,
      min: 24,
      max: 4096,
    }),
    tmpfsSizeMb: readIntegerField(label, config, 'tmpfsSizeMb', { default: defaults.tmpfsSizeMb, min: 1, max: 65_536 }),
  })
}
