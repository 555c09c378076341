/**
 * The messages between a caller (`NatsCodeRuntime`) and a runner, as JSON over NATS: one
 * `decode…` per message kind, each checking the shape and rebuilding plain data, so nothing that
 * crossed the network is trusted past this module. A message that does not decode is dropped by
 * its receiver, or, where a run waits on it, fails that run.
 */
import {
  CODE_RUN_FAILURE_KINDS,
  type CodeBindingCallOutcome,
  type CodeBindingCallRecord,
  type CodeRunBudget,
  type CodeRunSessionEnd,
  type CodeJsonValue,
  type CodeRunFailureKind,
  type CodeRunResult,
  type CodeRuntimeErrorCode,
  type CodeRunUsage,
} from '@code-runtime/core'
import { safeSnapshotLosslessJson, stringifyJsonValue } from '@code-runtime/core/json'
import { isObjectRecord } from '@code-runtime/core/internal'
import { MAX_MEMO_BYTES } from './session-adoption.js'
import { SUBJECT_TOKEN_PATTERN } from './subjects.js'
import { decodeTraceContext, type WireTraceContext } from './trace-context.js'

/** The version every message carries; a runner and a caller of different versions refuse each other. */
export const PROTOCOL_VERSION = 2

/** The budgets one run gets on the runner (the caller's config: a runner serves callers of any budgets). */
export interface RunBudgets {
  readonly computeMs: number
  readonly maxWallMs: number
  readonly maxOutputBytes: number
}

/** A namespace as the runner rebuilds it: its members' names, never the functions. */
export interface NamespaceDescriptor {
  readonly global: string
  readonly members: readonly string[]
  readonly errorClass?: { readonly name: string; readonly memberNameProperty: string }
}

export interface ClaimRequest {
  readonly v: number
  readonly run: string
}
/** A runner's offer: its id, its public key and a ticket for the start (message-seal.ts); it holds nothing until the start. */
export type ClaimReply =
  | { readonly ok: true; readonly runner: string; readonly key: string; readonly ticket: string }
  | { readonly ok: false; readonly reason: string }

export interface StartRequest {
  readonly v: number
  readonly run: string
  /** The caller's reply subject for this run; the runner sends the run's traffic only under it. */
  readonly reply: string
  readonly program: string
  readonly namespaces: readonly NamespaceDescriptor[]
  readonly budgets: RunBudgets
  readonly recordCallValues?: { readonly maxBytes: number }
  readonly reuseKey?: string
  /** For a run in a session: the session's claim id on the runner. */
  readonly session?: string
  /** For a one-shot run: the caller's public key and the claim's ticket (message-seal.ts). */
  readonly key?: string
  readonly ticket?: string
  /** The caller's trace context, when it traces: the runner's spans of the run join that trace. */
  readonly trace?: WireTraceContext
}
/** `retry`: nothing ran (the claim expired, or the runner filled up meanwhile), so the caller claims again. */
export type StartReply = { readonly ok: true } | { readonly ok: false; readonly message: string; readonly retry?: true }

export interface CallRequest {
  /** Numbers the run's calls on the runner: a call asked again carries the same id. */
  readonly id: number
  readonly namespace: number
  readonly member: string
  /** The call's place in the run's call record, as the runner's engine numbered it. */
  readonly index?: number
  readonly argsJson: string
}
export type CallAnswer =
  { readonly ok: true; readonly valueJson: string } | { readonly ok: false; readonly message: string }
/** An answer names the call it answers, so an answer cannot be taken for another call's. */
export type CallReply = CallAnswer & { readonly id: number }

/** A session's open request: the claim it turns into a session, the budgets, the options as given. */
export interface SessionOpenRequest {
  readonly v: number
  readonly session: string
  readonly reply: string
  readonly budgets: RunBudgets
  readonly options: Readonly<Record<string, unknown>>
  readonly key: string
  readonly ticket: string
  readonly trace?: WireTraceContext
  /** For an adoptable session: its anchor, and the SHA-256 of the proof an adopter must show (session-adoption.ts). */
  readonly adoption?: { readonly anchor: string; readonly digest: string }
}
/** `retry`: nothing was opened (the claim expired, or the runner filled up meanwhile), so the caller claims again. */
export type SessionOpenReply =
  { readonly ok: true; readonly id: string } | { readonly ok: false; readonly refusal: Refusal; readonly retry?: true }

