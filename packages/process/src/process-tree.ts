/**
 * What the host can learn about a child's process tree from Linux's `/proc`, without asking the
 * child (whose word is untrusted): which processes descend from it, and how much CPU time the
 * tree has used. Reads are synchronous and small; they run only when a budget is checked or a
 * sandbox is killed.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Guards the walk against a tree that grows without bound while it is read (a fork bomb). */
const MAX_TREE_SIZE = 8192

let clockTicksPerSecond: number | undefined

/** Kernel clock ticks per second (`getconf CLK_TCK`), the unit of CPU times in `/proc`. */
function readClockTicksPerSecond(): number {
  if (clockTicksPerSecond !== undefined) return clockTicksPerSecond
  let ticks = 100
  try {
    const answer = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', env: {}, timeout: 5_000 }).trim())
    if (Number.isSafeInteger(answer) && answer > 0) ticks = answer
  } catch {
    // 100 is the value on every Linux architecture Node supports.
  }
  clockTicksPerSecond = ticks
  return ticks
}

/** The fields of `/proc/<pid>/stat` we use, or undefined when the process is gone. */
interface ProcessStat {
  readonly state: string
  /** utime + stime + cutime + cstime, in clock ticks. */
  readonly cpuTicks: number
}

function readProcessStat(pid: number): ProcessStat | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const ticks = [fields[11], fields[12], fields[13], fields[14]].map(Number)
  if (fields[0] === undefined || ticks.some(value => !Number.isFinite(value))) return undefined
  return { state: fields[0], cpuTicks: ticks.reduce((sum, value) => sum + value, 0) }
}

function readChildren(pid: number): number[] {
  const children: number[] = []
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return children
  }
  // A child is listed under the thread that forked it.
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) {
        const childPid = Number(child)
        if (child !== '' && Number.isSafeInteger(childPid)) children.push(childPid)
      }
    } catch {
      // The thread ended while we read.
    }
  }
  return children
}

/** `rootPid` and every live process descending from it. */
export function listProcessTree(rootPid: number): number[] {
  const seen = new Set<number>([rootPid])
  const queue = [rootPid]
  for (let index = 0; index < queue.length && seen.size < MAX_TREE_SIZE; index++) {
    for (const child of readChildren(queue[index] as number)) {
      if (seen.has(child)) continue
      seen.add(child)
      queue.push(child)
    }
  }
  return queue
}

/** True while `pid` exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  const stat = readProcessStat(pid)
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X'
}

/** True when this machine exposes what {@link ProcessTreeClock} reads. */
export function canReadProcessTree(): boolean {
  try {
    readFileSync(`/proc/${process.pid}/task/${process.pid}/children`)
  } catch {
    return false
  }
  return readProcessStat(process.pid) !== undefined
}

/**
 * CPU time of a process tree since {@link ProcessTreeClock.reset}: the user and system time of
 * every live process of the tree, plus what its members collected from children they reaped.
 * Never decreases, even when an orphan's time leaves the tree with it.
 */
export class ProcessTreeClock {
  private readonly rootPid: number
  private baselineTicks = 0
  private highestMs = 0

  constructor(rootPid: number) {
    this.rootPid = rootPid
  }

  reset(): void {
    this.baselineTicks = this.readTicks()
    this.highestMs = 0
  }

  elapsedMs(): number {
    const ms = ((this.readTicks() - this.baselineTicks) * 1000) / readClockTicksPerSecond()
    if (ms > this.highestMs) this.highestMs = ms
    return this.highestMs
  }

  private readTicks(): number {
    let ticks = 0
    for (const pid of listProcessTree(this.rootPid)) ticks += readProcessStat(pid)?.cpuTicks ?? 0
    return ticks
  }
}
