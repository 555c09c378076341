/**
 * How a `tools/call` span ends, on either side of a connection (the MCP semantic conventions): a
 * result with `isError` is a failed call (`error.type` `tool_error`); a call that throws (a
 * protocol error, a closed connection) is named by its error's class, never by its message,
 * which is a peer's free text.
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api'

/** Awaits the call, ends `span` with its outcome, and passes the outcome on. */
export async function endWithToolCallOutcome<Result extends { readonly isError?: boolean | undefined }>(
  span: Span,
  call: () => Promise<Result>,
): Promise<Result> {
  try {
    const result = await call()
    if (result.isError === true) {
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
