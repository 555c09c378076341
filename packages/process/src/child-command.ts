/**
 * The command lines that start a child, built from plain inputs (pure, unit-tested): Node's own
 * flags, the resource limits `prlimit` applies before Node starts, and the shell step that puts
 * a sandbox into its control groups before anything in it can fork.
 */
import type { SpawnOptions } from '@code-runtime/engine'
import { formatDescriptorList } from './inherited-descriptors.js'

/** A program and its arguments, as `spawn` takes them. */
export interface ChildCommand {
  readonly file: string
  readonly args: readonly string[]
  /**
   * Arguments the program reads from descriptor {@link ARGUMENTS_FD} instead of its command
   * line (bubblewrap's `--args`), so that they do not show in `/proc/<pid>/cmdline`.
   */
  readonly pipedArguments?: readonly string[]
}

/** The descriptor on which a program reads its {@link ChildCommand.pipedArguments}. */
export const ARGUMENTS_FD = 4

/** What the child's Node needs to know. */
export interface NodeArgsOptions {
  /** The guest entry module, as the child sees it. */
  readonly entryPath: string
  readonly maxOldGenerationSizeMb: number
  readonly maxMessageBytes: number
  /**
   * Paths Node's permission model lets the child read (nothing else: no writes, no child
   * processes, no workers, no native addons). `undefined` leaves the permission model off,
   * which only the test hook does.
   */
  readonly readablePaths: readonly string[] | undefined
  /** The permission model's flag on this Node: `--permission`, or `--experimental-permission` before 22.13. */
  readonly permissionFlag: string
  /** Descriptors the child inherits from the host without being given them; it closes them first. */
  readonly inheritedDescriptors: readonly number[]
  /**
   * A startup snapshot of the entry bundle (see `startup-snapshot.ts`), built with
   * {@link childV8Flags}: Node then restores the bundle's state instead of compiling and running
   * its top level, and the entry path is only the child's `argv[1]`.
   */
  readonly snapshotBlob?: string
}

/** The permission model's flag on the running Node. */
export function detectPermissionFlag(allowedFlags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string {
  return allowedFlags.has('--permission') ? '--permission' : '--experimental-permission'
}

/**
 * The V8 flags of every child: the heap cap, and no code from strings even in the main realm. A
 * startup snapshot must be built with exactly these (Node refuses a blob made under other V8 flags).
 */
export function childV8Flags(maxOldGenerationSizeMb: number): string[] {
  return [`--max-old-space-size=${maxOldGenerationSizeMb}`, '--disallow-code-generation-from-strings']
}

/**
 * Node's arguments: the startup snapshot if any, the permission model and its grants, the heap cap, no warnings on stderr
 * (stderr is read for crash reports), then the entry module, the frame cap it must honour and
 * the inherited descriptors it must close. Nothing is inherited from the host's own flags.
 */
export function buildNodeArgs(options: NodeArgsOptions): string[] {
  const permission =
    options.readablePaths === undefined
      ? []
      : [options.permissionFlag, ...options.readablePaths.map(path => `--allow-fs-read=${path}`)]
  const snapshot = options.snapshotBlob === undefined ? [] : ['--snapshot-blob', options.snapshotBlob]
  return [
    ...snapshot,
    ...permission,
    ...childV8Flags(options.maxOldGenerationSizeMb),
    '--no-warnings',
    options.entryPath,
    String(options.maxMessageBytes),
    formatDescriptorList(options.inheritedDescriptors),
  ]
}

/** Kernel resource limits of one child; each applies per process. */
export interface ResourceLimits {
  /** RLIMIT_AS: address space, in MiB (all memory, ArrayBuffers and WebAssembly included). */
  readonly addressSpaceMb: number
  /**
   * RLIMIT_CPU: CPU seconds; a backstop behind the host's own `computeMs` check. `unlimited` for
   * a session's child, which lives across many runs (the host checks each run's budget).
   */
  readonly cpuSeconds: number | 'unlimited'
  /** RLIMIT_FSIZE: the largest file the child may write, in MiB. */
  readonly fileSizeMb?: number
  /** RLIMIT_NPROC: tasks of the child's user; enforced for non-root users only. */
  readonly processes?: number
}

const MIB = 1024 * 1024

/** The per-child limits one spawn decides: its heap cap (whole MiB) and its CPU backstop. */
export interface SpawnLimits {
  readonly maxOldGenerationSizeMb: number
  readonly cpuSeconds: number | 'unlimited'
}

/**
 * The limits of one child: the backend's, or those its spawn asks for. A session's heap budget
 * is rounded down to whole MiB (Node's flag takes no fractions), and its child has no CPU
 * rlimit over its whole life.
 */
export function spawnLimitsFor(
  config: { readonly maxOldGenerationSizeMb: number; readonly computeMs: number },
  spawn: SpawnOptions,
): SpawnLimits {
  const heapMb =
    spawn.maxOldGenerationSizeMb === undefined
      ? config.maxOldGenerationSizeMb
      : Math.max(8, Math.floor(spawn.maxOldGenerationSizeMb))
  return {
    maxOldGenerationSizeMb: heapMb,
    cpuSeconds: spawn.persistent === true ? 'unlimited' : cpuSecondsFor(config.computeMs),
  }
}

/** The CPU backstop for a compute budget: the budget rounded up, plus a margin for start-up and GC threads. */
export function cpuSecondsFor(computeMs: number): number {
  return Math.ceil(computeMs / 1000) + 2
}

/** `prlimit` arguments that set each limit (soft = hard) and then run `command`. */
export function buildPrlimitArgs(limits: ResourceLimits, command: readonly string[]): string[] {
  const args = [`--as=${limits.addressSpaceMb * MIB}`, `--cpu=${limits.cpuSeconds}`]
  if (limits.fileSizeMb !== undefined) args.push(`--fsize=${limits.fileSizeMb * MIB}`)
  if (limits.processes !== undefined) args.push(`--nproc=${limits.processes}`)
  return [...args, '--', ...command]
}

// `$$` is the shell's own pid: it joins each group, then becomes the command (same pid), so every
// process of the sandbox starts inside the groups.
const JOIN_CGROUPS_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'

/** A `/bin/sh` command that writes its pid into each `cgroup.procs` file, then execs `command`. */
export function buildCgroupJoinCommand(procsFiles: readonly string[], command: ChildCommand): ChildCommand {
  return {
    ...command,
    file: '/bin/sh',
    args: ['-c', JOIN_CGROUPS_SCRIPT, 'sh', ...procsFiles, '--', command.file, ...command.args],
  }
}