/** A `CodeRuntimeError` of the runner's backend, carried so the caller throws the same code. */
export interface Refusal {
  readonly code: CodeRuntimeErrorCode
  readonly message: string
  readonly field?: string
}

/** Why a session stopped taking runs on the runner. */
export interface SessionEndedMessage {
  /** `moved`: another caller adopted the session; it goes on there. */
  readonly reason: 'expired' | 'lost' | 'moved'
}

/**
 * An adopter's request to take a session over: a new conversation (its claim id, reply subject
 * and public key, as a session open has) for the session at `anchor`, with the proof masked for
 * this conversation.
 */
export interface SessionAdoptRequest {
  readonly v: number
  readonly session: string
  readonly reply: string
  readonly key: string
  readonly anchor: string
  readonly proof: string
}
/**
 * `unknown` for every refusal an adopter must not tell apart (no such session, a wrong proof,
 * another identity, an ended session); `busy` only to the rightful adopter, while a run is in flight.
 */
export type SessionAdoptReply =
  | { readonly ok: true; readonly id: string; readonly memo?: string }
  | { readonly ok: false; readonly reason: 'unknown' | 'busy' }

/** A session's memo as it travels: the UTF-8 bytes, base64url, so no character is escaped into more bytes. */
export interface MemoMessage {
  readonly memo: string
}

export interface LogMessage {
  readonly text: string
}
export interface AbortMessage {
  readonly reason: string
}
export interface EndMessage {
  readonly result: CodeRunResult
}

/**
 * A result as it crosses: the value and the recorded call values as JSON text written by core's
 * iterative writer, since `JSON.stringify` of the whole message overflows the stack on values
 * nested tens of thousands of levels deep.
 */
export function encodeEndMessage(result: CodeRunResult): Uint8Array {
  const { value, calls, ...rest } = result
  const wireCalls = calls.map(({ args, result: callResult, ...call }) => ({
    ...call,
    ...(args === undefined ? {} : { argsJson: stringifyJsonValue(args) }),
    ...(callResult === undefined ? {} : { resultJson: stringifyJsonValue(callResult) }),
  }))
  return encodeMessage({
    result: { ...rest, calls: wireCalls, ...(value === undefined ? {} : { valueJson: stringifyJsonValue(value) }) },
  })
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A failure's budget fact: a config field's name (a short identifier) and a finite limit; anything else is dropped. */
function decodeBudget(raw: unknown): CodeRunBudget | undefined {
  if (!isObjectRecord(raw)) return undefined
  const { name, limit } = raw
  if (
    typeof name !== 'string' ||
    !/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(name) ||
    typeof limit !== 'number' ||
    !Number.isFinite(limit)
  )
    return undefined
  return { name, limit }
}

/** A session id as runners name them (`<runner>/<local id>`): printable, bounded. */
const SESSION_ID = /^[\x21-\x7e]{1,256}$/

function decodeSessionEnd(raw: unknown): CodeRunSessionEnd | undefined {
  if (!isObjectRecord(raw)) return undefined
  const { id, ended } = raw
  if (typeof id !== 'string' || !SESSION_ID.test(id) || (ended !== 'lost' && ended !== 'expired')) return undefined
  return { id, ended }
}

/** A message as NATS carries it. */
export function encodeMessage(message: object): Uint8Array {
  return encoder.encode(JSON.stringify(message))
}

function parse(data: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(data))
    return isObjectRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
const isDuration = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0
const isToken = (value: unknown): value is string => isString(value) && SUBJECT_TOKEN_PATTERN.test(value)
/** A reply subject is the caller's own inbox: plain tokens, no wildcards, none empty. */
const isReplySubject = (value: unknown): value is string =>
  isString(value) && /^[A-Za-z0-9_.-]{1,256}$/.test(value) && value.split('.').every(token => token !== '')

export function decodeClaimRequest(data: Uint8Array): ClaimRequest | undefined {
  const raw = parse(data)
  if (raw?.v !== PROTOCOL_VERSION || !isToken(raw.run)) return undefined
  return { v: PROTOCOL_VERSION, run: raw.run }
}

export function decodeClaimReply(data: Uint8Array): ClaimReply | undefined {
  const raw = parse(data)
  if (raw?.ok === true && isToken(raw.runner) && isString(raw.key) && isString(raw.ticket))
    return { ok: true, runner: raw.runner, key: raw.key, ticket: raw.ticket }
  if (raw?.ok === false && isString(raw.reason)) return { ok: false, reason: raw.reason }
  return undefined
}

function decodeNamespace(value: unknown): NamespaceDescriptor | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { global, members, errorClass } = value as Record<string, unknown>
  if (!isString(global) || !Array.isArray(members) || !members.every(isString)) return undefined
  if (errorClass === undefined) return { global, members: [...members] }
  if (typeof errorClass !== 'object' || errorClass === null) return undefined
  const { name, memberNameProperty } = errorClass as Record<string, unknown>
  if (!isString(name) || !isString(memberNameProperty)) return undefined
  return { global, members: [...members], errorClass: { name, memberNameProperty } }
}

