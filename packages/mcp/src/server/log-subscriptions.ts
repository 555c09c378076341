/**
 * The SDK's low-level `Server`, told which client sessions asked for log messages.
 *
 * The SDK already does the rest: its own `logging/setLevel` handler stores each session's level,
 * and the context's `log` drops messages below it. But a session that never sent
 * `logging/setLevel` gets every message, and a program's log flood must not reach a client that
 * did not ask for it. So the SDK's handler is wrapped, not replaced: it still keeps the level, and
 * the wrapper notes that the session asked. This is the 2025 way of asking; a 2026-07-28 request
 * asks for itself, in its envelope (see request-envelope.ts).
 */
import {
  Server,
  type HandlerResultTypeMap,
  type RequestMethod,
  type RequestTypeMap,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server'

/**
 * The key the SDK files a session's log level under (stdio has no session id: `undefined`), the
 * same one its own `logging/setLevel` handler computes.
 */
export function logSessionKey(context: ServerContext): string | undefined {
  if (context.sessionId !== undefined && context.sessionId !== '') return context.sessionId
  const header = context.http?.req?.headers.get('mcp-session-id')
  return typeof header === 'string' && header !== '' ? header : undefined
}

/** A handler of a request the protocol defines, as `setRequestHandler` takes it. */
type SpecRequestHandler<M extends RequestMethod> = (
  request: RequestTypeMap[M],
  context: ServerContext,
) => HandlerResultTypeMap[M] | Promise<HandlerResultTypeMap[M]>

/** A `Server` that knows whether a session asked for log messages. */
export class LogSubscribingServer extends Server {
  // Created on first use: the SDK registers its setLevel handler from the base constructor,
  // before this class's fields exist.
  #subscribed: Set<string | undefined> | undefined

  // The base method is overloaded (a method the protocol defines, or a custom one with its own
  // schemas), so the override restates both and passes anything but setLevel through untouched.
  override setRequestHandler<M extends RequestMethod>(method: M, handler: SpecRequestHandler<M>): void
  override setRequestHandler<P extends StandardSchemaV1, R extends StandardSchemaV1 | undefined = undefined>(
    method: string,
    schemas: { params: P; result?: R },
    handler: (params: StandardSchemaV1.InferOutput<P>, context: ServerContext) => unknown,
  ): void
  override setRequestHandler(method: string, ...rest: unknown[]): void {
    const register = super.setRequestHandler as (method: string, ...rest: unknown[]) => void
    const [handler] = rest
    if (method !== 'logging/setLevel' || rest.length !== 1 || typeof handler !== 'function') {
      register.call(this, method, ...rest)
      return
    }
    const setLevel = handler as SpecRequestHandler<'logging/setLevel'>
    register.call(this, method, (request: RequestTypeMap['logging/setLevel'], context: ServerContext) => {
      ;(this.#subscribed ??= new Set()).add(logSessionKey(context))
      return setLevel(request, context)
    })
  }

  /** True once the session sent `logging/setLevel` (the SDK then filters by the level it set). */
  asksForLogs(sessionKey: string | undefined): boolean {
    return this.#subscribed?.has(sessionKey) ?? false
  }
}
