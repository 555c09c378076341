/**
 * `${NAME}` and `${NAME:-default}` in config strings, so secrets (`"Authorization": "Bearer
 * ${API_TOKEN}"`) and per-machine paths stay out of the file. Expanded once, when the config is
 * parsed; an unset variable without a default is an error, never an empty string.
 */
import { McpProxyError } from '../errors.js'

/** Looks up a variable; `undefined` means unset. */
export type VariableLookup = (name: string) => string | undefined

/**
 * A private directory for this session, created on first use and deleted on exit: the place for
 * scratch state of stateful servers (`"MEMORY_FILE_PATH": "${CODE_RUNTIME_TMPDIR}/memory.jsonl"`).
 */
export const SESSION_DIRECTORY_VARIABLE = 'CODE_RUNTIME_TMPDIR'

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * Replaces every `${NAME}` / `${NAME:-default}` in `text`.
 * @param where names the value in messages, e.g. `Invalid server "memory" config: env.MEMORY_FILE_PATH`.
 * @throws {McpProxyError} `MCP_PROXY_INVALID_CONFIG` for an unset variable without a default.
 */
export function expandVariables(
  text: string,
  where: { readonly label: string; readonly field: string; readonly server?: string },
  lookup: VariableLookup,
): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = lookup(name)
    if (value !== undefined && value !== '') return value
    if (fallback !== undefined) return fallback
    throw new McpProxyError(
      'MCP_PROXY_INVALID_CONFIG',
      `${where.label}: ${where.field} uses \${${name}}, which is not set; set ${name} or write \${${name}:-default}.`,
      { field: where.field, value: text, ...(where.server === undefined ? {} : { server: where.server }) },
    )
  })
}