function decodeBudgets(value: unknown): RunBudgets | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { computeMs, maxWallMs, maxOutputBytes } = value as Record<string, unknown>
  if (!isDuration(computeMs) || !isDuration(maxWallMs) || !isCount(maxOutputBytes)) return undefined
  return { computeMs, maxWallMs, maxOutputBytes }
}

export function decodeStartRequest(data: Uint8Array): StartRequest | undefined {
  const raw = parse(data)
  if (raw?.v !== PROTOCOL_VERSION || !isToken(raw.run) || !isReplySubject(raw.reply) || !isString(raw.program))
    return undefined
  if (!Array.isArray(raw.namespaces)) return undefined
  const namespaces = raw.namespaces.map(decodeNamespace)
  if (namespaces.some(namespace => namespace === undefined)) return undefined
  const budgets = decodeBudgets(raw.budgets)
  if (budgets === undefined) return undefined
  const start: { -readonly [K in keyof StartRequest]: StartRequest[K] } = {
    v: PROTOCOL_VERSION,
    run: raw.run,
    reply: raw.reply,
    program: raw.program,
    namespaces: namespaces as NamespaceDescriptor[],
    budgets,
  }
  if (raw.recordCallValues !== undefined) {
    const maxBytes = (raw.recordCallValues as { maxBytes?: unknown } | null)?.maxBytes
    if (!isCount(maxBytes)) return undefined
    start.recordCallValues = { maxBytes }
  }
  if (raw.reuseKey !== undefined) {
    if (!isString(raw.reuseKey)) return undefined
    start.reuseKey = raw.reuseKey
  }
  if (raw.session !== undefined) {
    if (!isToken(raw.session)) return undefined
    start.session = raw.session
  } else {
    if (!isString(raw.key) || !isString(raw.ticket)) return undefined
    start.key = raw.key
    start.ticket = raw.ticket
  }
  const trace = decodeTraceContext(raw.trace)
  if (trace !== undefined) start.trace = trace
  return start
}

export function decodeStartReply(data: Uint8Array): StartReply | undefined {
  const raw = parse(data)
  if (raw?.ok === true) return { ok: true }
  if (raw?.ok === false && isString(raw.message))
    return raw.retry === true ? { ok: false, message: raw.message, retry: true } : { ok: false, message: raw.message }
  return undefined
}

export function decodeCallRequest(data: Uint8Array): CallRequest | undefined {
  const raw = parse(data)
  if (
    raw === undefined ||
    !isCount(raw.id) ||
    !isCount(raw.namespace) ||
    !isString(raw.member) ||
    !isString(raw.argsJson)
  )
    return undefined
  if (raw.index !== undefined && !isCount(raw.index)) return undefined
  return raw.index === undefined
    ? { id: raw.id, namespace: raw.namespace, member: raw.member, argsJson: raw.argsJson }
    : { id: raw.id, namespace: raw.namespace, member: raw.member, index: raw.index, argsJson: raw.argsJson }
}

export function decodeCallReply(data: Uint8Array): CallReply | undefined {
  const raw = parse(data)
  if (raw === undefined || !isCount(raw.id)) return undefined
  if (raw.ok === true && isString(raw.valueJson)) return { id: raw.id, ok: true, valueJson: raw.valueJson }
  if (raw.ok === false && isString(raw.message)) return { id: raw.id, ok: false, message: raw.message }
  return undefined
}

export function decodeLogMessage(data: Uint8Array): LogMessage | undefined {
  const raw = parse(data)
  return raw !== undefined && isString(raw.text) ? { text: raw.text } : undefined
}

export function decodeAbortMessage(data: Uint8Array): AbortMessage | undefined {
  const raw = parse(data)
  return raw !== undefined && isString(raw.reason) ? { reason: raw.reason } : undefined
}

