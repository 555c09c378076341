/**
 * Host-facing errors of the MCP proxy and the CLI: a bad config, an upstream server that cannot
 * start, a backend that is not installed. What a program does never throws one of these; it
 * reaches the model as data.
 */
import { CodeRuntimeFamilyError, type CodeRuntimeFamilyErrorDetails } from '@code-runtime/core'

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
  /** The command line is wrong (an unknown command or option, a missing argument), or an option given to the API. */
  | 'MCP_PROXY_USAGE'
  /** The program file given to `code-runtime run` cannot be read. */
  | 'MCP_PROXY_PROGRAM_NOT_FOUND'
  /**
   * Authentication cannot be set up: an issuer whose metadata or keys cannot be had, a keys file
   * that is malformed or readable by others.
   */
  | 'MCP_PROXY_AUTH_SETUP'
  /** The store of logins to remote servers is readable by others, a symbolic link, or someone else's. */
  | 'MCP_PROXY_TOKEN_STORE_UNSAFE'
  /** A remote server needs a login (none stored, or its refresh was refused): run `code-runtime auth login`. */
  | 'MCP_PROXY_LOGIN_REQUIRED'
  /** A login or a refresh could not be completed (the authorization server refused or failed). */
  | 'MCP_PROXY_LOGIN_FAILED'

/** Details a caller can branch on instead of parsing the message. */
export interface McpProxyErrorDetails extends CodeRuntimeFamilyErrorDetails {
  /** The upstream server concerned, by its name in `mcpServers`. */
  readonly server?: string
}

/**
 * The one error class of `@code-runtime/mcp` (family `mcp`). Messages are one line that says
 * what to fix. Check identity with {@link McpProxyError.is}, not `instanceof`.
 */
export class McpProxyError extends CodeRuntimeFamilyError<McpProxyErrorCode> {
  readonly server: string | undefined

  constructor(code: McpProxyErrorCode, message: string, details: McpProxyErrorDetails = {}) {
    super('mcp', code, message, details)
    this.name = 'McpProxyError'
    this.server = details.server
  }

  /** True for a {@link McpProxyError} from any copy of this package or any realm. Never throws. */
  static override is(value: unknown): value is McpProxyError {
    return CodeRuntimeFamilyError.is(value, 'mcp')
  }
}
