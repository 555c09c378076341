/**
 * The `mcpServers` config people already have (Claude Desktop, Cursor, Claude Code): decoded
 * once, here, into frozen records the rest of the package trusts. Unknown fields are refused
 * with a suggestion, since a typo is the commonest config bug; every message is one line that
 * names the file, the JSON path, the rule and the value received.
 *
 * The messages name JSON paths of a user's file (`mcpServers.files.args`), so this module reads
 * its fields itself rather than through core's backend-config readers, whose wording is
 * `Invalid <backend> config: ...`.
 */
import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { describeValue, MAX_TIMER_MS } from '@code-runtime/core'
import { expandVariables, type VariableLookup } from './config-variables.js'
import { McpProxyError } from './errors.js'

/** Fields every server entry may have. */
interface ServerConfigBase {
  /** The server's key in `mcpServers`. */
  readonly name: string
  /** Only tools matching one of these patterns are offered (`*` matches any run of characters). */
  readonly include?: readonly string[]
  /** Tools matching one of these patterns are not offered; applied after `include`. */
  readonly exclude: readonly string[]
  /** Longest wait for one tool call, in milliseconds. */
  readonly timeoutMs: number
  /** Longest wait for the server to start and finish the MCP handshake, in milliseconds. */
  readonly connectTimeoutMs: number
}

/** A server started as a child process and spoken to over its stdin and stdout. */
export interface StdioServerConfig extends ServerConfigBase {
  readonly transport: 'stdio'
  readonly command: string
  readonly args: readonly string[]
  /** Added to a minimal inherited environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  readonly env: Readonly<Record<string, string>>
  /** Absolute working directory of the server. */
  readonly cwd: string
}

