/**
 * The `mcpServers` config people already have (Claude Desktop, Cursor, Claude Code): decoded
 * once, here, into frozen records the rest of the package trusts. Unknown fields are refused
 * with a suggestion, since a typo is the commonest config bug; every message is one line that
 * names the file, the JSON path, the rule and the value received.
 *
 * Fields are read with core's config readers at a place that names the file and the JSON path
 * (`servers.json: mcpServers.files.args ...`) and throws an {@link McpProxyError}.
 */
import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import {
  joinConfigPath,
  MAX_TIMER_MS,
  nestConfigLabel,
  readConfigObject,
  readIntegerField,
  readRecordField,
  readStringField,
  readStringListField,
  readStringRecordField,
  refuseConfigField,
  refuseUnknownConfigFields,
  type Checked,
  type ConfigPlace,
  type ConfigRecord,
} from '@code-runtime/core/internal'
import { expandVariables, type VariableLookup } from './config-variables.js'
import { McpProxyError } from '../errors.js'

/** Fields every server entry may have. */
interface ServerConfigBase {
  /** The server's key in `mcpServers`. */
  readonly name: string
  /** Only tools matching one of these patterns are offered (`*` matches any run of characters). */
  readonly include?: readonly string[]
  /** Tools matching one of these patterns are not offered; applied after `include`. */
  readonly exclude: readonly string[]
  /** Calls of tools matching one of these patterns wait for a person's approval, whatever their annotations say. */
  readonly approve?: readonly string[]
  /** Calls of tools matching one of these patterns never wait for approval, unless `approve` matches them too. */
  readonly autoApprove?: readonly string[]
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

/**
 * The OAuth client `code-runtime auth login` is for a server that does not take dynamic client
 * registration: one registered by hand with its authorization server.
 */
export interface OAuthClientConfig {
  /** The client ID; an https:// URL here is a client ID metadata document. */
  readonly clientId: string
  /** Only for a confidential client; kept in the config, never in the token store. */
  readonly clientSecret?: string
  /** Scopes every login asks for, in place of those the server's challenge or metadata names. */
  readonly scopes?: readonly string[]
}

/** A remote server reached over Streamable HTTP. */
export interface HttpServerConfig extends ServerConfigBase {
  readonly transport: 'http'
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** Present when the entry names its OAuth client; without it a login registers one dynamically. */
  readonly oauth?: OAuthClientConfig
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

const TOP_LEVEL_FIELDS = ['mcpServers'] as const
const OAUTH_FIELDS = ['clientId', 'clientSecret', 'scopes'] as const
/** RFC 6749's scope-token: printable ASCII without space, `"` or `\\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/
const STDIO_FIELDS = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'include',
  'exclude',
  'approve',
  'autoApprove',
  'timeoutMs',
  'connectTimeoutMs',
] as const
const HTTP_FIELDS = [
  'type',
  'url',
  'headers',
  'oauth',
  'include',
  'exclude',
  'approve',
  'autoApprove',
  'timeoutMs',
  'connectTimeoutMs',
] as const

/** The place of the file's root: refusals are one-line {@link McpProxyError}s naming the file and, within a server, the server. */
function rootPlace(source: string, server?: string): ConfigPlace {
  return {
    refuse: ({ field, value, text }) =>
      new McpProxyError('MCP_PROXY_INVALID_CONFIG', `${source}: ${text}.`, {
        ...(field === undefined ? {} : { field }),
        value,
        ...(server === undefined ? {} : { server }),
      }),
  }
}

/** `oauth: { clientId, clientSecret?, scopes? }` of a `url` server, its `${NAME}` references expanded. */
function readOAuthClient(place: ConfigPlace, record: ConfigRecord, expand: Expand): OAuthClientConfig | undefined {
  if (record.oauth === undefined) return undefined
  const oauth = readRecordField(place, record, 'oauth', {
    expected: 'an object { "clientId": ..., "clientSecret"?: ..., "scopes"?: [...] }',
    knownFields: OAUTH_FIELDS,
  })
  const at = nestConfigLabel(place, 'oauth')
  const clientId = expand(readStringField(at, oauth, 'clientId'), at, 'clientId')
  const clientSecret =
    oauth.clientSecret === undefined
      ? undefined
      : expand(readStringField(at, oauth, 'clientSecret'), at, 'clientSecret')
  const scopes = readStringListField(at, oauth, 'scopes', undefined)
  const badScope = scopes?.findIndex(scope => !SCOPE_TOKEN.test(scope)) ?? -1
  if (scopes !== undefined && badScope !== -1)
    refuseConfigField(
      nestConfigLabel(at, 'scopes'),
      String(badScope),
      'must be one scope, without spaces or quotes (list each scope as its own string)',
      scopes[badScope],
    )
  if (scopes?.length === 0) refuseConfigField(at, 'scopes', 'must list at least one scope, or be left out', scopes)
  return Object.freeze({
    clientId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(scopes === undefined ? {} : { scopes: Object.freeze([...scopes]) }),
  })
}

/** Expands the `${NAME}` references of the string read at `field` of the record `place` reads. */
type Expand = (text: string, place: ConfigPlace, field: string) => string

function readTimeout(place: ConfigPlace, record: ConfigRecord, field: string, fallback: number): number {
  return readIntegerField(place, record, field, { default: fallback, min: 1, max: MAX_TIMER_MS, unit: 'milliseconds' })
}

function readPatterns(place: ConfigPlace, record: ConfigRecord, field: string): readonly string[] | undefined {
  const patterns = readStringListField(place, record, field, undefined)
  const empty = patterns?.indexOf('') ?? -1
  if (empty !== -1)
    refuseConfigField(nestConfigLabel(place, field), String(empty), 'must be a tool name or a pattern with *', '')
  return patterns
}

function expandList(list: readonly string[], place: ConfigPlace, field: string, expand: Expand): readonly string[] {
  const items = nestConfigLabel(place, field)
  return Object.freeze(list.map((item, index) => expand(item, items, String(index))))
}

function expandRecord(
  record: Readonly<Record<string, string>>,
  place: ConfigPlace,
  field: string,
  expand: Expand,
): Readonly<Record<string, string>> {
  const entries = nestConfigLabel(place, field)
  return Object.freeze(
    Object.fromEntries(Object.entries(record).map(([key, item]) => [key, expand(item, entries, key)])),
  )
}

function readServer(name: string, servers: ConfigRecord, options: ServersConfigOptions): UpstreamServerConfig {
  const source = options.source ?? 'config'
  // Refusals inside a server name it in `server`, so a caller can point at the entry.
  const serversPlace = nestConfigLabel(rootPlace(source, name), 'mcpServers')
  const record = readRecordField(serversPlace, servers, name, {
    expected: 'an object with "command" (a local server) or "url" (a remote one)',
  })
  const place = nestConfigLabel(serversPlace, name)
  const variables = options.variables ?? ((variable: string) => process.env[variable])
  const expand: Expand = (text, at, field) =>
    expandVariables(text, { label: source, field: joinConfigPath(at.path, field), server: name }, variables)
  const { type } = record
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'streamable-http') {
    refuseConfigField(
      place,
      'type',
      type === 'sse'
        ? 'is "sse", which code-runtime does not speak; use the server\'s Streamable HTTP endpoint with "type": "http"'
        : 'must be "stdio" or "http"',
      type,
    )
  }
  if (record.command !== undefined && record.url !== undefined) {
    refuseConfigField(
      serversPlace,
      name,
      'has both "command" and "url"; keep "command" for a local server or "url" for a remote one',
      record,
    )
  }
  const isHttp =
    type === 'http' ||
    type === 'streamable-http' ||
    (type === undefined && record.url !== undefined && record.command === undefined)
  refuseUnknownConfigFields(place, record, isHttp ? HTTP_FIELDS : STDIO_FIELDS)
  const include = readPatterns(place, record, 'include')
  const shared = {
    name,
    ...(include === undefined ? {} : { include }),
    exclude: readPatterns(place, record, 'exclude') ?? Object.freeze([]),
    approve: readPatterns(place, record, 'approve') ?? Object.freeze([]),
    autoApprove: readPatterns(place, record, 'autoApprove') ?? Object.freeze([]),
    timeoutMs: readTimeout(place, record, 'timeoutMs', DEFAULT_TOOL_TIMEOUT_MS),
    connectTimeoutMs: readTimeout(place, record, 'connectTimeoutMs', DEFAULT_CONNECT_TIMEOUT_MS),
  }
  if (isHttp) {
    const url = expand(readStringField(place, record, 'url'), place, 'url')
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      refuseConfigField(place, 'url', 'must be an http:// or https:// URL', url)
    }
    const headers = expandRecord(readStringRecordField(place, record, 'headers', {}), place, 'headers', expand)
    const oauth = readOAuthClient(place, record, expand)
    return Object.freeze({
      ...shared,
      transport: 'http',
      url: parsed.href,
      headers,
      ...(oauth === undefined ? {} : { oauth }),
    })
  }
  if (record.command === undefined) {
    refuseConfigField(
      serversPlace,
      name,
      'needs "command" (a local server started as a process) or "url" (a remote server)',
      record,
    )
  }
  return Object.freeze({
    ...shared,
    transport: 'stdio',
    command: expand(readStringField(place, record, 'command'), place, 'command'),
    args: expandList(readStringListField(place, record, 'args', []), place, 'args', expand),
    env: expandRecord(readStringRecordField(place, record, 'env', {}), place, 'env', expand),
    cwd:
      record.cwd === undefined
        ? options.directory
        : resolve(options.directory, expand(readStringField(place, record, 'cwd'), place, 'cwd')),
  })
}

