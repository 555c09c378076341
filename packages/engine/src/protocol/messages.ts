/**
 * The wire between the host and the guest runtime (inside a worker thread or a child process):
 * one closed table of message kinds per direction, and one decoder per direction that checks the
 * shape and rebuilds plain data. Nothing is read from a raw message except through a decoder.
 */
import type { Checked } from '@code-runtime/core/json'

/** Declares one namespace to the guest: names only; the functions stay on the host. */
export interface NamespaceSpec {
  readonly global: string
  readonly members: readonly string[]
  readonly errorClass: { readonly name: string; readonly memberNameProperty: string } | null
}

/** Host → guest: run this (already transformed) program against these namespaces. */
export interface RunStartMessage {
  readonly kind: 'run-start'
  /** The transformed program, wrapped as `(async function () {\n…\n})`. */
  readonly source: string
  readonly namespaces: readonly NamespaceSpec[]
  /** The output cap, so the guest can stop sending logs the host would only discard. */
  readonly maxOutputBytes: number
  /**
   * Present on the runs of a persistent session only: the context then takes one run after
   * another. The wrapper then takes a keep function as its parameter.
   */
  readonly session?: SessionRunSpec
}

/** What a session run keeps (see the session transform). */
export interface SessionRunSpec {
  /** Names the run declares at top level; the guest declares each once per session, as a script-level `let`. */
  readonly keptNames: readonly string[]
  /** Top-level function declarations the program hands, in this order, to its keep function. */
  readonly publishedFunctions: readonly string[]
  /** The most names the session may keep in all: a run that would keep more is refused before it runs. */
  readonly maxKeptNames: number
}

/**
 * Host → guest, in a session only: end the current run now (abort, wall timeout, output cap).
 * The guest cancels the run's timers, drops its pending calls and answers `run-stopped`, even
 * when no run was in flight any more.
 */
export interface RunStopMessage {
  readonly kind: 'run-stop'
}

/**
 * Host → guest: the outcome of one binding call. A value sent in parts ends with the result that
 * counts them (`parts`): its `valueJson` holds the root array's last elements, appended to the
 * parts' elements in order. A failure after some parts voids them.
 */
export type CallResultMessage =
  | {
      readonly kind: 'call-result'
      readonly id: number
      readonly ok: true
      readonly valueJson: string
      readonly parts?: number
    }
  | { readonly kind: 'call-result'; readonly id: number; readonly ok: false; readonly message: string }

/**
 * Host → guest, before the `call-result` of call `id`: the JSON text of an array holding the
 * next elements of the call's root-array value, sent while the host still checks the rest, so
 * the guest parses it meanwhile. Nothing of it reaches the program before the result settles.
 */
export interface CallPartMessage {
  readonly kind: 'call-part'
  readonly id: number
  readonly json: string
}

/**
 * Host → guest, in the opt-in reuse mode only: the last run ended cleanly; drop its context,
 * prepare a fresh one, and say `guest-ready` again.
 */
export interface RecycleMessage {
  readonly kind: 'recycle'
}

export type HostToGuestMessage = RunStartMessage | CallPartMessage | CallResultMessage | RecycleMessage | RunStopMessage

/** Guest → host: the substrate is up and its context is prepared. */
export interface GuestReadyMessage {
  readonly kind: 'guest-ready'
}

/** Guest → host: the program called `namespaces[namespace].member(args)`; `argsJson` is lossless JSON text. */
export interface CallRequestMessage {
  readonly kind: 'call-request'
  readonly id: number
  readonly namespace: number
  readonly member: string
  readonly argsJson: string
}

/** Guest → host: one log entry, as printed. */
export interface LogLineMessage {
  readonly kind: 'log-line'
  readonly text: string
}

/** Guest → host: the program settled. */
export type RunEndMessage = (
  | { readonly kind: 'run-end'; readonly outcome: 'value'; readonly valueJson: string | null }
  | { readonly kind: 'run-end'; readonly outcome: 'exception' | 'invalid-output'; readonly message: string }
) & {
  /** The guest's V8 heap size at the end, in bytes: advisory, as the guest reports it. */
  readonly heapBytes?: number
  /**
   * The bytes its objects take (V8's used heap, without the room the young generation keeps
   * free): what a session's `maxHeapBytes` is checked against. Advisory, as the guest reports it.
   */
  readonly usedHeapBytes?: number
}

