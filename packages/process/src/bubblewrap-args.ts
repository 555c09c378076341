/**
 * The container's sandbox as bubblewrap arguments, built from plain inputs (pure, unit-tested).
 *
 * Inside: every namespace unshared (no network but a private loopback, own PID, IPC, UTS, user
 * and cgroup namespaces), no capabilities, no nested user namespaces, a new session (no terminal
 * injection), death with the host, and an empty, read-only root holding only what Node needs:
 * the Node binary and the shared libraries it links, our bootstrap packages under
 * {@link SANDBOX_ROOT}, a private `/proc`, a minimal read-only `/dev`, and a small writable
 * `/tmp`. No host home, project tree or `/etc`, and no path of them anywhere the sandbox can
 * read: our packages are mounted from a neutral copy (`sandbox-staging.ts`), and bubblewrap's
 * arguments reach it on a pipe, not on its command line, which the sandbox's init process
 * (bubblewrap itself) shows in `/proc/1/cmdline`.
 */
import type { BootstrapFiles } from './bootstrap-files.js'
import { ARGUMENTS_FD, type ChildCommand } from './child-command.js'

/** Where our files live inside the sandbox. */
export const SANDBOX_ROOT = '/code-runtime'

/** The user and group the program's process has inside the sandbox (`nobody`). */
const SANDBOX_ID = '65534'

/** A host path mounted read-only at a sandbox path. */
export interface SandboxMount {
  readonly source: string
  readonly destination: string
}

/** What the sandbox holds and runs. */
export interface BubblewrapOptions {
  readonly mounts: readonly SandboxMount[]
  /** Host folders mounted writable; only the startup snapshot's build has one (never a program's sandbox). */
  readonly writableMounts?: readonly SandboxMount[]
  /** Size of the writable `/tmp`, in MiB. */
  readonly tmpfsSizeMb: number
  /** The command run inside, with sandbox paths. */
  readonly command: readonly string[]
}

/** bubblewrap's arguments (without the `bwrap` program itself). */
export function buildBubblewrapArgs(options: BubblewrapOptions): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--uid',
    SANDBOX_ID,
    '--gid',
    SANDBOX_ID,
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
  ]
  for (const mount of options.mounts) args.push('--ro-bind', mount.source, mount.destination)
  for (const mount of options.writableMounts ?? []) args.push('--bind', mount.source, mount.destination)
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--remount-ro',
    '/dev',
    '--size',
    String(options.tmpfsSizeMb * 1024 * 1024),
    '--tmpfs',
    '/tmp',
    // Last: the root itself (and every folder bubblewrap created for the mounts) becomes read-only.
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    '--',
    ...options.command,
  )
  return args
}

/** The bootstrap as seen inside the sandbox. */
export interface SandboxBootstrap {
  /** Read-only mounts: Node, the helper binaries, their libraries, our packages. */
  readonly mounts: readonly SandboxMount[]
  /** Node inside the sandbox. */
  readonly nodePath: string
  /** The entry module inside the sandbox. */
  readonly entryPath: string
  /** What Node's permission model inside may read: our packages. */
  readonly readablePaths: readonly string[]
  /** Each helper binary (by host path) as mounted inside. */
  readonly binaries: ReadonlyMap<string, string>
}

/**
 * Runs bubblewrap with its options (`args` up to the `--` before the command) handed over on
 * {@link ARGUMENTS_FD} (`--args`): its command line, and so `/proc/1/cmdline` inside the
 * sandbox, keeps only the command, whose paths are the sandbox's own, and shows no mount source.
 */
export function buildBubblewrapCommand(bwrapPath: string, args: readonly string[]): ChildCommand {
  // bubblewrap takes the command from its real command line only, never from `--args`.
  const separator = args.indexOf('--')
  if (separator < 0) throw new Error('bubblewrap arguments without a command')
  return {
    file: bwrapPath,
    args: ['--args', String(ARGUMENTS_FD), ...args.slice(separator)],
    pipedArguments: args.slice(0, separator),
  }
}

/**
 * Lays the bootstrap out inside the sandbox: the staged copy of our packages (each at
 * `node_modules/<name>`, only its `package.json` and module folders, so Node resolves the imports
 * without any host path) at `node_modules` under {@link SANDBOX_ROOT}, Node and the helper
 * binaries under `bin/`, and each shared library at the path the dynamic loader looks for it.
 * @param stagedModules the host folder holding the staged packages (see `stagePackages`).
 * @param binaries host paths of helper programs run inside (e.g. `prlimit`).
 * @param sharedLibraries host paths of the libraries Node and the helpers link, loader included.
 */
export function planSandboxBootstrap(
  files: BootstrapFiles,
  stagedModules: string,
  binaries: readonly string[],
  sharedLibraries: readonly { path: string; realPath: string }[],
): SandboxBootstrap {
  const mounts: SandboxMount[] = []
  const nodePath = `${SANDBOX_ROOT}/bin/node`
  mounts.push({ source: files.nodePath, destination: nodePath })
  const binaryPaths = new Map<string, string>()
  for (const binary of binaries) {
    const destination = `${SANDBOX_ROOT}/bin/${binary.slice(binary.lastIndexOf('/') + 1)}`
    binaryPaths.set(binary, destination)
    mounts.push({ source: binary, destination })
  }
  const seenLibraries = new Set<string>()
  for (const library of sharedLibraries) {
    if (seenLibraries.has(library.path)) continue
    seenLibraries.add(library.path)
    mounts.push({ source: library.realPath, destination: library.path })
  }
  mounts.push({ source: stagedModules, destination: `${SANDBOX_ROOT}/node_modules` })
  return {
    mounts,
    nodePath,
    entryPath: `${SANDBOX_ROOT}/node_modules/${files.entryPackage.name}/${files.entryModule}`,
    readablePaths: [`${SANDBOX_ROOT}/node_modules`],
    binaries: binaryPaths,
  }
}
