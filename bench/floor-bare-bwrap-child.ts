/**
 * The bare-bwrap-child floor: the bare child's `node -e` script (it writes its CPU time on its
 * stdout pipe at once) started inside bubblewrap with the container backend's namespaces and
 * root layout, timed to that first byte. It is the honest floor of the container backend: the
 * bare child leaves out the namespace, mount and `/proc` setup that any bubblewrap sandbox pays.
 *
 * The flags are the container backend's (`packages/process/src/bubblewrap-args.ts`, not exported
 * by the package, so they are repeated here); the root holds only the Node binary and its shared
 * libraries. Left out, as ours rather than bubblewrap's: the staged packages, `prlimit` inside,
 * the `--args` pipe, the cgroup-joining shell and the permission model.
 */
import { execFile, spawn } from 'node:child_process'
import { accessSync, constants, realpathSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import type { FloorProbe, FloorRound } from './floor-probe.js'

const WRITE_AT_ONCE = 'const cpu = process.cpuUsage(); process.stdout.write(String(cpu.user + cpu.system))'
const BWRAP = '/usr/bin/bwrap'
const SANDBOX_NODE = '/code-runtime/bin/node'
/** The container backend's default `/tmp` size, in MiB. */
const TMPFS_MB = 64

/** The libraries `node` links, as `{ path, realPath }` (the loader looks them up by `path`). */
async function nodeLibraries(): Promise<{ path: string; realPath: string }[]> {
  const { stdout } = await promisify(execFile)('ldd', [process.execPath], { env: {} })
  const libraries: { path: string; realPath: string }[] = []
  for (const line of stdout.split('\n')) {
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)\s*$/.exec(line.trim())?.[1]
    if (path !== undefined) libraries.push({ path, realPath: realpathSync(path) })
  }
  return libraries
}

/** The container backend's bubblewrap arguments around `node -e`, its root holding Node only. */
function bubblewrapArgs(libraries: readonly { path: string; realPath: string }[]): string[] {
  const mounts = [
    ['--ro-bind', process.execPath, SANDBOX_NODE],
    ...libraries.map(library => ['--ro-bind', library.realPath, library.path]),
  ]
  return [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    ...mounts.flat(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--remount-ro',
    '/dev',
    '--size',
    String(TMPFS_MB * 1024 * 1024),
    '--tmpfs',
    '/tmp',
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    '--',
    SANDBOX_NODE,
    '-e',
    WRITE_AT_ONCE,
  ]
}

async function spawnToFirstByte(args: readonly string[]): Promise<FloorRound> {
  const startedAt = performance.now()
  const child = spawn(BWRAP, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  let firstAt: number | undefined
  let output = ''
  let errors = ''
  child.stdout.on('data', (chunk: Buffer) => {
    firstAt ??= performance.now()
    output += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8')
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('end', resolve)
    child.once('error', reject)
  })
  const code = await exited
  if (firstAt === undefined)
    throw new Error(`the bare bwrap child wrote nothing (exit ${String(code)}): ${errors.trim()}`)
  return { wallMs: firstAt - startedAt, otherCpuMs: Number(output) / 1_000 }
}

/**
 * The floor, or the reason it cannot run here (no bubblewrap, or a host that refuses its
 * namespaces): one trial round decides.
 */
export async function startBareBwrapChildFloor(): Promise<FloorProbe | { readonly skipped: string }> {
  try {
    accessSync(BWRAP, constants.X_OK)
  } catch {
    return { skipped: `bare-bwrap-child: no bubblewrap at ${BWRAP}` }
  }
  try {
    const args = bubblewrapArgs(await nodeLibraries())
    await spawnToFirstByte(args)
    return {
      name: 'bare-bwrap-child',
      description:
        "`bwrap` with the container backend's namespaces, flags and a read-only root holding Node and its libraries, around the bare child's `node -e` script: spawn to its first byte",
      cpuCovers: 'the host process only (spawn, pipe, exit)',
      otherCpuCovers: "the Node child's own CPU up to its write, as it reports it (not bubblewrap's)",
      round: () => spawnToFirstByte(args),
      dispose: () => Promise.resolve(),
    }
  } catch (error) {
    return {
      skipped: `bare-bwrap-child: bubblewrap cannot start Node here (${error instanceof Error ? error.message : String(error)})`,
    }
  }
}