/** Guest → host: the answer to `run-stop`; nothing of the stopped run follows it. */
export interface RunStoppedMessage {
  readonly kind: 'run-stopped'
}

export type GuestToHostMessage =
  GuestReadyMessage | CallRequestMessage | LogLineMessage | RunEndMessage | RunStoppedMessage

/** A decoder's verdict: the rebuilt message, or why the raw value was refused. */
export type Decoded<T> = Checked<T>

type RawRecord = Record<string, unknown>

function readRecord(raw: unknown): RawRecord | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  return raw as RawRecord
}

// Reads one own data property: never runs a getter, never looks at the prototype chain.
function own(record: RawRecord, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(record, key)
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined
}

/**
 * Reads an array by its own indexes, each through {@link own}: no iterator the array may carry,
 * no getter, nothing from the prototype. Stops at the first element `read` refuses, so a huge
 * sparse array costs one step.
 */
function readArray<T>(raw: unknown, read: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(raw)) return undefined
  const length = own(raw as unknown as RawRecord, 'length')
  if (typeof length !== 'number') return undefined
  const items: T[] = []
  for (let index = 0; index < length; index++) {
    const item = read(own(raw as unknown as RawRecord, String(index)))
    if (item === undefined) return undefined
    items.push(item)
  }
  return items
}

const readString = (item: unknown): string | undefined => (typeof item === 'string' ? item : undefined)

function isCallId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

const isByteCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

const refuse = (error: string): { ok: false; error: string } => ({ ok: false, error })

// A frame that cannot even be read (a proxy whose traps throw, a revoked proxy) is refused like
// any other malformed one: a decoder never throws.
const UNREADABLE = 'a message that cannot be read'

/** Checks and rebuilds a message that arrived from the guest. Never throws, never runs a getter. */
export function decodeGuestMessage(raw: unknown): Decoded<GuestToHostMessage> {
  try {
    return readGuestMessage(raw)
  } catch {
    return refuse(UNREADABLE)
  }
}

/** Checks and rebuilds a message that arrived from the host. Never throws, never runs a getter. */
export function decodeHostMessage(raw: unknown): Decoded<HostToGuestMessage> {
  try {
    return readHostMessage(raw)
  } catch {
    return refuse(UNREADABLE)
  }
}

function readGuestMessage(raw: unknown): Decoded<GuestToHostMessage> {
  // A bare string is a log line: the most frequent message travels without an envelope.
  if (typeof raw === 'string') return { ok: true, value: { kind: 'log-line', text: raw } }
  const record = readRecord(raw)
  if (record === undefined) return refuse('a message that is not an object')
  const kind = own(record, 'kind')
  switch (kind) {
    case 'guest-ready':
    case 'run-stopped':
      return { ok: true, value: { kind } }
    case 'log-line': {
      const text = own(record, 'text')
      if (typeof text !== 'string') return refuse('a log-line without text')
      return { ok: true, value: { kind, text } }
    }
    case 'call-request': {
      const id = own(record, 'id')
      const namespace = own(record, 'namespace')
      const member = own(record, 'member')
      const argsJson = own(record, 'argsJson')
      if (!isCallId(id)) return refuse('a call-request with an invalid id')
      if (typeof namespace !== 'number' || !Number.isSafeInteger(namespace) || namespace < 0) {
        return refuse('a call-request with an invalid namespace')
      }
      if (typeof member !== 'string' || typeof argsJson !== 'string') return refuse('a malformed call-request')
      return { ok: true, value: { kind, id, namespace, member, argsJson } }
    }
    case 'run-end': {
      const outcome = own(record, 'outcome')
      const heapBytes = own(record, 'heapBytes')
      const usedHeapBytes = own(record, 'usedHeapBytes')
      const heap = {
        ...(isByteCount(heapBytes) ? { heapBytes } : {}),
        ...(isByteCount(usedHeapBytes) ? { usedHeapBytes } : {}),
      }
      if (outcome === 'value') {
        const valueJson = own(record, 'valueJson')
        if (valueJson !== null && typeof valueJson !== 'string') return refuse('a run-end with a malformed value')
        return { ok: true, value: { kind, outcome, valueJson, ...heap } }
      }
      if (outcome === 'exception' || outcome === 'invalid-output') {
        const message = own(record, 'message')
        if (typeof message !== 'string') return refuse('a run-end without a message')
        return { ok: true, value: { kind, outcome, message, ...heap } }
      }
      return refuse('a run-end with an unknown outcome')
    }
    default:
      return refuse('a message of unknown kind')
  }
}

