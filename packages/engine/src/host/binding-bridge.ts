/**
 * The host end of the binding bridge: answers the guest's call requests with the caller's
 * functions. Member names are looked up as own entries of the validated namespace only; each
 * call id is answered at most once; arguments and resolutions are checked as lossless JSON on
 * the host, whatever the guest claims; once the run settled, late results are dropped.
 */
import {
  type CodeBindingCall,
  type CodeBindingCallRecord,
  type CodeBindingFunction,
  type CodeJsonValue,
} from '@code-runtime/core'
import { thrownMessage, type ValidatedNamespace } from '@code-runtime/core/internal'
import {
  formatLosslessJsonRefusal,
  safeLosslessJsonText,
  safeSnapshotLosslessJson,
  stringifyJsonValue,
  type LosslessJsonSnapshot,
  type LosslessJsonText,
} from '@code-runtime/core/json'
import type { CallPartMessage, CallRequestMessage, CallResultMessage } from '../protocol/messages.js'

/** What the bridge sends the guest: call results, and the parts of a streamed one. */
export type BridgeReply = CallResultMessage | CallPartMessage

/** Options of {@link BindingBridge}. */
export interface BindingBridgeOptions {
  /** Clock origin of the call record: the start of the run, from `performance.now()`. */
  readonly startedAt: number
  /** Byte budget for recorded argument and result values; undefined records timing only. */
  readonly recordValuesBytes: number | undefined
  /**
   * Budget for the UTF-8 bytes of the JSON arguments of calls started and not yet settled: the
   * host holds them (text and parsed copy) until the host function settles, however little
   * heap the sandbox itself may use. A call that would pass it is refused inside the program.
   */
  readonly maxPendingCallBytes: number
  /**
   * When set, a large root-array result leaves in `call-part` messages of at least this many
   * characters as the check walks on, then its `call-result` counts them; undefined sends every
   * result whole.
   */
  readonly resultPartChars?: number | undefined
}

/** One call's record while it is being made. */
interface CallEntry {
  readonly namespace: string
  readonly member: string
  readonly startMs: number
  durationMs: number
  outcome: CodeBindingCallRecord['outcome']
  /** Bytes of this call's argument JSON, charged against maxPendingCallBytes while in flight. */
  readonly argsBytes: number
  /** True while argsBytes counts against the budget. */
  charged: boolean
  args?: CodeJsonValue
  result?: CodeJsonValue
  error?: string
  valuesOmitted?: true
}

export class BindingBridge {
  private readonly namespaces: readonly ValidatedNamespace[]
  private readonly reply: (message: BridgeReply) => void
  private readonly options: BindingBridgeOptions
  private readonly seenIds = new Set<number>()
  private readonly entries: CallEntry[] = []
  private valueBytesLeft: number
  private pendingCallBytes = 0
  private open = true

  constructor(
    namespaces: readonly ValidatedNamespace[],
    reply: (message: BridgeReply) => void,
    options: BindingBridgeOptions,
  ) {
    this.namespaces = namespaces
    this.reply = reply
    this.options = options
    this.valueBytesLeft = options.recordValuesBytes ?? 0
  }

  /** Number of binding calls started so far. */
  get callCount(): number {
    return this.entries.length
  }

  /** The call record: settled calls as they ended, the rest `in-flight` until now. */
  records(): CodeBindingCallRecord[] {
    const now = performance.now() - this.options.startedAt
    return this.entries.map(entry => {
      const record: { -readonly [K in keyof CodeBindingCallRecord]: CodeBindingCallRecord[K] } = {
        namespace: entry.namespace,
        member: entry.member,
        startMs: entry.startMs,
        durationMs: entry.outcome === 'in-flight' ? now - entry.startMs : entry.durationMs,
        outcome: entry.outcome,
      }
      if (entry.args !== undefined) record.args = entry.args
      if (entry.result !== undefined) record.result = entry.result
      if (entry.error !== undefined) record.error = entry.error
      if (entry.valuesOmitted === true) record.valuesOmitted = true
      return record
    })
  }

