/** The program file `run` and `check` are given, read as text. */
import { readFile } from 'node:fs/promises'
import { McpProxyError } from '../errors.js'

/**
 * Reads the program at `path`.
 * @throws {McpProxyError} `MCP_PROXY_PROGRAM_NOT_FOUND` when it is missing or unreadable.
 */
export async function readProgram(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as { code?: unknown }).code === 'ENOENT' ? 'no such file' : 'it cannot be read'
    throw new McpProxyError(
      'MCP_PROXY_PROGRAM_NOT_FOUND',
      `${path}: ${reason}; pass the path of a TypeScript program file.`,
      { value: path, cause: error },
    )
  }
}