function decodeNamespaceSpec(raw: unknown): NamespaceSpec | undefined {
  const record = readRecord(raw)
  if (record === undefined) return undefined
  const global = own(record, 'global')
  const members = own(record, 'members')
  const errorClass = own(record, 'errorClass')
  const memberNames = readArray(members, readString)
  if (typeof global !== 'string' || memberNames === undefined) return undefined
  if (errorClass === null) return { global, members: memberNames, errorClass: null }
  const errorRecord = readRecord(errorClass)
  if (errorRecord === undefined) return undefined
  const name = own(errorRecord, 'name')
  const memberNameProperty = own(errorRecord, 'memberNameProperty')
  if (typeof name !== 'string' || typeof memberNameProperty !== 'string') return undefined
  return { global, members: memberNames, errorClass: { name, memberNameProperty } }
}

function decodeSessionRunSpec(raw: unknown): SessionRunSpec | undefined {
  const record = readRecord(raw)
  if (record === undefined) return undefined
  const keptNames = readArray(own(record, 'keptNames'), readString)
  const publishedFunctions = readArray(own(record, 'publishedFunctions'), readString)
  const maxKeptNames = own(record, 'maxKeptNames')
  if (keptNames === undefined || publishedFunctions === undefined || !isByteCount(maxKeptNames)) return undefined
  return { keptNames, publishedFunctions, maxKeptNames }
}

function readHostMessage(raw: unknown): Decoded<HostToGuestMessage> {
  const record = readRecord(raw)
  if (record === undefined) return refuse('a message that is not an object')
  const kind = own(record, 'kind')
  switch (kind) {
    case 'run-start': {
      const source = own(record, 'source')
      const namespaces = own(record, 'namespaces')
      const maxOutputBytes = own(record, 'maxOutputBytes')
      if (typeof source !== 'string' || !Array.isArray(namespaces)) return refuse('a malformed run-start')
      if (typeof maxOutputBytes !== 'number' || !Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0) {
        return refuse('a run-start without a cap')
      }
      const specs = readArray(namespaces, decodeNamespaceSpec)
      if (specs === undefined) return refuse('a run-start with a malformed namespace')
      // A session field that is there but unreadable (a getter) is refused, not taken as absent.
      if (!Object.hasOwn(record, 'session'))
        return { ok: true, value: { kind, source, namespaces: specs, maxOutputBytes } }
      const session = decodeSessionRunSpec(own(record, 'session'))
      if (session === undefined) return refuse('a run-start with a malformed session')
      return { ok: true, value: { kind, source, namespaces: specs, maxOutputBytes, session } }
    }
    case 'recycle':
    case 'run-stop':
      return { ok: true, value: { kind } }
    case 'call-result': {
      const id = own(record, 'id')
      const ok = own(record, 'ok')
      if (!isCallId(id)) return refuse('a call-result with an invalid id')
      if (ok === true) {
        const valueJson = own(record, 'valueJson')
        const parts = own(record, 'parts')
        if (typeof valueJson !== 'string') return refuse('a call-result without a value')
        if (parts === undefined) return { ok: true, value: { kind, id, ok, valueJson } }
        if (typeof parts !== 'number' || !Number.isSafeInteger(parts) || parts < 0)
          return refuse('a call-result with a malformed part count')
        return { ok: true, value: { kind, id, ok, valueJson, parts } }
      }
      if (ok === false) {
        const message = own(record, 'message')
        if (typeof message !== 'string') return refuse('a call-result without a message')
        return { ok: true, value: { kind, id, ok, message } }
      }
      return refuse('a malformed call-result')
    }
    case 'call-part': {
      const id = own(record, 'id')
      const json = own(record, 'json')
      if (!isCallId(id) || typeof json !== 'string') return refuse('a malformed call-part')
      return { ok: true, value: { kind, id, json } }
    }
    default:
      return refuse('a message of unknown kind')
  }
}
