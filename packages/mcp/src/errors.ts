/**
 * Host-facing errors of the MCP proxy and the CLI: a bad config, an upstream server that cannot
 * start, a backend that is not installed. What a program does never throws one of these; it
 * reaches the model as data.
 */

/** Stable codes of {@link McpProxyError}. A code never changes meaning. */
export type McpProxyErrorCode =
  /** The config file does not exist or cannot be read. */
  | 'MCP_PROXY_CONFIG_NOT_FOUND'
  /** The config file is not valid JSON. */
  | 'MCP_PROXY_INVALID_JSON'
  /** The config breaks a rule: an unknown field, a wrong type, an unset `${VAR}`. */
  | 'MCP_PROXY_INVALID_CONFIG'
  /** A stdio server's `command` is neither on PATH nor in a `node_modules/.bin` above the config. */
  | 'MCP_PROXY_COMMAND_NOT_FOUND'
  /** An upstream server started but the MCP handshake failed, or it exited during it. */
  | 'MCP_PROXY_CONNECT_FAILED'
  /** An upstream server did not finish the handshake within its `connectTimeoutMs`. */
  | 'MCP_PROXY_CONNECT_TIMEOUT'
  /** The chosen code runtime backend is not installed or cannot work on this machine. */
  | 'MCP_PROXY_BACKEND_UNAVAILABLE'
  /** The command line is wrong: an unknown command or option, a missing argument. */
  | 'MCP_PROXY_USAGE'
  /** The program file given to `code-runtime run` cannot be read. */
  | 'MCP_PROXY_PROGRAM_NOT_FOUND'

const BRAND = Symbol.for('code-runtime.mcp.error')

/** Details a caller can branch on instead of parsing the message. */
export interface McpProxyErrorDetails {
  /** The config field at fault, e.g. `mcpServers.files.args`. */
  readonly field?: string
  /** The upstream server concerned, by its name in `mcpServers`. */
  readonly server?: string
  /** The offending value, as received. */
  readonly value?: unknown
  readonly cause?: unknown
}

/**
 * The one error class of `@code-runtime/mcp`. Messages are one line that says what to fix.
 * Check identity with {@link McpProxyError.is}, not `instanceof`.
 */
export class McpProxyError extends Error {
  readonly code: McpProxyErrorCode
  readonly field: string | undefined
  readonly server: string | undefined
  readonly value: unknown

  constructor(code: McpProxyErrorCode, message: string, details: McpProxyErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'McpProxyError'
    this.code = code
    this.field = details.field
    this.server = details.server
    this.value = details.value
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for a {@link McpProxyError} from any copy of this package or any realm. Never throws. */
  static is(value: unknown): value is McpProxyError {
    if (typeof value !== 'object' || value === null) return false
    try {
      return (value as Record<symbol, unknown>)[BRAND] === true
    } catch {
      // A Proxy or a getter on the brand can throw; such a value is not one of ours.
      return false
    }
  }
}
