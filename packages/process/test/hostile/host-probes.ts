/** Test support for the hostile groups: things the host side of an attack observes. */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Pids of live processes whose command line contains `marker` (never this process). */
export function findProcessesMarked(marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
      if (commandLine.includes(marker) && state !== 'Z') found.push(pid)
    } catch {
      // Gone while we looked.
    }
  }
  return found
}

/**
 * True while `pid` runs: signal 0 reaches it (it exists) and it is not a zombie, a dead process
 * waiting for its parent or init to collect its exit status.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    return false
  }
}

/** The repository root: the first folder above this file whose package.json declares workspaces. */
export function findRepositoryRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(directory, 'package.json')
    if (existsSync(candidate) && readFileSync(candidate, 'utf8').includes('"workspaces"')) return directory
    const parent = dirname(directory)
    if (parent === directory) throw new Error('no repository root above the tests')
    directory = parent
  }
}

/** A TCP server on 127.0.0.1 that counts the connections it accepts. */
export async function listenOnLoopback(): Promise<{
  readonly port: number
  readonly connections: () => number
  close(): Promise<void>
}> {
  let connections = 0
  const server: Server = createServer(socket => {
    connections++
    socket.destroy()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    port: address.port,
    connections: () => connections,
    close: () => new Promise(resolve => server.close(() => resolve())),
  }
}

/** A fresh marker for processes an attack starts. */
export function newMarker(): string {
  return `cr${process.pid}x${Math.random().toString(36).slice(2, 10)}`
}

/**
 * Pids of processes marked `marker` still alive once they had time to go: a sandbox is killed
 * when its run settles, and its processes disappear moments later, not before the result.
 */
export async function findSurvivorsMarked(marker: string): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (findProcessesMarked(marker).length === 0) return []
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return findProcessesMarked(marker)
}
