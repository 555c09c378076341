/**
 * JSON-RPC errors whose message a client shows once. The SDK's `McpError` writes
 * `MCP error <code>: ` into its own message, the server sends that message as is, and the
 * client's `McpError` prefixes it again: `MCP error -32602: MCP error -32602: Unknown tool`.
 * A handler that throws {@link ProtocolError} instead sends the bare message with its code.
 */

/** Thrown from a request handler: the SDK answers with this `code` and exactly this `message`. */
export class ProtocolError extends Error {
  /** A JSON-RPC error code, e.g. `ErrorCode.InvalidParams` (-32602). */
  readonly code: number

  constructor(code: number, message: string) {
    super(message)
    this.name = 'ProtocolError'
    this.code = code
  }
}

/** The prefix (or prefixes, when errors were passed on through several hops) the SDK puts on an error message. */
const MCP_ERROR_PREFIXES = /^(?:MCP error -?\d+: )+/

/**
 * The words of an error without the SDK's `MCP error <code>: ` prefixes: the code says nothing
 * a program or a model can act on.
 * @example withoutMcpErrorPrefix('MCP error -32602: MCP error -32602: Tool x not found') // 'Tool x not found'
 */
export function withoutMcpErrorPrefix(message: string): string {
  return message.replace(MCP_ERROR_PREFIXES, '')
}
