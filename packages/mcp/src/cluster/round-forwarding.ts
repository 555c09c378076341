/**
 * A paused run lives in the gateway node that started it (its program's calls come back there);
 * a client's retry may land on any node. The node it lands on checks the `requestState` (signed,
 * unexpired, the caller's) and, when the state names another node, forwards the retry there over
 * the peer bus and answers what that node answers. The owner claims the round against its own
 * record, so a replay is refused wherever it arrives.
 *
 * These are the two messages of that exchange. The bus authenticates both (only gateway nodes
 * hold its key); each is still decoded field by field, so a node's bug cannot reach past here.
 */
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server'
import type { StateRefusal } from '../server/request-states.js'

/** The peer bus's kind for a forwarded retry. */
export const RESUME_KIND = 'resume'

/** A retry, forwarded to the node whose run it resumes. */
export interface ForwardedRetry {
  readonly state: string
  /** Who asked, as the receiving node authenticated them. */
  readonly principal: string
  /** The client's answers, as it sent them (each read like a local retry's). */
  readonly responses: Readonly<Record<string, unknown>>
}

/** What the owner answers: the next round or the run's result, a refusal of the state, or the run's failure. */
export type ForwardedAnswer =
  | { readonly kind: 'answer'; readonly answer: CallToolResult | InputRequiredResult }
  | { readonly kind: 'refused'; readonly reason: StateRefusal }
  | { readonly kind: 'failed'; readonly message: string }

const encoder = new TextEncoder()
const decoder = new TextDecoder()

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parse(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes))
  } catch {
    return undefined
  }
}

export function encodeForwarded(message: ForwardedRetry | ForwardedAnswer): Uint8Array {
  return encoder.encode(JSON.stringify(message))
}

/** The retry in `bytes`, or `undefined` when it is not one. */
export function decodeRetry(bytes: Uint8Array): ForwardedRetry | undefined {
  const value = parse(bytes)
  if (!isRecord(value) || typeof value.state !== 'string' || typeof value.principal !== 'string') return undefined
  if (!isRecord(value.responses)) return undefined
  return { state: value.state, principal: value.principal, responses: { ...value.responses } }
}

const REFUSALS: ReadonlySet<string> = new Set(['forged', 'expired', 'other-principal', 'replayed', 'unknown-run'])

/** The answer in `bytes`; one that does not decode is a failure the client is told of. */
export function decodeAnswer(bytes: Uint8Array): ForwardedAnswer {
  const value = parse(bytes)
  if (isRecord(value)) {
    if (value.kind === 'refused' && typeof value.reason === 'string' && REFUSALS.has(value.reason))
      return { kind: 'refused', reason: value.reason as StateRefusal }
    if (value.kind === 'failed' && typeof value.message === 'string') return { kind: 'failed', message: value.message }
    const answer = value.answer
    // A result has content; a next round has its questions and state. Nothing else is passed on.
    if (value.kind === 'answer' && isRecord(answer)) {
      if (Array.isArray(answer.content)) return { kind: 'answer', answer: answer as CallToolResult }
      if (answer.resultType === 'input_required' && isRecord(answer.inputRequests))
        return { kind: 'answer', answer: answer as unknown as InputRequiredResult }
    }
  }
  return { kind: 'failed', message: 'the node that holds the run sent an answer that does not decode' }
}
