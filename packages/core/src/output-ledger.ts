/**
 * The output ledger of CONTRACT section #output-cap: one cap, `maxOutputBytes`, on the compact JSON of the
 * `logs` array plus the JSON of the value or of the failure message.
 *
 * Sizes are computed from the text itself, never by building the escaped JSON: a log flood or a
 * 64 MiB value must not cost a second copy just to be measured.
 */
import type { CodeJsonValue, CodeRunFailureFacts, CodeRunFailureKind, CodeRunOutcome } from './types.js'

// Text without characters JSON escapes and without surrogates costs exactly its UTF-8 length,
// which the native Buffer.byteLength computes far faster than a JavaScript loop.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is searched for
const NEEDS_CHARACTER_WALK = /["\\\u0000-\u001f\ud800-\udfff]/
const { byteLength } = Buffer
const charCodeAt = String.prototype.charCodeAt

/** Bytes one UTF-16 code unit sequence costs inside a JSON string; `index` is advanced by the caller. */
function characterBytes(text: string, index: number): { bytes: number; units: 1 | 2 } {
  const code = text.charCodeAt(index)
  if (code < 0x80) {
    if (code === 0x22 || code === 0x5c) return { bytes: 2, units: 1 }
    if (code >= 0x20) return { bytes: 1, units: 1 }
    // \b \t \n \f \r have two-character escapes; other control characters need \u00XX.
    return {
      bytes: code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6,
      units: 1,
    }
  }
  if (code < 0x800) return { bytes: 2, units: 1 }
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 }
    return { bytes: 6, units: 1 } // a lone high surrogate is written as \uXXXX
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { bytes: 6, units: 1 } // a lone low surrogate
  return { bytes: 3, units: 1 }
}

/** Bytes of the JSON string contents of `text` (without the quotes). */
function contentBytes(text: string): number {
  if (!NEEDS_CHARACTER_WALK.test(text)) return byteLength(text, 'utf8')
  let bytes = 0
  let index = 0
  while (index < text.length) {
    const code = charCodeAt.call(text, index) as number
    // Plain ASCII dominates real text; keep it off the general path.
    if (code >= 0x20 && code < 0x80 && code !== 0x22 && code !== 0x5c) {
      bytes += 1
      index += 1
      continue
    }
    const step = characterBytes(text, index)
    bytes += step.bytes
    index += step.units
  }
  return bytes
}

/**
 * Exact byte length of `JSON.stringify(text)` encoded as UTF-8, quotes included.
 * @example jsonStringByteLength('€') // 5
 */
export function jsonStringByteLength(text: string): number {
  return contentBytes(text) + 2
}

/** Exact byte length of the compact JSON of a lossless JSON value, computed without building it. */
export function jsonValueByteLength(value: CodeJsonValue): number {
  let bytes = 0
  const pending: CodeJsonValue[] = [value]
  while (pending.length > 0) {
    const item = pending.pop() as CodeJsonValue
    if (item === null) bytes += 4
    else if (typeof item === 'boolean') bytes += item ? 4 : 5
    else if (typeof item === 'number') bytes += String(item).length
    else if (typeof item === 'string') bytes += jsonStringByteLength(item)
    else if (Array.isArray(item)) {
      bytes += 2 + Math.max(0, item.length - 1)
      for (let index = item.length - 1; index >= 0; index--) pending.push(item[index] as CodeJsonValue)
    } else {
      const keys = Object.keys(item)
      bytes += 2 + Math.max(0, keys.length - 1)
      for (const key of keys) {
        bytes += jsonStringByteLength(key) + 1
        pending.push(item[key] as CodeJsonValue)
      }
    }
  }
  return bytes
}

/** Bytes of the compact JSON of a logs array: brackets, one comma between entries. */
export function logsByteLength(logs: readonly string[]): number {
  let bytes = 2
  for (let index = 0; index < logs.length; index++) {
    bytes += jsonStringByteLength(logs[index] as string) + (index > 0 ? 1 : 0)
  }
  return bytes
}

/**
 * The longest prefix of `text` whose JSON string (quotes included) fits in `maxBytes`, cut at a
 * code-point boundary; `undefined` when not even the empty string fits.
 */
export function fitStringPrefix(text: string, maxBytes: number): string | undefined {
  if (maxBytes < 2) return undefined
  let bytes = 2
  let index = 0
  while (index < text.length) {
    const step = characterBytes(text, index)
    if (bytes + step.bytes > maxBytes) break
    bytes += step.bytes
    index += step.units
  }
  return text.slice(0, index)
}

/**
 * The longest prefix of `logs` whose JSON array fits in `maxBytes`; the last entry kept may be
 * cut at a code-point boundary. An entry cut to nothing is dropped.
 */
