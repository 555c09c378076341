/**
 * The words of an MCP error without the `MCP error <code>: ` prefixes that SDK 1.x puts on them.
 * SDK 2 sends and reads bare messages, but the servers we proxy and the clients we serve may
 * still be on 1.x: its `McpError` writes the prefix into its own message, a 1.x server sends that
 * message as is (and `McpServer` answers an unknown tool with it as `isError` text), and a 1.x
 * client's `McpError` adds another. The code says nothing a program or a model can act on.
 */

/** The prefix (or prefixes, when errors were passed on through several hops) SDK 1.x puts on an error message. */
const MCP_ERROR_PREFIXES = /^(?:MCP error -?\d+: )+/

/**
 * The words of an error without SDK 1.x's `MCP error <code>: ` prefixes.
 * @example withoutMcpErrorPrefix('MCP error -32602: MCP error -32602: Tool x not found') // 'Tool x not found'
 */
export function withoutMcpErrorPrefix(message: string): string {
  return message.replace(MCP_ERROR_PREFIXES, '')
}
