/**
 * `--auth-keys FILE`: authentication for a small team without an OAuth issuer. The file has one
 * line per principal, `name sha256-hex-of-key` (blank lines and `#` comments allowed); a client
 * sends the key itself as its bearer token. The file holds only hashes, yet it is the list of who
 * may run code here, so the server refuses it when anyone but its owner may read or write it.
 * A key should be long and random (`openssl rand -hex 32`): its hash is all the file keeps.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { McpProxyError } from '../errors.js'
import { readPrivateFile } from './private-file.js'
import { TokenRefusal, type Principal, type TokenVerifier } from './principal.js'

/** A principal's name in the keys file: what audit lines and session ownership show. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/
const HASH_PATTERN = /^[0-9a-f]{64}$/

/** One line of the file, read. */
interface KeyEntry {
  readonly name: string
  readonly hash: Buffer
}

function setupError(path: string, message: string): McpProxyError {
  return new McpProxyError('MCP_PROXY_AUTH_SETUP', `${path}: ${message}`, { field: 'auth-keys', value: path })
}

/** Reads the entries of `text`, naming the first line that breaks the format. */
export function parseKeysFile(text: string, path: string): KeyEntry[] {
  const entries: KeyEntry[] = []
  const names = new Set<string>()
  const lines = text.split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const where = `line ${index + 1}`
    const fields = line.split(/\s+/)
    const [name, hash] = fields
    if (fields.length !== 2 || name === undefined || hash === undefined) {
      throw setupError(path, `${where} is not "name sha256-hex-of-key".`)
    }
    if (!NAME_PATTERN.test(name)) {
      throw setupError(
        path,
        `${where}: a name is 1 to 64 letters, digits and . _ @ - (starting with a letter or digit).`,
      )
    }
    const lowered = hash.toLowerCase()
    if (!HASH_PATTERN.test(lowered)) {
      throw setupError(path, `${where}: the key's hash must be 64 hex digits (sha256 of the key).`)
    }
    if (names.has(name)) throw setupError(path, `${where}: "${name}" is named twice.`)
    names.add(name)
    entries.push({ name, hash: Buffer.from(lowered, 'hex') })
  }
  if (entries.length === 0) throw setupError(path, 'names no principal; add a line "name sha256-hex-of-key".')
  return entries
}

/**
 * The verifier of a keys file, read once at start.
 * @throws {McpProxyError} `MCP_PROXY_AUTH_SETUP` for a file that cannot be read, is malformed, or
 *   that another user may read or write (fix: `chmod 600 FILE`).
 */
export function readKeysFile(path: string): TokenVerifier {
  const read = readPrivateFile(path)
  if ('refusal' in read) throw setupError(path, read.refusal)
  const { text } = read
  return keysVerifier(parseKeysFile(text, path))
}

/** Verifies a key by its hash against every entry, in time that does not depend on which one matches. */
function keysVerifier(entries: readonly KeyEntry[]): TokenVerifier {
  return {
    verify(token) {
      const presented = createHash('sha256').update(token, 'utf8').digest()
      let found: string | undefined
      for (const entry of entries) {
        if (timingSafeEqual(presented, entry.hash) && found === undefined) found = entry.name
      }
      if (found === undefined) return Promise.reject(new TokenRefusal('The key is not known here.'))
      const principal: Principal = { name: found, scopes: [], via: 'key' }
      return Promise.resolve(principal)
    },
  }
}
