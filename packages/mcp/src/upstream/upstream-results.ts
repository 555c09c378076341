/**
 * An upstream `tools/call` answer → what the program gets. `structuredContent` when present;
 * otherwise the text content, parsed when it is JSON (one text block → its value, several → an
 * array of them, none → null). `isError` → a rejection carrying the server's own text (without
 * SDK 1.x's `MCP error <code>: ` prefixes, in this and in failed calls: see protocol-errors.ts). Images,
 * audio, resources and resource links are not JSON for the program: they are collected and
 * returned beside the run's text as content blocks, so the model still sees them.
 */
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type AudioContent,
  type CallToolResult,
  type EmbeddedResource,
  type ImageContent,
  type ResourceLink,
} from '@modelcontextprotocol/client'
import type { Checked, CodeJsonValue } from '@code-runtime/core'
import { McpProxyError } from '../errors.js'
import { withoutMcpErrorPrefix } from '../protocol/protocol-errors.js'

/** Content a tool produced that is not text: handed to the MCP client as it came. */
export type MediaBlock = ImageContent | AudioContent | EmbeddedResource | ResourceLink

/** A decoded answer: the program's value, or the server's error text; media either way. */
export type DecodedCallResult = Checked<CodeJsonValue> & { readonly media: readonly MediaBlock[] }

/** Longest error text from a server passed on to the program, in characters. */
const MAX_ERROR_CHARS = 4_000

function parseTextValue(text: string): CodeJsonValue {
  try {
    return JSON.parse(text) as CodeJsonValue
  } catch {
    return text
  }
}

/**
 * Decodes one answer of `tools/call`.
 * @example decodeCallResult({ content: [{ type: 'text', text: '{"n":1}' }] }) // { ok: true, value: { n: 1 }, media: [] }
 */
export function decodeCallResult(result: CallToolResult): DecodedCallResult {
  const texts: string[] = []
  const media: MediaBlock[] = []
  for (const block of result.content) {
    if (block.type === 'text') texts.push(block.text)
    else media.push(block)
  }
  if (result.isError === true) {
    // SDK 1.x's McpServer answers its own refusals (an unknown tool, arguments its schema
    // rejects) this way, with `MCP error <code>: ` in front of the words that matter.
    const text = withoutMcpErrorPrefix(texts.join('\n').trim())
    const message = text === '' ? 'The tool reported an error without a message.' : text
    return {
      ok: false,
      error: message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}...` : message,
      media,
    }
  }
  if (result.structuredContent !== undefined)
    return { ok: true, value: result.structuredContent as CodeJsonValue, media }
  const value: CodeJsonValue =
    texts.length === 0 ? null : texts.length === 1 ? parseTextValue(texts[0] as string) : texts.map(parseTextValue)
  return { ok: true, value, media }
}

/**
 * Words a failed call (a rejection of `callTool`, not an `isError` answer) for the program: what
 * happened to the server and what the next call will do.
 */
export function describeCallFailure(server: string, timeoutMs: number, error: unknown): string {
  if (McpProxyError.is(error)) return error.message
  if (SdkError.isInstance(error)) {
    if (error.code === SdkErrorCode.ConnectionClosed) {
      return `Server "${server}" stopped while answering (its connection closed); the next call starts it again.`
    }
    if (error.code === SdkErrorCode.RequestTimeout) {
      return `Server "${server}" did not answer within ${timeoutMs} ms (its timeoutMs); ask for less per call.`
    }
    return error.message
  }
  // A server on SDK 1.x that threw an McpError sends its message with the prefix; the rest is
  // the server's words.
  if (ProtocolError.isInstance(error)) return withoutMcpErrorPrefix(error.message)
  return error instanceof Error ? error.message : String(error)
}
