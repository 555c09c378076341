/**
 * The process backend: each run gets a fresh child Node process (spawned ahead of time) with an
 * empty environment, a heap cap, an address-space limit, Node's permission model granting
 * nothing but reading its own bootstrap, and its own process group, killed whole when the run
 * ends. Inside the child, the same guest runtime as the worker-thread backend.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  CodeRuntimeError,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { RunEngine, runLimitsOf, type SpawnOptions } from '@code-runtime/engine'
import { listReadablePaths, locateBootstrapFiles, type TestOnlyEntry } from './bootstrap-files.js'
import {
  buildNodeArgs,
  buildPrlimitArgs,
  childV8Flags,
  detectPermissionFlag,
  spawnLimitsFor,
  type ChildCommand,
} from './child-command.js'
import { ChildSubstrateFactory, type ChildLaunch } from './child-substrate.js'
import { resolveProcessConfig, type ProcessConfig, type ProcessConfigInput } from './config.js'
import { findProgram } from './host-programs.js'
import { canReadProcessTree } from './process-tree.js'
import { StartupSnapshot, type SnapshotPlace } from './startup-snapshot.js'

/** Checks what every child-process backend needs from the host; returns the `prlimit` path. */
export function requireProcessHost(backend: string): string {
  if (process.platform !== 'linux' || !canReadProcessTree()) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_UNAVAILABLE',
      `The ${backend} backend needs Linux: it measures each child's CPU time in /proc. Use the worker-thread backend on this system.`,
    )
  }
  const prlimit = findProgram('prlimit')
  if (prlimit === undefined) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_UNAVAILABLE',
      `The ${backend} backend needs prlimit (from util-linux) to limit each child's memory. Install it with \`apt-get install util-linux\` or your system's package manager.`,
    )
  }
  return prlimit
}

/**
 * The run engine of the process backend. Internal: the runtime class builds it from config; the
 * package's tests pass a test-only entry, or where the startup snapshot is kept.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_UNAVAILABLE` when this host cannot run it.
 */
export function createProcessEngine(
  config: ProcessConfig,
  testOnlyEntry?: TestOnlyEntry,
  snapshotPlace?: SnapshotPlace,
): RunEngine {
  const prlimit = requireProcessHost('process')
  const files = locateBootstrapFiles(testOnlyEntry?.entry)
  const readablePaths = testOnlyEntry?.withoutPermissionModel === true ? undefined : listReadablePaths(files)
  const permissionFlag = detectPermissionFlag()
  const entryPath = `${files.entryPackage.root}/${files.entryModule}`
  // Only the real bundle is snapshotted: a test-only entry starts the plain way.
  const snapshot =
    testOnlyEntry === undefined
      ? StartupSnapshot.prepare(
          { nodePath: files.nodePath, entryPath, v8Flags: childV8Flags(config.maxOldGenerationSizeMb) },
          snapshotPlace,
        )
      : undefined
  const launch = (inheritedDescriptors: readonly number[], spawn: SpawnOptions): ChildLaunch => {
    const limits = spawnLimitsFor(config, spawn)
    // The snapshot was made with the backend's heap flag; a session with a heap of its own starts plainly.
    const snapshotBlob =
      limits.maxOldGenerationSizeMb === config.maxOldGenerationSizeMb ? snapshot?.usableBlob() : undefined
    const nodeArgs = buildNodeArgs({
      entryPath,
      maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb,
      maxMessageBytes: config.maxMessageBytes,
      readablePaths,
      permissionFlag,
      inheritedDescriptors,
      ...(snapshotBlob === undefined ? {} : { snapshotBlob }),
    })
    const command: ChildCommand = {
      file: prlimit,
      args: buildPrlimitArgs({ addressSpaceMb: config.maxMemoryMb, cpuSeconds: limits.cpuSeconds }, [
        files.nodePath,
        ...nodeArgs,
      ]),
    }
    return {
      command,
      rootIsMonitor: false,
      wasOutOfMemory: () => false,
      release: () => Promise.resolve(),
      startFailed: () => snapshot?.startFailed(snapshotBlob) ?? false,
    }
  }
  return new RunEngine({
    factory: new ChildSubstrateFactory({ launch, maxMessageBytes: config.maxMessageBytes }),
    ...runLimitsOf(config),
  })
}

/**
 * Runs programs in child processes, one fresh child per run. Load it with
 * `ctx.plugin(ProcessCodeRuntime, config)` or `startCodeRuntime(ProcessCodeRuntime, config)`.
 *
 * A crash, a fatal allocation or runaway memory ends the child, never the host. Not a sandbox
 * against an escaped program: Node's permission model is in-process and does not block the
 * network on Node 20. Use {@link ContainerCodeRuntime} for untrusted multi-tenant code.
 *
 * @example
 * ```ts
 * const { runtime, dispose } = await startCodeRuntime(ProcessCodeRuntime, { computeMs: 5_000 })
 * console.log(await runtime.run({ program: 'return 6 * 7', bindings: [] })) // { logs: [], value: 42 }
 * await dispose()
 * ```
 */
export class ProcessCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'process'
  /** The validated, fully defaulted config. */
  readonly config: ProcessConfig
  private readonly engine: RunEngine

  /**
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field and the value, or
   *   `CODE_RUNTIME_UNAVAILABLE` when this host cannot run child processes this way.
   */
  constructor(ctx: Context, config?: ProcessConfigInput) {
    super(ctx)
    this.config = resolveProcessConfig(config)
    this.engine = createProcessEngine(this.config)
    ctx.effect(() => () => this.engine.dispose(), 'codeRuntime.dispose')
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    return this.engine.run(request)
  }

  /** A persistent session in a child process of its own; see CONTRACT section #sessions. */
  override openSession(options?: CodeSessionOptions): Promise<CodeSession> {
    return this.engine.openSession(options)
  }
}
