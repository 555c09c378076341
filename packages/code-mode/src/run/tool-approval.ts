/**
 * Approvals: which tool calls wait for a person, and the wait itself. A call that needs approval
 * is held before it enters the dispatch queue (so calls that need none go on meanwhile), asks the
 * Code Mode's `approve` hook, and either runs or is declined in the program as a failed call.
 * Every decision is kept by the call's index in the run's call record, for the result.
 */
import type { CodeBindingCallOutcome, CodeBindingCallRecord } from '@code-runtime/core'
import { summarizeApprovalArguments } from './approval-summary.js'
import type { CodeModeToolAnnotations } from '../tools/tool-definition.js'

/** A call the `approve` hook is asked about. */
export interface ToolApprovalRequest {
  /** The tool's own name. */
  readonly tool: string
  /** How the program called it: `tools.<member>`. */
  readonly member: string
  /** The arguments, already checked against the tool's input schema: what the tool would get. */
  readonly args: unknown
  /**
   * The arguments as a person should read them (see `summarizeApprovalArguments`): every field
   * named by its key path, long values shortened in the middle, never a field left out. Show this,
   * not a rendering cut at some length: the program chooses the key order.
   */
  readonly summary: string
  /** What the program says it is for (`run_code`'s `description`), when the run has one. */
  readonly programDescription?: string
  readonly annotations?: CodeModeToolAnnotations
}

/**
 * A person's answer: run this call; run it and every later call of this run that needs approval
 * (`allow-run`); or decline it, with the reason the program is told. `unasked: true` marks a
 * refusal the approver made by rule because nobody could be asked (no terminal, a client without
 * elicitation): the program is told that, not that a person declined.
 */
export type ToolApprovalDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'allow-run' }
  | { readonly action: 'decline'; readonly reason?: string; readonly unasked?: boolean }

/**
 * Asks a person about one call. `signal` fires when the run ends or is aborted before the answer:
 * stop asking then (close the prompt); the call is cancelled whatever the hook resolves later.
 */
export type ApproveToolCall = (
  request: ToolApprovalRequest,
  context: { readonly signal: AbortSignal },
) => ToolApprovalDecision | Promise<ToolApprovalDecision>

/** What became of a call that needed approval, as its call record shows it. */
export interface ToolCallApproval {
  /** `cancelled`: the run ended (or was aborted) before anyone answered; the tool never ran. */
  readonly decision: 'allowed' | 'declined' | 'cancelled'
  /**
   * Who decided: the `approve` hook (`approver`); an earlier `allow-run` answer of the same run
   * (`allowed-for-run`); nobody, because the Code Mode has no hook (`no-approver`, always declined);
   * a hook that threw or answered nonsense (`approver-failed`, declined); nobody, because the
   * arguments are too large or too deep to show a person in full (`unshowable-arguments`, declined).
   */
  readonly decidedBy: 'approver' | 'allowed-for-run' | 'no-approver' | 'approver-failed' | 'unshowable-arguments'
  /** The person's reason for declining, when they gave one. */
  readonly reason?: string
  /** How long the call waited for the decision, in milliseconds. */
  readonly waitMs: number
}

/** A call record of a Code Mode run: the runtime's, plus the approval of calls that needed one. */
export interface ToolCallRecord extends Omit<CodeBindingCallRecord, 'outcome'> {
  /** As the runtime recorded it, except `declined`: the call needed approval and did not get it, so the tool never ran. */
  readonly outcome: CodeBindingCallOutcome | 'declined'
  readonly approval?: ToolCallApproval
}

/**
 * Whether calls of a tool wait for approval: the tool's own `needsApproval` when set, else its
 * annotations (a `destructiveHint: true` tool that does not say it is read-only).
 */
export function toolNeedsApproval(tool: {
  readonly needsApproval?: boolean
  readonly annotations?: CodeModeToolAnnotations
}): boolean {
  return tool.needsApproval ?? (tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true)
}

const MAX_REASON_CHARS = 500

function readDecision(
  value: unknown,
): { action: 'allow' | 'allow-run' } | { action: 'decline'; reason?: string; unasked: boolean } | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { action, reason, unasked } = value as { action?: unknown; reason?: unknown; unasked?: unknown }
  if (action === 'allow' || action === 'allow-run') return { action }
  if (action !== 'decline') return undefined
  // The reason reaches the model: kept short, and only a string.
  const isUnasked = unasked === true
  return typeof reason === 'string' && reason.trim() !== ''
    ? { action, reason: reason.trim().slice(0, MAX_REASON_CHARS), unasked: isUnasked }
    : { action, unasked: isUnasked }
}

/** Rejects when `signal` fires, with its reason; never settles otherwise. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason)
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

/** Thrown into the program for a declined call: a failed call like any other. */
class DeclinedCallError extends Error {}

