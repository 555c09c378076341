/**
 * How a `tools/call` span ends, on either side of a connection (the MCP semantic conventions): a
 * result with `isError` is a failed call (`error.type` `tool_error`); a call that throws (a
 * protocol error, a closed connection) is named by its error's class, never by its message,
 * which is a peer's free text.
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api'

/** Awaits the call, ends `span` with its outcome, and passes the outcome on. */
export async function endWithToolCallOutcome<Result extends object>(
  span: Span,
  call: () => Promise<Result>,
): Promise<Result> {
  try {
    const result = await call()
    // An `input_required` answer (a question for the client) carries no `isError`: not a failure.
    if ((result as { readonly isError?: unknown }).isError === true) {
      span.setAttribute('error.type', 'tool_error')
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
    return result
  } catch (error) {
    span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER')
    span.setStatus({ code: SpanStatusCode.ERROR })
    throw error
  } finally {
    span.end()
  }
}