/** A JSON value that arrived as text, parsed and checked to be lossless JSON again (JSON text can spell `-0`). */
function losslessValue(text: unknown): CodeJsonValue | undefined {
  if (typeof text !== 'string') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  const snapshot = safeSnapshotLosslessJson(parsed, { rootLabel: 'value' })
  return snapshot.ok ? snapshot.value : undefined
}

const OUTCOMES: readonly CodeBindingCallOutcome[] = ['ok', 'error', 'in-flight']

function decodeCallRecord(value: unknown): CodeBindingCallRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const raw = value as Record<string, unknown>
  if (!isString(raw.namespace) || !isString(raw.member) || !isDuration(raw.startMs) || !isDuration(raw.durationMs))
    return undefined
  if (!OUTCOMES.includes(raw.outcome as CodeBindingCallOutcome)) return undefined
  const record: { -readonly [K in keyof CodeBindingCallRecord]: CodeBindingCallRecord[K] } = {
    namespace: raw.namespace,
    member: raw.member,
    startMs: raw.startMs,
    durationMs: raw.durationMs,
    outcome: raw.outcome as CodeBindingCallOutcome,
  }
  for (const field of ['args', 'result'] as const) {
    const text = raw[`${field}Json`]
    if (text === undefined) continue
    const checked = losslessValue(text)
    if (checked === undefined) return undefined
    record[field] = checked
  }
  if (raw.error !== undefined) {
    if (!isString(raw.error)) return undefined
    record.error = raw.error
  }
  if (raw.valuesOmitted === true) record.valuesOmitted = true
  return record
}

function decodeUsage(value: unknown): CodeRunUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const raw = value as Record<string, unknown>
  if (!isDuration(raw.wallMs) || !isDuration(raw.busyMs) || !isCount(raw.bindingCalls) || !isCount(raw.outputBytes))
    return undefined
  const usage: { -readonly [K in keyof CodeRunUsage]: CodeRunUsage[K] } = {
    wallMs: raw.wallMs,
    busyMs: raw.busyMs,
    bindingCalls: raw.bindingCalls,
    outputBytes: raw.outputBytes,
  }
  if (raw.endHeapBytes !== undefined) {
    if (!isCount(raw.endHeapBytes)) return undefined
    usage.endHeapBytes = raw.endHeapBytes
  }
  return usage
}

/** The result a runner reports, rebuilt; `undefined` when any part of it is malformed. */
export function decodeEndMessage(data: Uint8Array): EndMessage | undefined {
  const raw = parse(data)?.result
  if (typeof raw !== 'object' || raw === null) return undefined
  const { logs, valueJson, error, usage, calls } = raw as Record<string, unknown>
  if (!Array.isArray(logs) || !logs.every(isString)) return undefined
  const decodedUsage = decodeUsage(usage)
  if (decodedUsage === undefined || !Array.isArray(calls)) return undefined
  const decodedCalls = calls.map(decodeCallRecord)
  if (decodedCalls.some(call => call === undefined)) return undefined
  const result: { -readonly [K in keyof CodeRunResult]: CodeRunResult[K] } = {
    logs: [...logs],
    usage: decodedUsage,
    calls: decodedCalls as CodeBindingCallRecord[],
  }
  if (error !== undefined) {
    const { kind, message, budget, session } = (error ?? {}) as Record<string, unknown>
    if (!CODE_RUN_FAILURE_KINDS.includes(kind as CodeRunFailureKind) || !isString(message)) return undefined
    // The facts (CONTRACT #failure-facts) cross only as the contract shapes them: a budget on a timeout.
    const decodedBudget = kind === 'timeout' ? decodeBudget(budget) : undefined
    const decodedSession = decodeSessionEnd(session)
    result.error = {
      kind: kind as CodeRunFailureKind,
      message,
      ...(decodedBudget === undefined ? {} : { budget: decodedBudget }),
      ...(decodedSession === undefined ? {} : { session: decodedSession }),
    }
  } else if (valueJson !== undefined) {
    const checked = losslessValue(valueJson)
    if (checked === undefined) return undefined
    result.value = checked
  }
  return { result }
}

function decodeRefusalValue(value: unknown): Refusal | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { code, message, field } = value as Record<string, unknown>
  if (!isString(code) || !/^CODE_RUNTIME_[A-Z_]+$/.test(code) || !isString(message)) return undefined
  if (field !== undefined && !isString(field)) return undefined
  return field === undefined
    ? { code: code as CodeRuntimeErrorCode, message }
    : { code: code as CodeRuntimeErrorCode, message, field }
}

