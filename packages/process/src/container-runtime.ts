/**
 * The container backend: the process backend's child, inside a bubblewrap sandbox (see
 * `bubblewrap-args.ts`) with per-process rlimits set inside it and, where the host lets us,
 * per-sandbox control groups for process count and total memory.
 */
import { Service, type Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { RunEngine, runLimitsOf, type SpawnOptions } from '@code-runtime/engine'
import { locateBootstrapFiles, type TestOnlyEntry } from './bootstrap-files.js'
import { buildBubblewrapArgs, buildBubblewrapCommand, planSandboxBootstrap, SANDBOX_ROOT } from './bubblewrap-args.js'
import { SandboxGroupParent, type SandboxGroups } from './cgroup-limits.js'
import {
  buildCgroupJoinCommand,
  buildNodeArgs,
  buildPrlimitArgs,
  childV8Flags,
  detectPermissionFlag,
  spawnLimitsFor,
  type ChildCommand,
  type SpawnLimits,
} from './child-command.js'
import { ChildSubstrateFactory, type ChildLaunch } from './child-substrate.js'
import { resolveContainerConfig, type ContainerConfig, type ContainerConfigInput } from './config.js'
import { findProgram, listSharedLibraries } from './host-programs.js'
import { requireProcessHost } from './process-runtime.js'
import { bubblewrapMissingError, probeSandbox } from './sandbox-probe.js'
import { stagePackages } from './sandbox-staging.js'
import { buildSnapshotArgs, StartupSnapshot, type SnapshotPlace } from './startup-snapshot.js'

/** A started container engine and what it owns besides its substrates. */
export interface ContainerEngine {
  readonly engine: RunEngine
  /** The cgroup controllers in use (empty when only rlimits apply). */
  readonly cgroupControllers: readonly string[]
  /** Disposes the engine, then removes the control groups and the staged packages. */
  dispose(): Promise<void>
}

/**
 * Builds the container engine: finds bubblewrap, lays out the sandbox, proves it starts Node,
 * and opens the control groups if the host allows. Internal: the runtime class builds it from
 * config; the package's tests pass a test-only entry.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_UNAVAILABLE` with how to install or enable bubblewrap.
 */
export async function createContainerEngine(
  config: ContainerConfig,
  testOnlyEntry?: TestOnlyEntry,
  snapshotPlace?: SnapshotPlace,
): Promise<ContainerEngine> {
  const prlimit = requireProcessHost('container')
  const bwrap = findProgram('bwrap')
  if (bwrap === undefined) throw bubblewrapMissingError()
  const files = locateBootstrapFiles(testOnlyEntry?.entry)
  const libraries = (await Promise.all([listSharedLibraries(files.nodePath), listSharedLibraries(prlimit)])).flat()
  const staged = await stagePackages(files)
  let groups: SandboxGroupParent | undefined
  try {
    const sandbox = planSandboxBootstrap(files, staged.modulesFolder, [prlimit], libraries)
    const sandboxPrlimit = sandbox.binaries.get(prlimit) as string
    const bubblewrapArgs = (command: readonly string[]): string[] =>
      buildBubblewrapArgs({ mounts: sandbox.mounts, tmpfsSizeMb: config.tmpfsSizeMb, command })
    await probeSandbox(bwrap, bubblewrapArgs([sandbox.nodePath, '-e', '0']))

    const readablePaths = testOnlyEntry?.withoutPermissionModel === true ? undefined : sandbox.readablePaths
    const permissionFlag = detectPermissionFlag()
    const v8Flags = childV8Flags(config.maxOldGenerationSizeMb)
    // Built inside the sandbox, from the bundle at its sandbox path: the blob holds no host path.
    const snapshot =
      testOnlyEntry === undefined
        ? StartupSnapshot.prepare(
            {
              nodePath: files.nodePath,
              entryPath: sandbox.entryPath,
              bundlePath: `${files.entryPackage.root}/${files.entryModule}`,
              v8Flags,
              buildCommand: (folder, partialName) => [
                bwrap,
                ...buildBubblewrapArgs({
                  mounts: sandbox.mounts,
                  writableMounts: [{ source: folder, destination: SNAPSHOT_BUILD_FOLDER }],
                  tmpfsSizeMb: config.tmpfsSizeMb,
                  command: [
                    sandbox.nodePath,
                    ...buildSnapshotArgs(v8Flags, `${SNAPSHOT_BUILD_FOLDER}/${partialName}`, sandbox.entryPath),
                  ],
                }),
              ],
            },
            snapshotPlace,
          )
        : undefined
    const sandboxCommand: SandboxCommand = (inheritedDescriptors, snapshotBlob, limits) => {
      const nodeArgs = buildNodeArgs({
        entryPath: sandbox.entryPath,
        maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb,
        maxMessageBytes: config.maxMessageBytes,
        readablePaths,
        permissionFlag,
        inheritedDescriptors,
        ...(snapshotBlob === undefined ? {} : { snapshotBlob: SANDBOX_SNAPSHOT_PATH }),
      })
      // Set inside the sandbox, so RLIMIT_NPROC counts the sandbox's own user namespace only.
      const limitedNode = [
        sandboxPrlimit,
        ...buildPrlimitArgs(
          {
            addressSpaceMb: config.maxMemoryMb,
            cpuSeconds: limits.cpuSeconds,
            fileSizeMb: config.tmpfsSizeMb,
            processes: config.maxProcesses,
          },
          [sandbox.nodePath, ...nodeArgs],
        ),
      ]
      // The blob, read-only like every other mount: no sandbox can change what later ones start from.
      const mounts =
        snapshotBlob === undefined
          ? sandbox.mounts
          : [...sandbox.mounts, { source: snapshotBlob, destination: SANDBOX_SNAPSHOT_PATH }]
      return buildBubblewrapCommand(
        bwrap,
        buildBubblewrapArgs({ mounts, tmpfsSizeMb: config.tmpfsSizeMb, command: limitedNode }),
      )
    }
    groups = SandboxGroupParent.open({ maxProcesses: config.maxProcesses, maxMemoryMb: config.maxMemoryMb })
    const engine = new RunEngine({
      factory: new ChildSubstrateFactory({
        launch: launcher(
          sandboxCommand,
          spawn => spawnLimitsFor(config, spawn),
          snapshot === undefined ? undefined : { blob: snapshot, heapMb: config.maxOldGenerationSizeMb },
          groups,
        ),
        pipesArguments: true,
        maxMessageBytes: config.maxMessageBytes,
      }),
      ...runLimitsOf(config),
    })
    return {
      engine,
      cgroupControllers: groups?.controllers ?? [],
      dispose: async () => {
        await engine.dispose()
        groups?.close()
        await staged.remove()
      },
    }
  } catch (error) {
    groups?.close()
    await staged.remove()
    throw error
  }
}

/** Where the blob is mounted inside a sandbox, and where the private folder is while it is built. */
const SANDBOX_SNAPSHOT_PATH = `${SANDBOX_ROOT}/startup.blob`
const SNAPSHOT_BUILD_FOLDER = `${SANDBOX_ROOT}/snapshot-build`

/** The command of one sandbox: its inherited descriptors, the startup snapshot if any, its limits. */
type SandboxCommand = (
  inheritedDescriptors: readonly number[],
  snapshotBlob: string | undefined,
  limits: SpawnLimits,
) => ChildCommand

/**
 * Launches each sandbox, from the startup snapshot once it is usable (unless the spawn asks for a
 * heap other than the one the snapshot was made with: a session's), inside fresh control groups
 * when the host gave us any.
 */
function launcher(
  sandboxCommand: SandboxCommand,
  limitsOf: (spawn: SpawnOptions) => SpawnLimits,
  snapshot: { readonly blob: StartupSnapshot; readonly heapMb: number } | undefined,
  groups: SandboxGroupParent | undefined,
): (inheritedDescriptors: readonly number[], spawn: SpawnOptions) => ChildLaunch {
  return (inheritedDescriptors, spawn) => {
    const limits = limitsOf(spawn)
    const snapshotBlob =
      snapshot !== undefined && limits.maxOldGenerationSizeMb === snapshot.heapMb
        ? snapshot.blob.usableBlob()
        : undefined
    const command = sandboxCommand(inheritedDescriptors, snapshotBlob, limits)
    const startFailed = (): boolean => snapshot?.blob.startFailed(snapshotBlob) ?? false
    if (groups === undefined)
      return {
        command,
        rootIsMonitor: true,
        wasOutOfMemory: () => false,
        release: () => Promise.resolve(),
        startFailed,
      }
    const sandboxGroups: SandboxGroups = groups.create()
    return {
      command: buildCgroupJoinCommand(sandboxGroups.procsFiles, command),
      rootIsMonitor: true,
      wasOutOfMemory: () => sandboxGroups.hadOutOfMemoryKill(),
      release: () => sandboxGroups.remove(),
      startFailed,
    }
  }
}

/**
 * Runs programs in a fresh child process per run inside a bubblewrap sandbox: no network, no
 * host files, its own PID namespace, memory, CPU and process limits. The backend for untrusted
 * code. Load it with `ctx.plugin(ContainerCodeRuntime, config)` or
 * `startCodeRuntime(ContainerCodeRuntime, config)`; loading fails when bubblewrap cannot run here.
 *
 * @example
 * ```ts
 * const { runtime, dispose } = await startCodeRuntime(ContainerCodeRuntime, { maxMemoryMb: 2048 })
 * console.log(await runtime.run({ program: 'return 6 * 7', bindings: [] })) // { logs: [], value: 42 }
 * await dispose()
 * ```
 */
export class ContainerCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'container'
  /** The validated, fully defaulted config. */
  readonly config: ContainerConfig
  private readonly started: Promise<ContainerEngine>

  /**
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field and the value; plugin
   *   load then fails with `CODE_RUNTIME_UNAVAILABLE` when bubblewrap cannot run here.
   */
  constructor(ctx: Context, config?: ContainerConfigInput) {
    super(ctx)
    this.config = resolveContainerConfig(config)
    this.started = createContainerEngine(this.config)
    // The failure is reported by plugin load (below); this only marks it handled.
    this.started.catch(() => {})
    ctx.effect(
      () => () =>
        this.started.then(
          started => started.dispose(),
          () => {},
        ),
      'codeRuntime.dispose',
    )
  }

  /** Plugin load waits for the sandbox check. */
  async [Service.init](): Promise<void> {
    await this.started
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    const started = await this.started
    return started.engine.run(request)
  }

  /** A persistent session in a sandboxed child of its own; see CONTRACT section #sessions. */
  override async openSession(options?: CodeSessionOptions): Promise<CodeSession> {
    const started = await this.started
    return started.engine.openSession(options)
  }
}