export function fitLogsPrefix(logs: readonly string[], maxBytes: number): string[] {
  const kept: string[] = []
  let bytes = 2
  for (const entry of logs) {
    const separator = kept.length > 0 ? 1 : 0
    const entryBytes = jsonStringByteLength(entry)
    if (bytes + separator + entryBytes <= maxBytes) {
      kept.push(entry)
      bytes += separator + entryBytes
      continue
    }
    const cut = fitStringPrefix(entry, maxBytes - bytes - separator)
    if (cut !== undefined && cut.length > 0) kept.push(cut)
    break
  }
  return kept
}

/**
 * The full message may take at most half of the cap (its bytes times this); past that the short
 * form is used, so a small cap keeps a useful prefix of the logs instead of spending itself on
 * the advice.
 */
const MESSAGE_SHARE_OF_CAP = 2

/**
 * The message of an `output-limit` failure; it names the cap and, when the cap has room for it,
 * how to stay under it. Under a small cap (where the full text would take more than half of
 * it) the short form `Over maxOutputBytes (96).` is used.
 */
export function outputLimitMessage(maxOutputBytes: number): string {
  const full = `Output exceeded ${maxOutputBytes} bytes (maxOutputBytes). Print less and return only what you need next.`
  return jsonStringByteLength(full) * MESSAGE_SHARE_OF_CAP <= maxOutputBytes
    ? full
    : `Over maxOutputBytes (${maxOutputBytes}).`
}

/**
 * The message of an `output-limit` failure caused by the number of log entries rather than their
 * bytes: each entry costs the host far more than its JSON, so their count has a cap of its own.
 */
export function logEntriesLimitMessage(maxLogEntries: number, maxOutputBytes: number): string {
  const full = `Output exceeded ${maxLogEntries} log entries (maxLogEntries). Print fewer, longer lines and return only what you need next.`
  return jsonStringByteLength(full) * MESSAGE_SHARE_OF_CAP <= maxOutputBytes
    ? full
    : `Over maxLogEntries (${maxLogEntries}).`
}

/**
 * Builds the `output-limit` result: no value, the message naming the cap (by default the one of
 * {@link outputLimitMessage}), and the longest prefix of the logs that fits beside it. The total
 * never exceeds the cap: with a tiny cap the message itself is cut.
 */
export function buildOutputLimitResult(
  logs: readonly string[],
  maxOutputBytes: number,
  fullMessage = outputLimitMessage(maxOutputBytes),
): CodeRunOutcome {
  const message = fitStringPrefix(fullMessage, maxOutputBytes - 2) ?? ''
  const messageBytes = jsonStringByteLength(message)
  return { logs: fitLogsPrefix(logs, maxOutputBytes - messageBytes), error: { kind: 'output-limit', message } }
}

/** Options of {@link OutputLedger}. */
export interface OutputLedgerOptions {
  /**
   * Most log entries one run may print; the next one ends the run `output-limit`. Each entry
   * costs the host far more than the bytes the cap charges for it (an empty line is charged 2),
   * so a flood of tiny lines needs this second bound. Unbounded when absent.
   */
  readonly maxLogEntries?: number
}

/**
 * Running account of one run's output. Logs are charged as they arrive, so a flood is caught at
 * the line that crosses the cap; the completion is charged once at the end.
 */
export class OutputLedger {
  readonly maxOutputBytes: number
  readonly logs: string[] = []
  readonly #onLog: ((text: string) => void) | undefined
  // Entries stream to the observer live only while they would survive any outcome: the logs
  // that fit beside the output-limit message are never cut, whatever the run ends with.
  readonly #liveLimitBytes: number
  readonly #maxLogEntries: number
  #logsBytes = 2
  #overflowed = false
  // Set when the entry count, not the bytes, ended the logs: the message then names that limit.
  #overflowMessage: string | undefined
  #streamed = 0
  #outputBytes = 0

  /**
   * @param onLog live-log observer: sees every entry of the final `logs`, in order, exactly once;
   *   most as they are printed, the rest when the run settles. Its failures are ignored.
   */
  constructor(maxOutputBytes: number, onLog?: (text: string) => void, options: OutputLedgerOptions = {}) {
    this.maxOutputBytes = maxOutputBytes
    this.#onLog = onLog
    this.#maxLogEntries = options.maxLogEntries ?? Number.POSITIVE_INFINITY
    // Streamed entries must survive either output-limit message, so the longer one decides.
    const messageBytes = Math.max(
      jsonStringByteLength(outputLimitMessage(maxOutputBytes)),
      options.maxLogEntries === undefined
        ? 0
        : jsonStringByteLength(logEntriesLimitMessage(options.maxLogEntries, maxOutputBytes)),
    )
    this.#liveLimitBytes = maxOutputBytes - messageBytes
  }

