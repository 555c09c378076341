/**
 * The user's logins to remote servers, one per user: `$XDG_CONFIG_HOME/code-runtime/oauth` (else
 * `~/.config/code-runtime/oauth`). Refresh tokens are long-lived credentials, so the store is a
 * directory of mode 0700 with files of mode 0600, owned by the user; a store or a file that is
 * looser, a symbolic link, or someone else's is refused, never read. Each login is one file,
 * named after hashes of its server URL and of its issuer + resource, written atomically (a
 * temporary file renamed over it), so a reader sees the old login or the new one, never half of
 * one; a lock per server (see `store-lock.ts`) keeps refreshes and registrations one at a time.
 */
import { createHash, randomBytes } from 'node:crypto'
import { lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { McpProxyError } from '../../errors.js'
import { decodeStoredLogin, encodeStoredLogin, type StoredLogin } from './stored-login.js'
import { withFileLock } from './store-lock.js'

/** Where the store is: under the XDG config home, which tests and users may move. */
export function tokenStoreDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const configHome = env.XDG_CONFIG_HOME
  const base = configHome !== undefined && configHome.startsWith('/') ? configHome : join(homedir(), '.config')
  return join(base, 'code-runtime', 'oauth')
}

/** A short hash naming a file; the names say nothing of the server to whoever lists the folder. */
function nameHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}

const LOGIN_FILE = /^[0-9a-f]{16}-[0-9a-f]{16}\.json$/

function unsafe(path: string, why: string, fix: string): McpProxyError {
  return new McpProxyError(
    'MCP_PROXY_TOKEN_STORE_UNSAFE',
    `the login store ${path} ${why}, so its tokens are not used; ${fix}.`,
    { value: path },
  )
}

function modeText(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`
}

/** Refuses a path that is not ours alone; `kind` is what it must be. */
export async function checkPrivate(path: string, kind: 'directory' | 'file'): Promise<boolean> {
  let stats
  try {
    stats = await lstat(path)
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return false
    throw error
  }
  if (stats.isSymbolicLink()) throw unsafe(path, 'is a symbolic link', `replace it with a real ${kind}`)
  if (kind === 'directory' ? !stats.isDirectory() : !stats.isFile())
    throw unsafe(path, `is not a ${kind}`, 'move it away')
  const uid = process.getuid?.()
  if (uid !== undefined && stats.uid !== uid)
    throw unsafe(path, `belongs to user ${stats.uid}, not to you (${uid})`, 'remove it or fix its owner')
  if ((stats.mode & 0o077) !== 0) {
    const wanted = kind === 'directory' ? '700' : '600'
    throw unsafe(path, `has mode ${modeText(stats.mode)}, which lets others in`, `run chmod ${wanted} ${path}`)
  }
  return true
}

/**
 * Writes `text` to `path` (in `directory`) with mode 0600, atomically: a temporary file of the
 * same directory, synced, then renamed over it, so a reader sees the old content or the new.
 */
export async function writePrivateFile(directory: string, path: string, text: string): Promise<void> {
  const temporary = join(directory, `.${randomBytes(8).toString('hex')}.tmp`)
  const handle = await open(temporary, 'wx', 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** The logins of one user, on disk. Every call checks the store again: a later chmod is seen at once. */
export class TokenStore {
  readonly directory: string

  constructor(directory: string = tokenStoreDirectory()) {
    this.directory = directory
  }

  /**
   * True when the store exists (and is private); false when there is none yet.
   * @throws {McpProxyError} `MCP_PROXY_TOKEN_STORE_UNSAFE` when it is not private.
   */
  async check(): Promise<boolean> {
    return checkPrivate(this.directory, 'directory')
  }

  /** Creates the store (mode 0700, and its parents) when missing, then checks it. */
  async ensure(): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 })
    await this.check()
  }

  /** Every login kept for `serverUrl` (several after its authorization server changed), newest first. */
  async loginsOf(serverUrl: string): Promise<StoredLogin[]> {
    return (await this.#read(`${nameHash(serverUrl)}-`)).filter(login => login.serverUrl === serverUrl)
  }

  /** The login `serverUrl` uses: the newest. */
  async loginOf(serverUrl: string): Promise<StoredLogin | undefined> {
    return (await this.loginsOf(serverUrl))[0]
  }

  /** Every login in the store, newest first. */
  async all(): Promise<StoredLogin[]> {
    return this.#read('')
  }

  /** Writes `login` in place of the one of the same server, issuer and resource. */
  async save(login: StoredLogin): Promise<void> {
    await this.ensure()
    await writePrivateFile(this.directory, join(this.directory, this.#fileName(login)), encodeStoredLogin(login))
  }

  /**
   * Removes every login file of `serverUrl` (one that no longer decodes too) and nothing else;
   * resolves with how many there were.
   */
  async remove(serverUrl: string): Promise<number> {
    if (!(await this.check())) return 0
    const prefix = `${nameHash(serverUrl)}-`
    const names = (await readdir(this.directory)).filter(name => LOGIN_FILE.test(name) && name.startsWith(prefix))
    for (const name of names) await rm(join(this.directory, name), { force: true })
    return names.length
  }

  /** Runs `work` holding the lock of `serverUrl`'s logins (see `store-lock.ts`). */
  async withLock<T>(serverUrl: string, work: () => Promise<T>): Promise<T> {
    await this.ensure()
    return withFileLock(join(this.directory, `${nameHash(serverUrl)}.lock`), work)
  }

  #fileName(login: StoredLogin): string {
    return `${nameHash(login.serverUrl)}-${nameHash(`${login.issuer}\n${login.resource}`)}.json`
  }

  async #read(prefix: string): Promise<StoredLogin[]> {
    if (!(await this.check())) return []
    const names = (await readdir(this.directory)).filter(name => LOGIN_FILE.test(name) && name.startsWith(prefix))
    const logins: StoredLogin[] = []
    for (const name of names) {
      const path = join(this.directory, name)
      if (!(await checkPrivate(path, 'file'))) continue
      let login: StoredLogin | undefined
      try {
        login = decodeStoredLogin(JSON.parse(await readFile(path, 'utf8')))
      } catch {
        login = undefined
      }
      // A file we cannot read back is left for `auth logout` to replace; it is not a login.
      if (login !== undefined) logins.push(login)
    }
    return logins.sort((a, b) => b.loggedInAt - a.loggedInAt)
  }
}