/** The approvals of one run. */
export class RunApprovals {
  readonly #approve: ApproveToolCall | undefined
  readonly #programDescription: string | undefined
  readonly #decisions = new Map<number, ToolCallApproval>()
  // One entry per waiting call (its own key object), holding the member it calls.
  readonly #waiting = new Map<object, string>()
  #allowedForRun = false

  constructor(approve: ApproveToolCall | undefined, programDescription: string | undefined) {
    this.#approve = approve
    this.#programDescription = programDescription
  }

  /** The members whose calls wait for an answer now (each once), in the order they began waiting. */
  get waiting(): readonly string[] {
    return [...new Set(this.#waiting.values())]
  }

  /**
   * Holds one call until it is allowed; throws the program's error when it is declined, or the
   * run's reason when `signal` fires first. `index` is the call's place in the call record.
   */
  async require(
    call: Omit<ToolApprovalRequest, 'programDescription' | 'summary'>,
    index: number | undefined,
    label: string,
    signal: AbortSignal,
  ): Promise<void> {
    const startedAt = performance.now()
    const decide = (approval: Omit<ToolCallApproval, 'waitMs'>): ToolCallApproval => {
      const decided = { ...approval, waitMs: performance.now() - startedAt }
      if (index !== undefined) this.#decisions.set(index, decided)
      return decided
    }
    if (this.#allowedForRun) {
      decide({ decision: 'allowed', decidedBy: 'allowed-for-run' })
      return
    }
    if (this.#approve === undefined) {
      decide({ decision: 'declined', decidedBy: 'no-approver' })
      throw new DeclinedCallError(
        `${label} needs a person's approval, and no one can give it here; the call was not made.`,
      )
    }
    // Asking about arguments the person cannot see in full would be asking them to approve blind.
    const summary = summarizeApprovalArguments(call.args)
    if (!summary.ok) {
      decide({ decision: 'declined', decidedBy: 'unshowable-arguments', reason: summary.error })
      throw new DeclinedCallError(
        `${label} needs a person's approval and was declined without asking anyone: ${summary.error}. The call was not made.`,
      )
    }
    const shown = { ...call, summary: summary.value.text }
    const request: ToolApprovalRequest =
      this.#programDescription === undefined ? shown : { ...shown, programDescription: this.#programDescription }
    const waitingKey = {}
    this.#waiting.set(waitingKey, label)
    let answer: unknown
    try {
      const approve = this.#approve
      answer = await Promise.race([whenAborted(signal), Promise.resolve().then(() => approve(request, { signal }))])
    } catch (error) {
      if (signal.aborted) {
        decide({ decision: 'cancelled', decidedBy: 'approver' })
        throw error
      }
      decide({ decision: 'declined', decidedBy: 'approver-failed' })
      throw new DeclinedCallError(`${label} was not approved: asking for approval failed, so the call was not made.`)
    } finally {
      this.#waiting.delete(waitingKey)
    }
    if (signal.aborted) {
      decide({ decision: 'cancelled', decidedBy: 'approver' })
      throw signal.reason
    }
    const decision = readDecision(answer)
    if (decision === undefined) {
      decide({ decision: 'declined', decidedBy: 'approver-failed' })
      throw new DeclinedCallError(
        `${label} was not approved: the approver gave no valid answer, so the call was not made.`,
      )
    }
    if (decision.action === 'decline') {
      decide(
        decision.reason === undefined
          ? { decision: 'declined', decidedBy: 'approver' }
          : { decision: 'declined', decidedBy: 'approver', reason: decision.reason },
      )
      if (decision.unasked) {
        const because = decision.reason === undefined ? '' : `: ${decision.reason}`
        throw new DeclinedCallError(
          `${label} needs a person's approval and was declined without asking anyone${because}. The call was not made.`,
        )
      }
      const because = decision.reason === undefined ? '' : ` Their reason: ${decision.reason}`
      throw new DeclinedCallError(`${label}: the person declined this call, so it was not made.${because}`)
    }
    if (decision.action === 'allow-run') this.#allowedForRun = true
    decide({ decision: 'allowed', decidedBy: 'approver' })
  }

  /** The decision on the call at `index` of the call record, once made. */
  decisionOf(index: number): ToolCallApproval | undefined {
    return this.#decisions.get(index)
  }

  /** The run's call record with each decision on its call (`declined` calls marked so). */
  annotate(calls: readonly CodeBindingCallRecord[]): readonly ToolCallRecord[] {
    if (this.#decisions.size === 0) return calls
    return calls.map((call, index) => {
      const approval = this.#decisions.get(index)
      if (approval === undefined) return call
      return approval.decision === 'declined' ? { ...call, outcome: 'declined', approval } : { ...call, approval }
    })
  }
}
