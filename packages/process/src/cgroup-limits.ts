/**
 * Control groups for the container's sandboxes, where the host lets us make them: each sandbox
 * gets its own group under the host process's own group, in the cgroup v1 `pids` controller
 * (`pids.max`: every task counts, threads included) and the `memory` controller
 * (`memory.limit_in_bytes`: all memory of all its processes together, tmpfs files included).
 * Nesting under our own group keeps every limit the host itself runs under.
 *
 * Without a writable controller the sandbox relies on rlimits alone, which bound each process,
 * not the sandbox; see the package README for what applies when.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The cgroup v1 controllers we use, and where they are mounted. */
const CONTROLLERS = ['pids', 'memory'] as const
type Controller = (typeof CONTROLLERS)[number]
const CGROUP_MOUNT = '/sys/fs/cgroup'

/** The limits applied to each sandbox's groups. */
export interface SandboxGroupLimits {
  readonly maxProcesses: number
  readonly maxMemoryMb: number
}

/** One sandbox's groups. */
export interface SandboxGroups {
  /** The `cgroup.procs` files the sandbox's first process must join. */
  readonly procsFiles: readonly string[]
  /** True once the kernel OOM-killed a process of this sandbox. */
  hadOutOfMemoryKill(): boolean
  /** Removes the groups once their processes are gone; resolves even if that never happens. */
  remove(): Promise<void>
}

/** Our own group's path in each v1 controller, from `/proc/self/cgroup` (`8:pids:/a/b`). */
function readOwnGroups(): Map<Controller, string> {
  const own = new Map<Controller, string>()
  let text: string
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8')
  } catch {
    return own
  }
  for (const line of text.split('\n')) {
    const [, controllers, path] = line.split(':')
    if (controllers === undefined || path === undefined) continue
    for (const controller of CONTROLLERS) {
      if (controllers.split(',').includes(controller)) own.set(controller, path)
    }
  }
  return own
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** The parent group of one runtime's sandboxes in each usable controller. */
export class SandboxGroupParent {
  /** The controllers in use and our parent folder in each. */
  private readonly folders: ReadonlyMap<Controller, string>
  private readonly limits: SandboxGroupLimits
  private counter = 0

  private constructor(folders: ReadonlyMap<Controller, string>, limits: SandboxGroupLimits) {
    this.folders = folders
    this.limits = limits
  }

  /**
   * Creates a parent group in every v1 controller we may write to; undefined when there is none
   * (cgroup v2 only, no permission, or not Linux).
   */
  static open(limits: SandboxGroupLimits): SandboxGroupParent | undefined {
    const folders = new Map<Controller, string>()
    const name = `code-runtime-${process.pid}-${Math.random().toString(36).slice(2, 10)}`
    for (const [controller, ownPath] of readOwnGroups()) {
      removeStaleGroups(join(CGROUP_MOUNT, controller, ownPath))
      const folder = join(CGROUP_MOUNT, controller, ownPath, name)
      try {
        mkdirSync(folder)
        folders.set(controller, folder)
      } catch {
        // Not writable for us: this controller does not apply.
      }
    }
    // Both or neither: a sandbox with a memory group but no pids group would only look bounded.
    if (folders.size !== CONTROLLERS.length) {
      for (const folder of folders.values()) removeFolder(folder)
      return undefined
    }
    return new SandboxGroupParent(folders, limits)
  }

  /** The controllers this parent uses, for reports. */
  get controllers(): readonly string[] {
    return [...this.folders.keys()]
  }

  /** Creates the groups of one sandbox with the limits applied. */
  create(): SandboxGroups {
    const name = `sandbox-${++this.counter}`
    const created: { controller: Controller; folder: string }[] = []
    try {
      for (const [controller, parent] of this.folders) {
        const folder = join(parent, name)
        mkdirSync(folder)
        created.push({ controller, folder })
        applyLimit(controller, folder, this.limits)
      }
    } catch (error) {
      for (const { folder } of created) removeFolder(folder)
      throw error
    }
    const memoryFolder = created.find(group => group.controller === 'memory')?.folder
    return {
      procsFiles: created.map(({ folder }) => join(folder, 'cgroup.procs')),
      hadOutOfMemoryKill: () => memoryFolder !== undefined && readOomKills(memoryFolder) > 0,
      remove: async () => {
        for (const { folder } of created) {
          // The kernel refuses while a process of the group is still exiting.
          for (let attempt = 0; attempt < 200 && !removeFolder(folder); attempt++) await sleep(10)
        }
      },
    }
  }

  /** Removes the parent groups (after every sandbox group is gone). */
  close(): void {
    for (const folder of this.folders.values()) removeFolder(folder)
  }
}

function applyLimit(controller: Controller, folder: string, limits: SandboxGroupLimits): void {
  if (controller === 'pids') {
    writeFileSync(join(folder, 'pids.max'), String(limits.maxProcesses))
    return
  }
  const bytes = String(limits.maxMemoryMb * 1024 * 1024)
  writeFileSync(join(folder, 'memory.limit_in_bytes'), bytes)
  try {
    // With swap accounting, also cap memory plus swap, so swap does not extend the limit.
    writeFileSync(join(folder, 'memory.memsw.limit_in_bytes'), bytes)
  } catch {
    // No swap accounting on this kernel.
  }
}

function readOomKills(folder: string): number {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(folder, 'memory.oom_control'), 'utf8'))
    return match?.[1] === undefined ? 0 : Number(match[1])
  } catch {
    return 0
  }
}

const PARENT_NAME = /^code-runtime-(\d+)-[a-z0-9]+$/

/**
 * Removes the empty groups left by runtimes whose host process exited without disposing (a
 * crash, `process.exit`). Groups of live hosts and groups that still hold a task are kept.
 */
function removeStaleGroups(ownFolder: string): void {
  let entries: string[]
  try {
    entries = readdirSync(ownFolder)
  } catch {
    return
  }
  for (const entry of entries) {
    const hostPid = PARENT_NAME.exec(entry)?.[1]
    if (hostPid === undefined || isProcessRunning(Number(hostPid))) continue
    const parent = join(ownFolder, entry)
    try {
      for (const sandbox of readdirSync(parent, { withFileTypes: true })) {
        if (sandbox.isDirectory()) removeFolder(join(parent, sandbox.name))
      }
    } catch {
      // Gone already.
    }
    removeFolder(parent)
  }
}

function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function removeFolder(folder: string): boolean {
  try {
    rmdirSync(folder)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}
