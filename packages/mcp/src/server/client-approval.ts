/**
 * Who approves a run's tool calls in `code-runtime serve`: the person at the MCP client, asked
 * through MCP elicitation (a form request the client shows) while the run waits. A client that
 * cannot be asked gets the configured fallback, `decline` unless the operator chose otherwise: a
 * call is never allowed because nobody could be asked, unless that was configured. Every
 * decision is logged.
 *
 * Asking mid-run takes a server-to-client request, which only 2025-era connections have. On a
 * request of revision 2026-07-28 the server would have to end the `tools/call` with
 * `input_required` and resume the run when the client retries it with the answer; until runs can
 * pause that way, such a client gets the fallback too, and the program and the log say why.
 */
import type { ElicitRequestFormParams, Server, ServerContext } from '@modelcontextprotocol/server'
import {
  showProgramText,
  type ApproveToolCall,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
} from '@code-runtime/code-mode'
import { MAX_TIMER_MS } from '@code-runtime/core/internal'
import { readRequestEnvelope } from './request-envelope.js'

/** What a call that needs approval gets when the client cannot ask a person. */
export type ApprovalFallback = 'decline' | 'allow'

export const APPROVAL_FALLBACKS: readonly ApprovalFallback[] = Object.freeze(['decline', 'allow'])
export const DEFAULT_APPROVAL_FALLBACK: ApprovalFallback = 'decline'

/** The newest revision we serve on which the server can ask the client mid-call. */
export const ELICITATION_PROTOCOL_VERSION = '2025-11-25'

/** The form the client shows: one choice, and a reason for a refusal. */
const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    allowRestOfRun: {
      type: 'boolean',
      title: "Also allow the rest of this program's calls that need approval",
      default: false,
    },
    reason: { type: 'string', title: 'Reason, if you decline (the program is told)' },
  },
}

/**
 * The question the client shows for one call: every argument the call carries, each field named
 * (Code Mode's summary, which never leaves one out), so what is approved is what runs.
 */
export function approvalMessage(request: ToolApprovalRequest): string {
  const purpose =
    request.programDescription === undefined
      ? 'A program'
      : `The program "${showProgramText(request.programDescription)}"`
  return `${purpose} wants to call ${request.tool} with:\n${request.summary}\n\nAllow this call?`
}

/** One decision, for the server's log: `approval: files_write_file declined by the client (reason: ...)`. */
export function describeDecision(tool: string, decision: ToolApprovalDecision, by: string): string {
  const verb =
    decision.action === 'decline'
      ? 'declined'
      : decision.action === 'allow-run'
        ? 'allowed (and the rest of its run)'
        : 'allowed'
  const reason = decision.action === 'decline' && decision.reason !== undefined ? ` (reason: ${decision.reason})` : ''
  return `approval: ${tool} ${verb} by ${by}${reason}`
}

/** Options of {@link clientApprover}. */
export interface ClientApproverOptions {
  /** The SDK server serving the request: it knows a 2025-era client's capabilities and sends the question. */
  readonly server: Server
  /** The `tools/call` request the run answers: its revision says whether the client can be asked, and the question is sent as part of it. */
  readonly request: ServerContext
  readonly fallback: ApprovalFallback
  /** Told each decision in one line. */
  readonly log?: (line: string) => void
}

/** Why nobody can be asked about a call: words for the program's refusal and the server's log. */
interface UnaskableClient {
  /** What stops the question, e.g. `the MCP client cannot ask a person (...)`. */
  readonly why: string
  /** Which fallback decided, for the log line. */
  readonly by: string
}

/** The fallback's decision for a client that cannot be asked, logged with the reason. */
function fallbackDecision(
  tool: string,
  fallback: ApprovalFallback,
  client: UnaskableClient,
  log: ((line: string) => void) | undefined,
): ToolApprovalDecision {
  if (fallback === 'allow') {
    const decision: ToolApprovalDecision = { action: 'allow' }
    log?.(`${describeDecision(tool, decision, client.by)} (${client.why})`)
    return decision
  }
  const decision: ToolApprovalDecision = {
    action: 'decline',
    unasked: true,
    reason: `${client.why}, and this server declines such calls`,
  }
  log?.(describeDecision(tool, decision, client.by))
  return decision
}

/** The approver of one run: asks the client's person, or applies the fallback. */
export function clientApprover(options: ClientApproverOptions): ApproveToolCall {
  const { server, request: context, fallback, log } = options
  const envelope = readRequestEnvelope(context)
  return async (request, { signal }) => {
    if (envelope !== undefined) {
      return fallbackDecision(
        request.tool,
        fallback,
        {
          why: `approval by elicitation needs protocol ${ELICITATION_PROTOCOL_VERSION}; this client speaks ${envelope.protocolVersion}`,
          by: `the fallback for clients that cannot be asked mid-run (${fallback})`,
        },
        log,
      )
    }
    if (server.getClientCapabilities()?.elicitation?.form === undefined) {
      return fallbackDecision(
        request.tool,
        fallback,
        {
          why: 'the MCP client cannot ask a person (it does not support elicitation)',
          by: `the fallback for clients without elicitation (${fallback})`,
        },
        log,
      )
    }
    // The run's wall ceiling bounds the wait, not the SDK's default request timeout. The SDK
    // stops listening to the signal once the question is answered, so a run that ends later
    // never withdraws a question already answered.
    const result = await server.elicitInput(
      { mode: 'form', message: approvalMessage(request), requestedSchema: APPROVAL_FORM },
      { signal, timeout: MAX_TIMER_MS, relatedRequestId: context.mcpReq.id },
    )
    let decision: ToolApprovalDecision
    if (result.action === 'accept') {
      decision = result.content?.allowRestOfRun === true ? { action: 'allow-run' } : { action: 'allow' }
    } else {
      const reason =
        typeof result.content?.reason === 'string' && result.content.reason.trim() !== ''
          ? result.content.reason
          : result.action === 'cancel'
            ? 'the person dismissed the question without answering'
            : undefined
      decision = reason === undefined ? { action: 'decline' } : { action: 'decline', reason }
    }
    log?.(describeDecision(request.tool, decision, 'the client'))
    return decision
  }
}
