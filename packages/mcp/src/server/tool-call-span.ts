/**
 * The server span of one `tools/call` we answer (the MCP semantic conventions: `tools/call
 * {tool}`, kind server), continuing the trace the client put in the request's `_meta`, and made
 * active while the call is answered, so Code Mode's `run_code` span and everything under it join
 * that trace.
 */
import { SpanKind, trace, type Attributes } from '@opentelemetry/api'
import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server'
import { contextFromMeta } from '../protocol/trace-meta.js'
import { endWithToolCallOutcome } from '../protocol/tool-call-outcome.js'
import { PACKAGE_INFO } from '../package-info.js'

const tracer = trace.getTracer(PACKAGE_INFO.name, PACKAGE_INFO.version)

/**
 * Answers one `tools/call` inside its server span. `served` names the tools we serve: any other
 * name (a client's typo, or noise) is left out of the span's name, which must stay few.
 */
export function answerInToolCallSpan<Answer extends CallToolResult | InputRequiredResult>(
  toolName: string,
  served: readonly string[],
  request: ServerContext,
  answer: () => Promise<Answer>,
): Promise<Answer> {
  const known = served.includes(toolName)
  const attributes: Attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'jsonrpc.request.id': String(request.mcpReq.id),
  }
  if (known) attributes['gen_ai.tool.name'] = toolName
  if (request.sessionId !== undefined) attributes['mcp.session.id'] = request.sessionId
  const parent = contextFromMeta(request.mcpReq._meta)
  const name = known ? `tools/call ${toolName}` : 'tools/call'
  return tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, parent, span =>
    endWithToolCallOutcome(span, answer),
  )
}