/** A remote server reached over Streamable HTTP. */
export interface HttpServerConfig extends ServerConfigBase {
  readonly transport: 'http'
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export type UpstreamServerConfig = StdioServerConfig | HttpServerConfig

/** A whole decoded config. */
export interface ServersConfig {
  /** The servers in the order the file lists them. */
  readonly servers: readonly UpstreamServerConfig[]
  /** The directory relative `cwd` values are resolved against: the config file's own. */
  readonly directory: string
}

/** Options of {@link parseServersConfig}. */
export interface ServersConfigOptions {
  /** Where relative `cwd` values point from, and the default `cwd`; usually the config file's directory. */
  readonly directory: string
  /** How the config is named in messages, e.g. the file's path; default `config`. */
  readonly source?: string
  /** Values of `${NAME}` references; default the process environment. */
  readonly variables?: VariableLookup
}

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000
/** The largest delay a Node timer takes. */

const TOP_LEVEL_FIELDS = ['mcpServers'] as const
const STDIO_FIELDS = ['type', 'command', 'args', 'env', 'cwd', 'include', 'exclude', 'timeoutMs', 'connectTimeoutMs'] as const
const HTTP_FIELDS = ['type', 'url', 'headers', 'include', 'exclude', 'timeoutMs', 'connectTimeoutMs'] as const

type Where = { readonly label: string; readonly field: string; readonly server?: string }

function refuse(where: Where, rule: string, value: unknown): never {
  throw new McpProxyError('MCP_PROXY_INVALID_CONFIG', `${where.label}: ${where.field} ${rule}, got ${describeValue(value)}.`,
    { field: where.field, value, ...where.server === undefined ? {} : { server: where.server } })
}

function at(where: Where, key: string): Where {
  const step = /^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
  return { ...where, field: `${where.field}${step}` }
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === null || prototype === Object.prototype
}

/** Levenshtein distance, small inputs only: field names. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let row = 1; row <= left.length; row++) {
    const current = [row]
    for (let column = 1; column <= right.length; column++) {
      const substitution = (previous[column - 1] as number) + (left[row - 1] === right[column - 1] ? 0 : 1)
      current.push(Math.min((previous[column] as number) + 1, (current[column - 1] as number) + 1, substitution))
    }
    previous = current
  }
  return previous[right.length] as number
}

function refuseUnknownFields(where: Where, record: Readonly<Record<string, unknown>>, known: readonly string[]): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue
    const close = known.find((candidate) => editDistance(candidate.toLowerCase(), key.toLowerCase()) <= 2)
    const hint = close === undefined ? '' : ` (did you mean ${JSON.stringify(close)}?)`
    throw new McpProxyError('MCP_PROXY_INVALID_CONFIG',
      `${where.label}: ${where.field} has an unknown field ${JSON.stringify(key)}${hint}; known fields are ${known.join(', ')}.`,
      { field: at(where, key).field, value: key, ...where.server === undefined ? {} : { server: where.server } })
  }
}

function readString(where: Where, value: unknown, variables: VariableLookup): string {
  if (typeof value !== 'string' || value === '') refuse(where, 'must be a non-empty string', value)
  return expandVariables(value, where, variables)
}

function readStringList(where: Where, value: unknown, variables: VariableLookup | undefined): readonly string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) refuse(where, 'must be an array of strings', value)
  return Object.freeze(value.map((item: string, index) => variables === undefined ? item : expandVariables(item, at(where, String(index)), variables)))
}

function readStringRecord(where: Where, value: unknown, variables: VariableLookup): Readonly<Record<string, string>> {
  if (!isPlainObject(value)) refuse(where, 'must be an object of string values', value)
  const record: Record<string, string> = {}
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') refuse(at(where, key), 'must be a string', item)
    record[key] = expandVariables(item, at(where, key), variables)
  }
  return Object.freeze(record)
}

function readTimeout(where: Where, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    refuse(where, `must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`, value)
  }
  return value
}

function readPatterns(where: Where, value: unknown): readonly string[] {
  const patterns = readStringList(where, value, undefined)
  const empty = patterns.findIndex((pattern) => pattern === '')
  if (empty !== -1) refuse(at(where, String(empty)), 'must be a tool name or a pattern with *', '')
  return patterns
}

function readServer(name: string, value: unknown, base: Where, options: ServersConfigOptions): UpstreamServerConfig {
  const where: Where = { ...at(base, name), server: name }
  if (!isPlainObject(value)) refuse(where, 'must be an object with "command" (a local server) or "url" (a remote one)', value)
  const variables = options.variables ?? ((variable: string) => process.env[variable])
  const { type } = value
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'streamable-http') {
    refuse(at(where, 'type'), type === 'sse'
      ? 'is "sse", which code-runtime does not speak; use the server\'s Streamable HTTP endpoint with "type": "http"'
      : 'must be "stdio" or "http"', type)
  }
  if (value.command !== undefined && value.url !== undefined) {
    refuse(where, 'has both "command" and "url"; keep "command" for a local server or "url" for a remote one', value)
  }
  const isHttp = type === 'http' || type === 'streamable-http' || (type === undefined && value.url !== undefined && value.command === undefined)
  refuseUnknownFields(where, value, isHttp ? HTTP_FIELDS : STDIO_FIELDS)
  const shared = {
    name,
    ...value.include === undefined ? {} : { include: readPatterns(at(where, 'include'), value.include) },
    exclude: value.exclude === undefined ? Object.freeze([]) : readPatterns(at(where, 'exclude'), value.exclude),
    timeoutMs: readTimeout(at(where, 'timeoutMs'), value.timeoutMs, DEFAULT_TOOL_TIMEOUT_MS),
    connectTimeoutMs: readTimeout(at(where, 'connectTimeoutMs'), value.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
  }
  if (isHttp) {
    const url = readString(at(where, 'url'), value.url, variables)
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      refuse(at(where, 'url'), 'must be an http:// or https:// URL', url)
    }
    const headers = value.headers === undefined ? Object.freeze({}) : readStringRecord(at(where, 'headers'), value.headers, variables)
    return Object.freeze({ ...shared, transport: 'http', url: parsed.href, headers })
  }
  if (value.command === undefined) {
    refuse(where, 'needs "command" (a local server started as a process) or "url" (a remote server)', value)
  }
  return Object.freeze({
    ...shared,
    transport: 'stdio',
    command: readString(at(where, 'command'), value.command, variables),
    args: value.args === undefined ? Object.freeze([]) : readStringList(at(where, 'args'), value.args, variables),
    env: value.env === undefined ? Object.freeze({}) : readStringRecord(at(where, 'env'), value.env, variables),
    cwd: value.cwd === undefined ? options.directory : resolve(options.directory, readString(at(where, 'cwd'), value.cwd, variables)),
  })
}

/**
 * Decodes an `{ "mcpServers": { ... } }` object.
 * @throws {McpProxyError} `MCP_PROXY_INVALID_CONFIG`, with `field` the JSON path at fault.
 * @example
 * const config = parseServersConfig({ mcpServers: { files: { command: 'mcp-server-filesystem', args: ['.'] } } }, { directory: process.cwd() })
 */
export function parseServersConfig(input: unknown, options: ServersConfigOptions): ServersConfig {
  const root: Where = { label: options.source ?? 'config', field: 'mcpServers' }
  if (!isPlainObject(input)) refuse({ ...root, field: 'the config' }, 'must be a JSON object { "mcpServers": { ... } }', input)
  refuseUnknownFields({ ...root, field: 'the config' }, input, TOP_LEVEL_FIELDS)
  const servers = input.mcpServers
  if (!isPlainObject(servers)) refuse(root, 'must be an object of servers by name', servers)
  for (const name of Object.keys(servers)) {
    if (name.trim() === '') refuse(root, 'must not have a server with an empty name', name)
  }
  return Object.freeze({
    servers: Object.freeze(Object.entries(servers).map(([name, value]) => readServer(name, value, root, options))),
    directory: options.directory,
  })
}

/** {@link parseServersConfig} without throwing. */
export function safeParseServersConfig(input: unknown, options: ServersConfigOptions):
  { readonly ok: true; readonly value: ServersConfig } | { readonly ok: false; readonly error: McpProxyError } {
  try {
    return { ok: true, value: parseServersConfig(input, options) }
  } catch (error) {
    if (McpProxyError.is(error)) return { ok: false, error }
    throw error
  }
}

/** Line and column (both from 1) of a character offset. */
function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`
}

/**
 * Reads and decodes a config file; relative `cwd` values and the default `cwd` are the file's
 * directory.
 * @throws {McpProxyError} `MCP_PROXY_CONFIG_NOT_FOUND`, `MCP_PROXY_INVALID_JSON` or `MCP_PROXY_INVALID_CONFIG`.
 */
export async function loadServersConfig(path: string, options: { readonly variables?: VariableLookup } = {}): Promise<ServersConfig> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as { code?: unknown }).code === 'ENOENT' ? 'no such file' : (error as { code?: unknown }).code === 'EISDIR' ? 'it is a directory' : 'it cannot be read'
    throw new McpProxyError('MCP_PROXY_CONFIG_NOT_FOUND', `${path}: ${reason}; pass the path of a JSON file with "mcpServers" to --config.`,
      { value: path, cause: error })
  }
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    const offset = /position (\d+)/.exec((error as Error).message)?.[1]
    const where = offset === undefined ? '' : ` at ${positionOf(text, Number(offset))}`
    throw new McpProxyError('MCP_PROXY_INVALID_JSON', `${path}: not valid JSON${where} (${(error as Error).message.split('\n')[0] ?? ''}); fix the syntax (comments and trailing commas are not allowed).`,
      { value: path, cause: error })
  }
  return parseServersConfig(input, { directory: dirname(resolve(path)), source: path, ...options.variables === undefined ? {} : { variables: options.variables } })
}