/** A run the runner refused as misuse (a closed session): the error to throw. */
export function decodeRefusal(data: Uint8Array): Refusal | undefined {
  return decodeRefusalValue(parse(data))
}

export function decodeSessionOpenRequest(data: Uint8Array): SessionOpenRequest | undefined {
  const raw = parse(data)
  if (raw?.v !== PROTOCOL_VERSION || !isToken(raw.session) || !isReplySubject(raw.reply)) return undefined
  const budgets = decodeBudgets(raw.budgets)
  if (budgets === undefined) return undefined
  const options = raw.options
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return undefined
  if (!isString(raw.key) || !isString(raw.ticket)) return undefined
  const trace = decodeTraceContext(raw.trace)
  const adoption = raw.adoption === undefined ? undefined : decodeAdoption(raw.adoption)
  if (raw.adoption !== undefined && adoption === undefined) return undefined
  return {
    v: PROTOCOL_VERSION,
    session: raw.session,
    reply: raw.reply,
    budgets,
    options: options as Record<string, unknown>,
    key: raw.key,
    ticket: raw.ticket,
    ...(trace === undefined ? {} : { trace }),
    ...(adoption === undefined ? {} : { adoption }),
  }
}

export function decodeSessionOpenReply(data: Uint8Array): SessionOpenReply | undefined {
  const raw = parse(data)
  if (raw?.ok === true && isString(raw.id)) return { ok: true, id: raw.id }
  const refusal = raw?.ok === false ? decodeRefusalValue(raw.refusal) : undefined
  if (refusal === undefined) return undefined
  return raw?.retry === true ? { ok: false, refusal, retry: true } : { ok: false, refusal }
}

export function decodeSessionEnded(data: Uint8Array): SessionEndedMessage | undefined {
  const raw = parse(data)
  return raw?.reason === 'expired' || raw?.reason === 'lost' || raw?.reason === 'moved'
    ? { reason: raw.reason }
    : undefined
}

/** A base64url SHA-256 or proof: 32 bytes. */
const isDigest = (value: unknown): value is string => isString(value) && /^[A-Za-z0-9_-]{43}$/.test(value)
/** Base64url of at most MAX_MEMO_BYTES bytes. */
const MAX_MEMO_TEXT = Math.ceil((MAX_MEMO_BYTES * 4) / 3)
const isMemoText = (value: unknown): value is string =>
  isString(value) && value.length <= MAX_MEMO_TEXT && /^[A-Za-z0-9_-]*$/.test(value)

function decodeAdoption(value: unknown): SessionOpenRequest['adoption'] | undefined {
  if (!isObjectRecord(value) || !isToken(value.anchor) || !isDigest(value.digest)) return undefined
  return { anchor: value.anchor, digest: value.digest }
}

export function decodeSessionAdoptRequest(data: Uint8Array): SessionAdoptRequest | undefined {
  const raw = parse(data)
  if (
    raw?.v !== PROTOCOL_VERSION ||
    !isToken(raw.session) ||
    !isReplySubject(raw.reply) ||
    !isString(raw.key) ||
    !isToken(raw.anchor) ||
    !isDigest(raw.proof)
  )
    return undefined
  return {
    v: PROTOCOL_VERSION,
    session: raw.session,
    reply: raw.reply,
    key: raw.key,
    anchor: raw.anchor,
    proof: raw.proof,
  }
}

export function decodeSessionAdoptReply(data: Uint8Array): SessionAdoptReply | undefined {
  const raw = parse(data)
  if (raw?.ok === true && isString(raw.id) && SESSION_ID.test(raw.id)) {
    if (raw.memo === undefined) return { ok: true, id: raw.id }
    return isMemoText(raw.memo) ? { ok: true, id: raw.id, memo: raw.memo } : undefined
  }
  if (raw?.ok === false && (raw.reason === 'unknown' || raw.reason === 'busy')) return { ok: false, reason: raw.reason }
  return undefined
}

export function decodeMemoMessage(data: Uint8Array): MemoMessage | undefined {
  const raw = parse(data)
  return isMemoText(raw?.memo) ? { memo: raw.memo } : undefined
}

/** The runner's acknowledgement of a memo, or of anything answered `{ ok: true }`. */
export function decodeMemoKept(data: Uint8Array): { readonly ok: true } | undefined {
  return parse(data)?.ok === true ? { ok: true } : undefined
}
