/**
 * How several `auth login` processes of one user share one loopback callback port: the one that
 * could listen on it serves every flow; the others register the `state` they wait for here, in
 * `pending/` of the user's store (0700, files 0600), and the listener hands each redirect over to
 * the process whose state it carries. Files are named by a hash of the state, never the state:
 * - `<hash>.wait`: a registration (`{ pid, port, deadline }`), written by the waiting process;
 * - `<hash>.answer`: the redirect URL handed over, written by the listener (temporary file, then
 *   rename: the waiter reads all of it or nothing), read once and removed with the registration;
 * - `listener-<port>.json`: the process listening on that port (`{ pid }`), so a process that
 *   finds the port taken knows whether another login holds it (and waits) or something else
 *   does (and fails, as before).
 * A registration whose owner died or whose deadline passed is stale: nobody hands anything to it
 * and whoever lists the folder removes it.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { McpProxyError } from '../../errors.js'
import { isAlive } from './store-lock.js'
import { checkPrivate, writePrivateFile, type TokenStore } from './token-store.js'

/** Registrations waiting at once, across the user's processes. */
export const MAX_PENDING_LOGINS = 16
/** Longest redirect URL taken from a browser (and handed over). */
export const MAX_REDIRECT_URL_CHARS = 4096
const MAX_RECORD_BYTES = 256

const WAIT_FILE = /^([0-9a-f]{32})\.wait$/

/** The hash that names a state's files (and keys the listener's own flows). */
export function stateHash(state: string): string {
  return createHash('sha256').update(state).digest('hex').slice(0, 32)
}

/** True when `a` and `b` are the same state; in time that says nothing of where they differ. */
export function isSameState(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(a), digest(b))
}

interface Registration {
  readonly pid: number
  readonly port: number
  readonly deadline: number
}

function decodeRegistration(text: string): Registration | undefined {
  try {
    const value = JSON.parse(text) as Partial<Registration>
    const { pid, port, deadline } = value
    if (!Number.isInteger(pid) || !Number.isInteger(port) || typeof deadline !== 'number') return undefined
    return { pid: pid as number, port: port as number, deadline }
  } catch {
    return undefined
  }
}

/** Reads a small private file of ours; undefined when it is missing, looser, too big or not a file. */
async function readPrivate(path: string, maxBytes: number): Promise<string | undefined> {
  try {
    if (!(await checkPrivate(path, 'file'))) return undefined
    const text = await readFile(path, 'utf8')
    return text.length > maxBytes ? undefined : text
  } catch {
    return undefined
  }
}

/** What became of a redirect offered to the registrations. */
export type HandOver = 'handed' | 'unknown' | 'already-handed'

/** The registrations of the user's loopback callback ports, in their store. */
export class PendingRedirects {
  readonly directory: string

  private constructor(directory: string) {
    this.directory = directory
  }

  /**
   * The `pending/` folder of `store`, created when missing.
   * @throws {McpProxyError} `MCP_PROXY_TOKEN_STORE_UNSAFE` when the store or the folder is not private.
   */
  static async open(store: TokenStore): Promise<PendingRedirects> {
    await store.ensure()
    const directory = join(store.directory, 'pending')
    await mkdir(directory, { mode: 0o700 }).catch((error: { code?: unknown }) => {
      if (error.code !== 'EEXIST') throw error
    })
    await checkPrivate(directory, 'directory')
    return new PendingRedirects(directory)
  }

