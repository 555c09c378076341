/**
 * The backends the benchmark knows, one table entry each, and how one is loaded. A backend whose
 * package is not built yet (or cannot run on this machine) is skipped with a note, never fatal:
 * the benchmark measures whatever is present.
 */
import {
  startCodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRuntime,
  type CodeRuntimeBackend,
  type CodeSession,
} from '@code-runtime/core'
import type { FloorName } from './floor-probe.js'

/** The config fields the benchmark varies; an absent field keeps the backend's default. */
export interface BenchRuntimeConfig {
  /** Fresh substrates kept spawned ahead; `0` is the cold-spawn baseline. */
  readonly spawnAhead?: number
  /** Compute budget of a run, in milliseconds. */
  readonly computeMs?: number
  /** The worker-thread backend's opt-in reuse mode (a recycled worker, a fresh context per run). */
  readonly reuseWorkers?: boolean
}

/** What the measuring code needs from a started runtime (a backend or the in-thread floor). */
export interface BenchRuntime {
  /**
   * `caller` is the index of the concurrent caller making the run (throughput and memory; 0 for
   * sampled runs): a column that sends a `reuseKey` per caller keys by it.
   */
  run(request: CodeRunRequest, caller?: number): Promise<CodeRunResult>
  /** Opens a persistent session (a backend of this repository; absent for the floor and the peers). */
  openSession?(): Promise<Pick<CodeSession, 'run' | 'dispose'>>
  dispose(): Promise<void>
}

/** Something the benchmark can start with a config: a loaded backend or the floor. */
export interface BenchStarter {
  start(config: BenchRuntimeConfig): Promise<BenchRuntime>
}

/** One row of the backend table: where its class lives. */
export interface BackendEntry {
  /** The name used in the report and by `--backend`. */
  readonly name: string
  readonly packageName: string
  /** The exported `CodeRuntime` class, started with `startCodeRuntime`. */
  readonly exportName: string
  /** The floor its fresh substrate's spawn is compared to: a bare thread or a bare child process. */
  readonly spawnFloor: Extract<FloorName, 'bare-worker' | 'bare-child'>
  /** A second spawn floor closer to what the backend must do (the container's bubblewrap), when there is one. */
  readonly sandboxFloor?: Extract<FloorName, 'bare-bwrap-child'>
  /** Whether it has a reuse mode (`reuseWorkers`), measured in the reuse columns. */
  readonly hasReuse?: boolean
}

/** Every backend of the repository, present or planned. */
export const BACKENDS: readonly BackendEntry[] = [
  {
    name: 'worker-thread',
    packageName: '@code-runtime/worker-thread',
    exportName: 'WorkerThreadCodeRuntime',
    spawnFloor: 'bare-worker',
    hasReuse: true,
  },
  { name: 'process', packageName: '@code-runtime/process', exportName: 'ProcessCodeRuntime', spawnFloor: 'bare-child' },
  {
    name: 'container',
    packageName: '@code-runtime/process',
    exportName: 'ContainerCodeRuntime',
    spawnFloor: 'bare-child',
    sandboxFloor: 'bare-bwrap-child',
  },
]

/** A backend whose class was imported. */
export interface LoadedBackend extends BenchStarter {
  readonly name: string
}

/** The outcome of {@link loadBackend}. */
export type BackendLoad =
  | { readonly ok: true; readonly backend: LoadedBackend }
  | { readonly ok: false; readonly name: string; readonly reason: string }

/** One line naming an error, for notes in the report. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  const firstLine = error.message.split('\n', 1)[0] ?? ''
  return typeof code === 'string' ? `${code}: ${firstLine}` : `${error.name}: ${firstLine}`
}

/** Imports a backend's package and wraps its class; never throws. */
export async function loadBackend(entry: BackendEntry): Promise<BackendLoad> {
  let exports: Record<string, unknown>
  try {
    // A variable specifier keeps the compiler from requiring packages that are not built yet.
    const specifier: string = entry.packageName
    exports = (await import(specifier)) as Record<string, unknown>
  } catch (error) {
    return {
      ok: false,
      name: entry.name,
      reason: `${entry.packageName} could not be imported (${describeError(error)})`,
    }
  }
  const exported = exports[entry.exportName]
  if (typeof exported !== 'function') {
    return { ok: false, name: entry.name, reason: `${entry.packageName} has no export ${entry.exportName}` }
  }
  const Backend = exported as CodeRuntimeBackend<BenchRuntimeConfig, CodeRuntime>
  return {
    ok: true,
    backend: {
      name: entry.name,
      async start(config) {
        const { runtime, dispose } = await startCodeRuntime(Backend, config)
        return { run: request => runtime.run(request), openSession: () => runtime.openSession(), dispose }
      },
    },
  }
}
