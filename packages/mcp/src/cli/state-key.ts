/**
 * The key that signs the `requestState` of runs paused for approval (see
 * server/request-states.ts). Every `serve --http` node a client's retry may reach must hold the
 * same key; it comes from `--state-key FILE` (a file only its owner may read or write, like
 * `--auth-keys`) or the `CODE_RUNTIME_STATE_KEY` environment variable. Without either, each
 * process makes a random key, and only that process can resume its runs: fine for one node, said
 * at start so that a deployment of several learns it before its clients do.
 */
import { readPrivateFile } from '../auth/private-file.js'
import { McpProxyError } from '../errors.js'
import { MIN_STATE_KEY_BYTES } from '../server/request-states.js'

/** The environment variable that may hold the key itself. */
export const STATE_KEY_VARIABLE = 'CODE_RUNTIME_STATE_KEY'

/** Where the key came from, and the key (undefined: the service makes a random one). */
export interface StateKey {
  readonly key?: Uint8Array
  /** One line for the operator: where the key is from, and what that means. */
  readonly notice: string
}

function setupError(where: string, message: string): McpProxyError {
  return new McpProxyError('MCP_PROXY_USAGE', `${where}: ${message}`, { field: 'state-key', value: where })
}

/** The key's bytes from its text: surrounding whitespace (a file's last newline) is not part of it. */
function keyBytes(text: string, where: string): Uint8Array {
  const bytes = new TextEncoder().encode(text.trim())
  if (bytes.byteLength < MIN_STATE_KEY_BYTES) {
    throw setupError(
      where,
      `a state key must be at least ${MIN_STATE_KEY_BYTES} bytes (got ${bytes.byteLength}); make one with openssl rand -hex 32.`,
    )
  }
  return bytes
}

/**
 * Reads the state key of `serve --http`: the file when given, else the environment variable, else none.
 * @throws {McpProxyError} `MCP_PROXY_USAGE` for a file that cannot be read, that others may read or
 *   write (fix: `chmod 600 FILE`), or a key shorter than 32 bytes.
 */
export function readStateKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env): StateKey {
  if (file !== undefined) {
    const read = readPrivateFile(file)
    if ('refusal' in read) throw setupError(file, read.refusal)
    const { text } = read
    return { key: keyBytes(text, file), notice: `runs paused for approval are signed with the key of ${file}.` }
  }
  const fromEnv = env[STATE_KEY_VARIABLE]
  if (fromEnv !== undefined && fromEnv !== '') {
    return {
      key: keyBytes(fromEnv, STATE_KEY_VARIABLE),
      notice: `runs paused for approval are signed with the key in ${STATE_KEY_VARIABLE}.`,
    }
  }
  return {
    notice: `runs paused for approval are signed with a random key: only this process can resume them (give every node the same --state-key FILE or ${STATE_KEY_VARIABLE}).`,
  }
}
