/**
 * Who approves a run's tool calls in `code-runtime serve`: the person at the MCP client, asked
 * through MCP elicitation (a form the client shows). A client that cannot be asked gets the
 * configured fallback, `decline` unless the operator chose otherwise: a call is never allowed
 * because nobody could be asked, unless that was configured. Every decision is logged.
 *
 * How the question travels depends on the revision of the request. On a 2025-era connection the
 * server sends the client a request of its own while the run waits (here). On a request of
 * revision 2026-07-28, which stands alone, the run pauses at the call and the `tools/call` ends
 * with `input_required` carrying the same form; the client's retry brings the answer and resumes
 * the run (see paused-runs.ts and the service). Both read the answer the same way.
 */
import type { ElicitRequestFormParams, Server, ServerContext } from '@modelcontextprotocol/server'
import {
  showProgramText,
  type ApproveToolCall,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
} from '@code-runtime/code-mode'
import { MAX_TIMER_MS } from '@code-runtime/core/internal'
import { readRequestEnvelope, type RequestEnvelope } from './request-envelope.js'

/** What a call that needs approval gets when the client cannot ask a person. */
export type ApprovalFallback = 'decline' | 'allow'

export const APPROVAL_FALLBACKS: readonly ApprovalFallback[] = Object.freeze(['decline', 'allow'])
export const DEFAULT_APPROVAL_FALLBACK: ApprovalFallback = 'decline'

/** The form the client shows: one choice, and a reason for a refusal. */
export const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
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
      // A client that can answer is asked in rounds (see paused-runs.ts); this one cannot.
      return fallbackDecision(
        request.tool,
        fallback,
        {
          why: 'the MCP client cannot ask a person (its requests do not say it supports form elicitation)',
          by: `the fallback for clients without elicitation (${fallback})`,
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
    const decision = decisionOfAnswer(result) ?? { action: 'decline', reason: 'the client gave no usable answer' }
    log?.(describeDecision(request.tool, decision, 'the client'))
    return decision
  }
}

/** Longest reason a person's answer may carry to the program, in characters. */
const MAX_REASON_CHARS = 500

/**
 * The decision an answer to {@link APPROVAL_FORM} carries: an elicitation result as the client
 * sent it, read as untrusted input. Undefined when it is not an answer at all.
 */
export function decisionOfAnswer(answer: unknown): ToolApprovalDecision | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined
  const { action, content } = answer as { action?: unknown; content?: unknown }
  const fields = typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : {}
  if (action === 'accept') return fields.allowRestOfRun === true ? { action: 'allow-run' } : { action: 'allow' }
  if (action !== 'decline' && action !== 'cancel') return undefined
  const reason =
    typeof fields.reason === 'string' && fields.reason.trim() !== ''
      ? fields.reason.trim().slice(0, MAX_REASON_CHARS)
      : action === 'cancel'
        ? 'the person dismissed the question without answering'
        : undefined
  return reason === undefined ? { action: 'decline' } : { action: 'decline', reason }
}

/**
 * True when a 2026-07-28 request's client says it shows form elicitations (its capabilities come
 * with each request, in the envelope): its run's approvals pause and are asked in `input_required`.
 */
export function canAskInRounds(envelope: RequestEnvelope): boolean {
  const elicitation = envelope.capabilities?.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  // `elicitation: {}` is the form mode of revisions that had only that one.
  return 'form' in elicitation || Object.keys(elicitation).length === 0
}

/** The question of a paused call: the form, with how long the run can still wait for it. */
export function roundQuestionMessage(request: ToolApprovalRequest, remainingMs: number): string {
  const seconds = Math.max(0, Math.floor(remainingMs / 1000))
  return `${approvalMessage(request)}\n\n(The program waits at this call, and its time keeps running: it ends in ${seconds} s unless it is answered.)`
}