/**
 * Decodes an `{ "mcpServers": { ... } }` object.
 * @throws {McpProxyError} `MCP_PROXY_INVALID_CONFIG`, with `field` the JSON path at fault.
 * @example
 * const config = parseServersConfig({ mcpServers: { files: { command: 'mcp-server-filesystem', args: ['.'] } } }, { directory: process.cwd() })
 */
export function parseServersConfig(input: unknown, options: ServersConfigOptions): ServersConfig {
  const root = rootPlace(options.source ?? 'config')
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    refuseConfigField(root, 'the config', 'must be a JSON object { "mcpServers": { ... } }', input)
  }
  // Unknown top-level keys are named as fields of "the config", the words the messages use for the root.
  const config = readConfigObject({ ...root, path: 'the config' }, input, TOP_LEVEL_FIELDS)
  const servers = readRecordField(root, config, 'mcpServers', { expected: 'an object of servers by name' })
  for (const name of Object.keys(servers)) {
    if (name.trim() === '') refuseConfigField(root, 'mcpServers', 'must not have a server with an empty name', name)
  }
  return Object.freeze({
    servers: Object.freeze(Object.keys(servers).map(name => readServer(name, servers, options))),
    directory: options.directory,
  })
}

/** {@link parseServersConfig} without throwing. */
export function safeParseServersConfig(
  input: unknown,
  options: ServersConfigOptions,
): Checked<ServersConfig, McpProxyError> {
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
export async function loadServersConfig(
  path: string,
  options: { readonly variables?: VariableLookup } = {},
): Promise<ServersConfig> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const reason =
      (error as { code?: unknown }).code === 'ENOENT'
        ? 'no such file'
        : (error as { code?: unknown }).code === 'EISDIR'
          ? 'it is a directory'
          : 'it cannot be read'
    throw new McpProxyError(
      'MCP_PROXY_CONFIG_NOT_FOUND',
      `${path}: ${reason}; pass the path of a JSON file with "mcpServers" to --config.`,
      { value: path, cause: error },
    )
  }
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    const offset = /position (\d+)/.exec((error as Error).message)?.[1]
    const where = offset === undefined ? '' : ` at ${positionOf(text, Number(offset))}`
    throw new McpProxyError(
      'MCP_PROXY_INVALID_JSON',
      `${path}: not valid JSON${where} (${(error as Error).message.split('\n')[0] ?? ''}); fix the syntax (comments and trailing commas are not allowed).`,
      { value: path, cause: error },
    )
  }
  return parseServersConfig(input, {
    directory: dirname(resolve(path)),
    source: path,
    ...(options.variables === undefined ? {} : { variables: options.variables }),
  })
}