  /** Bytes charged so far for the logs array. */
  get logsBytes(): number {
    return this.#logsBytes
  }

  /** True once the logs alone passed the cap. */
  get isOverflowed(): boolean {
    return this.#overflowed
  }

  /** Bytes of the settled result's output (logs plus value or message); 0 before settling. */
  get outputBytes(): number {
    return this.#outputBytes
  }

  /**
   * Records one log entry. Returns false when the logs no longer fit; the entry is kept so
   * {@link buildOutputLimitResult} can cut it, and later entries are ignored.
   */
  appendLog(entry: string): boolean {
    if (this.#overflowed) return false
    if (this.logs.length >= this.#maxLogEntries) {
      // The entry past the limit is not kept: the limit is on what the host holds.
      this.#overflowed = true
      this.#overflowMessage = logEntriesLimitMessage(this.#maxLogEntries, this.maxOutputBytes)
      return false
    }
    this.#logsBytes += jsonStringByteLength(entry) + (this.logs.length > 0 ? 1 : 0)
    this.logs.push(entry)
    // The smallest completion costs nothing (no value), so the logs alone decide here.
    if (this.#logsBytes > this.maxOutputBytes) this.#overflowed = true
    else if (this.#logsBytes <= this.#liveLimitBytes && this.#streamed === this.logs.length - 1) {
      this.#streamed++
      this.#notify(entry)
    }
    return !this.#overflowed
  }

  /**
   * Settles a successful completion: the result with the value, or the `output-limit` result
   * when logs plus value exceed the cap. `valueBytes` is the JSON size of the value (0 when absent).
   */
  settleValue(value: CodeJsonValue | undefined, valueBytes: number): CodeRunOutcome {
    if (this.#overflowed || this.#logsBytes + valueBytes > this.maxOutputBytes) {
      return this.#finish(this.#overflowResult())
    }
    this.#outputBytes = this.#logsBytes + valueBytes
    return this.#finish(value === undefined ? { logs: this.logs } : { logs: this.logs, value })
  }

  /** Settles the run as `output-limit` once {@link appendLog} reported the logs no longer fit. */
  settleOverflow(): CodeRunOutcome {
    return this.#finish(this.#overflowResult())
  }

  /**
   * Settles a failure: the failure with its facts (the budget that ended a timeout, the session it
   * ended), or `output-limit` when logs plus its message exceed the cap. The facts' few bytes are
   * free, like the envelope's field names.
   */
  settleFailure(kind: CodeRunFailureKind, message: string, facts: CodeRunFailureFacts = {}): CodeRunOutcome {
    const messageBytes = jsonStringByteLength(message)
    if (this.#overflowed || this.#logsBytes + messageBytes > this.maxOutputBytes) {
      return this.#finish(this.#overflowResult())
    }
    this.#outputBytes = this.#logsBytes + messageBytes
    return this.#finish({
      logs: this.logs,
      error: { kind, message, ...copyFailureFacts(facts) },
    })
  }

  #overflowResult(): CodeRunOutcome {
    return buildOutputLimitResult(
      this.logs,
      this.maxOutputBytes,
      this.#overflowMessage ?? outputLimitMessage(this.maxOutputBytes),
    )
  }

  // Hands the observer the entries of the final logs it has not seen yet (those held back near
  // the cap, possibly cut), so what it saw equals `result.logs`.
  #finish(result: CodeRunOutcome): CodeRunOutcome {
    if (result.error?.kind === 'output-limit') {
      this.#outputBytes = logsByteLength(result.logs) + jsonStringByteLength(result.error.message)
    }
    for (let index = this.#streamed; index < result.logs.length; index++) this.#notify(result.logs[index] as string)
    this.#streamed = result.logs.length
    return result
  }

  #notify(entry: string): void {
    if (this.#onLog === undefined) return
    try {
      const returned: unknown = this.#onLog(entry)
      // An async observer's rejection must not surface as an unhandled rejection.
      if (
        typeof returned === 'object' &&
        returned !== null &&
        typeof (returned as { then?: unknown }).then === 'function'
      ) {
        ;(returned as Promise<unknown>).then(undefined, () => {})
      }
    } catch {
      // The observer's failure is its own; the run goes on.
    }
  }
}

/** The facts rebuilt field by field: only the contract's fields cross, whatever object the caller passed. */
function copyFailureFacts({ budget, session }: CodeRunFailureFacts): CodeRunFailureFacts {
  return {
    ...(budget === undefined ? {} : { budget: { name: budget.name, limit: budget.limit } }),
    ...(session === undefined ? {} : { session: { id: session.id, ended: session.ended } }),
  }
}
