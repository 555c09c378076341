/**
 * The client span of one `tools/call` we send to an upstream server (the MCP semantic
 * conventions: `tools/call {tool}`, kind client), a child of the active span (in a run, the
 * program's `execute_tool` call), and the `_meta` that carries it to the server, so the server's
 * own spans continue our trace.
 */
import { SpanKind, context, trace } from '@opentelemetry/api'
import type { CallToolResult } from '@modelcontextprotocol/client'
import { traceMetaOf } from '../protocol/trace-meta.js'
import { endWithToolCallOutcome } from '../protocol/tool-call-outcome.js'
import { PACKAGE_INFO } from '../package-info.js'

const tracer = trace.getTracer(PACKAGE_INFO.name, PACKAGE_INFO.version)

/** Makes one upstream call inside its client span; `call` gets the `_meta` fields to send, if any. */
export function callInUpstreamSpan(
  serverName: string,
  toolName: string,
  call: (meta: Record<string, string> | undefined) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const span = tracer.startSpan(`tools/call ${toolName}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolName,
      'code_runtime.upstream.server': serverName,
    },
  })
  // Injected from the span's own context, not the active one: the peer's parent is this span.
  const meta = traceMetaOf(trace.setSpan(context.active(), span))
  return endWithToolCallOutcome(span, () => call(meta))
}
