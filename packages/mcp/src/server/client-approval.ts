/**
 * Who approves a run's tool calls in `code-runtime serve`: the person at the MCP client, asked
 * through MCP elicitation (a form request the client shows). A client that cannot ask gets the
 * configured fallback, `decline` unless the operator chose otherwise: a call is never allowed
 * because nobody could be asked, unless that was configured. Every decision is logged.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ElicitRequestFormParams, RequestId } from '@modelcontextprotocol/sdk/types.js'
import {
  showProgramText,
  type ApproveToolCall,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
} from '@code-runtime/code-mode'
import { MAX_TIMER_MS } from '@code-runtime/core/internal'
import { withRequestSignal } from '../protocol/request-signal.js'

/** What a call that needs approval gets when the client cannot ask a person. */
export type ApprovalFallback = 'decline' | 'allow'

export const APPROVAL_FALLBACKS: readonly ApprovalFallback[] = Object.freeze(['decline', 'allow'])
export const DEFAULT_APPROVAL_FALLBACK: ApprovalFallback = 'decline'

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
  readonly server: Server
  /** The `tools/call` request the run answers: the question is sent as part of it. */
  readonly relatedRequestId: RequestId
  readonly fallback: ApprovalFallback
  /** Told each decision in one line. */
  readonly log?: (line: string) => void
}

/** The approver of one run: asks the client's person, or applies the fallback. */
export function clientApprover(options: ClientApproverOptions): ApproveToolCall {
  const { server, relatedRequestId, fallback, log } = options
  return async (request, { signal }) => {
    if (server.getClientCapabilities()?.elicitation?.form === undefined) {
      const decision: ToolApprovalDecision =
        fallback === 'allow'
          ? { action: 'allow' }
          : {
              action: 'decline',
              unasked: true,
              reason:
                'the MCP client cannot ask a person (it does not support elicitation), and this server declines such calls',
            }
      log?.(describeDecision(request.tool, decision, `the fallback for clients without elicitation (${fallback})`))
      return decision
    }
    // The run's wall ceiling bounds the wait, not the SDK's default request timeout.
    const result = await withRequestSignal(signal, own =>
      server.elicitInput(
        { mode: 'form', message: approvalMessage(request), requestedSchema: APPROVAL_FORM },
        { signal: own, timeout: MAX_TIMER_MS, relatedRequestId },
      ),
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
