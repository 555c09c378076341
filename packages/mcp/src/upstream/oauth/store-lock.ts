/**
 * One lock file per server's logins, so that of several `code-runtime` processes (a `serve` per
 * MCP client, a `run` in a terminal) only one refreshes a token or writes a registration at a
 * time: two refreshes of one rotating refresh token would leave one of them holding a revoked
 * token. The lock is an exclusive create (`O_CREAT | O_EXCL`, atomic on local file systems)
 * holding the owner's pid and the time it was taken. A lock whose owner has died, or that is
 * older than any refresh could take, is stale and taken over: a crash must never lock a user
 * out until they find and delete the file.
 */
import { open, readFile, rm } from 'node:fs/promises'
import { McpProxyError } from '../../errors.js'

/** A lock held this long is stale whoever holds it: a refresh is a few HTTP requests. */
export const STALE_LOCK_MS = 60_000
/** Longest wait for a lock another process holds. */
export const LOCK_WAIT_MS = 30_000
const POLL_MS = 25

/** True when `pid` names a live process (one we may not signal is alive too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/** What a lock file says of its owner; a file being written (empty, half-written) reads as fresh. */
async function isStale(path: string, now: number): Promise<boolean> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return false
  }
  const match = /^(\d+) (\d+)\n$/.exec(text)
  if (match === null) return false
  const pid = Number(match[1])
  const takenAt = Number(match[2])
  return now - takenAt > STALE_LOCK_MS || !isAlive(pid)
}

async function tryTake(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600)
    try {
      await handle.writeFile(`${process.pid} ${Date.now()}\n`)
    } finally {
      await handle.close()
    }
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false
    throw error
  }
}

/**
 * Runs `work` while holding the lock file at `path`, and removes the file after.
 * @throws {McpProxyError} `MCP_PROXY_LOGIN_FAILED` when another live process holds it past `waitMs`.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  const deadline = Date.now() + waitMs
  while (!(await tryTake(path))) {
    if (await isStale(path, Date.now())) {
      // Reading it again just before removing it keeps a second process that also found it stale
      // from removing the lock the first one has just taken; the window left is the gap between
      // that read and the removal, and only after an owner died.
      if (await isStale(path, Date.now())) await rm(path, { force: true })
      continue
    }
    if (Date.now() > deadline) {
      throw new McpProxyError(
        'MCP_PROXY_LOGIN_FAILED',
        `another code-runtime process has held the login lock ${path} for over ${waitMs} ms; try again, or delete the file if no code-runtime is running.`,
        { value: path },
      )
    }
    await new Promise(resolve => setTimeout(resolve, POLL_MS))
  }
  try {
    return await work()
  } finally {
    await rm(path, { force: true })
  }
}