  /**
   * Starts the call a request asks for. Returns a description of the protocol violation when
   * the request could not have come from an honest guest, `undefined` otherwise.
   */
  handle(request: CallRequestMessage): string | undefined {
    if (!this.open) return undefined
    if (this.seenIds.has(request.id)) return 'a repeated call id'
    this.seenIds.add(request.id)
    const namespace = this.namespaces[request.namespace]
    if (namespace === undefined) return 'a call to an unknown namespace'
    const binding = namespace.functions.get(request.member)
    if (binding === undefined) return 'a call to an unknown member'
    // Measured before parsing: a refused call costs the host no parsed copy.
    const argsBytes = Buffer.byteLength(request.argsJson, 'utf8')
    const entry: CallEntry = {
      namespace: namespace.global,
      member: request.member,
      startMs: performance.now() - this.options.startedAt,
      durationMs: 0,
      outcome: 'in-flight',
      argsBytes,
      charged: false,
    }
    if (this.pendingCallBytes + argsBytes > this.options.maxPendingCallBytes) {
      this.entries.push(entry)
      this.fail(
        request.id,
        entry,
        `${namespace.global}.${request.member}: the arguments of calls still in flight would pass ` +
          `${this.options.maxPendingCallBytes} bytes (maxPendingCallBytes). Await earlier calls before starting more, or pass less data per call.`,
      )
      return undefined
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(request.argsJson)
    } catch {
      return 'call arguments that are not JSON'
    }
    const args = safeSnapshotLosslessJson(parsed, { rootLabel: 'args' })
    if (!args.ok) return 'call arguments that are not lossless JSON'
    const index = this.entries.push(entry) - 1
    entry.charged = true
    this.pendingCallBytes += argsBytes
    this.keepValue(entry, 'args', args.value, request.argsJson)
    // invoke() handles its own failures; this catch is the last line that keeps an unforeseen
    // one from becoming an unhandled rejection, which would end the host process.
    this.invoke(request.id, entry, binding, args.value, index).catch(() => {
      try {
        if (this.open && entry.outcome === 'in-flight')
          this.fail(request.id, entry, 'The tool result could not be delivered.')
      } catch {
        // Nothing left to tell: the substrate cannot be reached; its exit settles the run.
      }
    })
    return undefined
  }

  // Values are kept while the byte budget lasts; a call whose values do not fit keeps its timing.
  private keepValue(entry: CallEntry, field: 'args' | 'result' | 'error', value: CodeJsonValue, json: string): void {
    if (this.options.recordValuesBytes === undefined) return
    const jsonBytes = Buffer.byteLength(json)
    if (entry.valuesOmitted === true || jsonBytes > this.valueBytesLeft) {
      entry.valuesOmitted = true
      return
    }
    this.valueBytesLeft -= jsonBytes
    if (field === 'error') entry.error = value as string
    else entry[field] = value
  }

  private finish(entry: CallEntry, outcome: 'ok' | 'error'): void {
    // Only a call that was charged (it reached the host function) gives its bytes back, once.
    if (entry.charged) {
      entry.charged = false
      this.pendingCallBytes -= entry.argsBytes
    }
    entry.outcome = outcome
    entry.durationMs = performance.now() - this.options.startedAt - entry.startMs
  }

  /** Drops every later result. */
  close(): void {
    this.open = false
  }

  private async invoke(
    id: number,
    entry: CallEntry,
    binding: CodeBindingFunction,
    args: unknown,
    index: number,
  ): Promise<void> {
    let resolution: unknown
    try {
      // A fresh, frozen call object per call: one host function cannot change what the next one sees.
      const call: CodeBindingCall = Object.freeze({ index })
      resolution = await Reflect.apply(binding, undefined, [args, call])
    } catch (thrown) {
      if (!this.open) return
      this.fail(id, entry, thrownMessage(thrown))
      return
    }
    if (!this.open) return
    // Without a call record to keep the value in, the check and the text are made in one walk
    // that never holds a whole copy; with one, the copy is what the record keeps.
    const isRecording = this.options.recordValuesBytes !== undefined
    // Streamed, each part leaves as soon as it is written, and the guest parses it while this
    // walk goes on. The walk runs in this one task, so no later message can come between parts.
    const partChars = this.options.resultPartChars
    let parts = 0
    const onPart =
      partChars === undefined
        ? undefined
        : (json: string): void => {
            parts++
            this.reply({ kind: 'call-part', id, json })
          }
    // The value as the record keeps it (a copy, only when recording) and as the guest reads it.
    let recorded: LosslessJsonSnapshot | undefined
    let written: LosslessJsonText
    try {
      if (isRecording) {
        recorded = safeSnapshotLosslessJson(resolution, { rootLabel: 'value' })
        written = recorded.ok ? { ok: true, value: stringifyJsonValue(recorded.value) } : recorded
      } else {
        written = safeLosslessJsonText(resolution, { rootLabel: 'value', onPart, partChars })
      }
    } catch {
      // Only a text too long for a string lands here; the call fails, the host goes on.
      this.fail(id, entry, `${entry.namespace}.${entry.member} resolved a value too large to pass to the program.`)
      return
    }
    if (!written.ok) {
      const label = `${entry.namespace}.${entry.member}`
      this.fail(
        id,
        entry,
        `${label} resolved a value that is not lossless JSON: ${formatLosslessJsonRefusal(written.error)}`,
      )
      return
    }
    const valueJson = written.value
    this.finish(entry, 'ok')
    if (recorded?.ok === true) this.keepValue(entry, 'result', recorded.value, valueJson)
    this.reply(
      parts === 0
        ? { kind: 'call-result', id, ok: true, valueJson }
        : { kind: 'call-result', id, ok: true, valueJson, parts },
    )
  }

  private fail(id: number, entry: CallEntry, message: string): void {
    this.finish(entry, 'error')
    if (this.options.recordValuesBytes !== undefined)
      this.keepValue(entry, 'error', message, stringifyJsonValue(message))
    this.reply({ kind: 'call-result', id, ok: false, message })
  }
}
