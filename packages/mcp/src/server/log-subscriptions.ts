/**
 * The SDK's low-level `Server`, told which client sessions asked for log messages.
 *
 * The SDK already does the rest: its own `logging/setLevel` handler stores each session's level,
 * and `sendLoggingMessage(params, sessionId)` drops messages below it. But a session that never
 * sent `logging/setLevel` gets every message, and a program's log flood must not reach a client
 * that did not ask for it. So the SDK's handler is wrapped, not replaced: it still keeps the level,
 * and the wrapper notes that the session asked.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { AnyObjectSchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  SetLevelRequestSchema,
  type Notification,
  type Request,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js'

/** What the SDK hands a request handler of a default `Server`. */
export type ServerHandlerExtra = RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>

/**
 * The key the SDK files a session's log level under (stdio has no session id: `undefined`).
 * Pass it to `sendLoggingMessage` so the SDK's level filter applies to the right session.
 */
export function logSessionKey(extra: ServerHandlerExtra): string | undefined {
  if (extra.sessionId !== undefined && extra.sessionId !== '') return extra.sessionId
  const header = extra.requestInfo?.headers['mcp-session-id']
  return typeof header === 'string' && header !== '' ? header : undefined
}

/** A `Server` that knows whether a session asked for log messages. */
export class LogSubscribingServer extends Server {
  // Created on first use: the SDK registers its setLevel handler from the base constructor,
  // before this class's fields exist.
  #subscribed: Set<string | undefined> | undefined

  override setRequestHandler<T extends AnyObjectSchema>(
    requestSchema: T,
    handler: (
      request: SchemaOutput<T>,
      extra: ServerHandlerExtra,
    ) => ServerResult | Result | Promise<ServerResult | Result>,
  ): void {
    if (requestSchema !== (SetLevelRequestSchema as AnyObjectSchema)) {
      super.setRequestHandler(requestSchema, handler)
      return
    }
    super.setRequestHandler(requestSchema, (request, extra) => {
      ;(this.#subscribed ??= new Set()).add(logSessionKey(extra))
      return handler(request, extra)
    })
  }

  /** True once the session sent `logging/setLevel` (the SDK then filters by the level it set). */
  asksForLogs(sessionKey: string | undefined): boolean {
    return this.#subscribed?.has(sessionKey) ?? false
  }
}