  #listenerPath(port: number): string {
    return join(this.directory, `listener-${port}.json`)
  }

  /** Says this process serves `port`. */
  async markListening(port: number): Promise<void> {
    await writePrivateFile(this.directory, this.#listenerPath(port), JSON.stringify({ pid: process.pid }))
  }

  async unmarkListening(port: number): Promise<void> {
    const text = await readPrivate(this.#listenerPath(port), MAX_RECORD_BYTES)
    if (text !== undefined && (JSON.parse(text) as { pid?: unknown }).pid === process.pid)
      await rm(this.#listenerPath(port), { force: true })
  }

  /** True when another live process of the user says it serves `port`. */
  async hasLiveListener(port: number): Promise<boolean> {
    const text = await readPrivate(this.#listenerPath(port), MAX_RECORD_BYTES)
    if (text === undefined) return false
    try {
      const pid = (JSON.parse(text) as { pid?: unknown }).pid
      return typeof pid === 'number' && Number.isInteger(pid) && pid !== process.pid && isAlive(pid)
    } catch {
      return false
    }
  }

  /**
   * The live registrations of every port, after removing the stale ones; those of `port`
   * that still wait for their redirect are `waiting`.
   */
  async #survey(now: number, port?: number): Promise<{ live: number; waiting: number }> {
    let live = 0
    let waiting = 0
    const names = await readdir(this.directory)
    for (const name of names) {
      const match = WAIT_FILE.exec(name)
      if (match === null) continue
      const record = await readPrivate(join(this.directory, name), MAX_RECORD_BYTES)
      const registration = record === undefined ? undefined : decodeRegistration(record)
      if (registration === undefined || registration.deadline <= now || !isAlive(registration.pid)) {
        await this.#remove(match[1] ?? '')
        continue
      }
      live += 1
      if (registration.port === port && !names.includes(`${match[1]}.answer`)) waiting += 1
    }
    return { live, waiting }
  }

  /** Registrations of `port` still waiting for their redirect (stale ones removed). */
  async waitingCount(port: number): Promise<number> {
    return (await this.#survey(Date.now(), port)).waiting
  }

  /**
   * Registers `state`, waiting on `port` until `deadline`.
   * @throws {McpProxyError} `MCP_PROXY_LOGIN_FAILED` when `MAX_PENDING_LOGINS` already wait.
   */
  async register(state: string, port: number, deadline: number): Promise<void> {
    if ((await this.#survey(Date.now())).live >= MAX_PENDING_LOGINS)
      throw new McpProxyError(
        'MCP_PROXY_LOGIN_FAILED',
        `${MAX_PENDING_LOGINS} logins already wait for their browser; finish or stop some of them, or use another --callback-port.`,
      )
    // Written by rename: a half-written registration would read as stale and be removed.
    const path = join(this.directory, `${stateHash(state)}.wait`)
    await writePrivateFile(this.directory, path, JSON.stringify({ pid: process.pid, port, deadline }))
  }

  /** The redirect handed over to `state`, once: its files are removed as it is read. */
  async takeAnswer(state: string): Promise<string | undefined> {
    const hash = stateHash(state)
    const answer = await readPrivate(join(this.directory, `${hash}.answer`), MAX_REDIRECT_URL_CHARS)
    if (answer === undefined) return undefined
    await this.#remove(hash)
    return answer
  }

  /** Removes the registration of `state` and anything handed to it. */
  async withdraw(state: string): Promise<void> {
    await this.#remove(stateHash(state))
  }

  async #remove(hash: string): Promise<void> {
    await rm(join(this.directory, `${hash}.answer`), { force: true })
    await rm(join(this.directory, `${hash}.wait`), { force: true })
  }

  /** Hands `redirectUrl` to the live registration of `state` on `port`, if there is one. */
  async handOver(state: string, port: number, redirectUrl: string): Promise<HandOver> {
    const hash = stateHash(state)
    const record = await readPrivate(join(this.directory, `${hash}.wait`), MAX_RECORD_BYTES)
    const registration = record === undefined ? undefined : decodeRegistration(record)
    if (
      registration === undefined ||
      registration.port !== port ||
      registration.deadline <= Date.now() ||
      !isAlive(registration.pid)
    )
      return 'unknown'
    const answerPath = join(this.directory, `${hash}.answer`)
    if ((await readPrivate(answerPath, MAX_REDIRECT_URL_CHARS)) !== undefined) return 'already-handed'
    await writePrivateFile(this.directory, answerPath, redirectUrl)
    return 'handed'
  }
}
