/**
 * The live notifications of one run: its log lines and its tool-call counts, on their way to an
 * MCP client while the program runs. A program can print a million lines in a second, far faster
 * than a client reads; one notification per line stacked up unbounded writes and froze the
 * server. So the notifier:
 * - coalesces: lines wait up to {@link DEFAULT_FLUSH_MS} and leave as one batch, sooner once a
 *   batch reaches its size bound; only the latest call counts are kept;
 * - respects backpressure: at most one notification is being written at a time, the next starts
 *   when the previous one's write finished; meanwhile lines accumulate up to a bound, past which
 *   they are dropped and counted (a note says how many and where);
 * - stops at the run's cap: it never sends more log text than the run's result can hold.
 */
import type { ToolCallCounts } from '../run/program-run.js'

/** Longest wait of a log line before it is sent, in milliseconds. */
export const DEFAULT_FLUSH_MS = 50
/** A batch this long (characters) is sent at once, without waiting for the flush time. */
export const DEFAULT_MAX_BATCH_CHARS = 16_384
/** Most characters of log lines held while a write is outstanding; later lines are dropped. */
export const DEFAULT_MAX_PENDING_CHARS = 1_048_576

/** Where a run's notifications go. Each resolves once its notification is written. */
export interface RunNotificationSinks {
  /** A batch of whole log lines (the last one possibly cut at the cap), joined by `\n`. */
  readonly logs?: (text: string) => Promise<void>
  /** A note about the log stream itself: lines dropped, the cap reached. */
  readonly note?: (text: string) => Promise<void>
  /** The latest counts of the run's tool calls. */
  readonly calls?: (counts: ToolCallCounts) => Promise<void>
}

/** Bounds of a {@link RunNotifier}. */
export interface RunNotifierLimits {
  /** Most characters of log text sent over the whole run (lines joined by `\n`). */
  readonly maxLogChars: number
  readonly flushMs?: number
  readonly maxBatchChars?: number
  readonly maxPendingChars?: number
}

/** Marks where lines were dropped, between the lines queued before and after. */
interface DropMark {
  readonly dropped: number
}

type Job = () => Promise<void>

/** Cuts `text` to at most `maxChars` UTF-16 units, never inside a surrogate pair. */
function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const last = text.charCodeAt(maxChars - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars)
}

/**
 * Feed it with {@link log} and {@link calls} as the run goes; {@link close} when it settles, and
 * await that before answering the call, so every notification precedes the result.
 * @example
 * const notifier = new RunNotifier({ logs: (text) => send(text) }, { maxLogChars: 40_000 })
 * notifier.log('hello')
 * await notifier.close()
 */
export class RunNotifier {
  readonly #sinks: RunNotificationSinks
  readonly #maxLogChars: number
  readonly #flushMs: number
  readonly #maxBatchChars: number
  readonly #maxPendingChars: number
  // Queued lines and drop marks; `#head` is the next to send (no O(n) shift per batch).
  #queue: (string | DropMark)[] = []
  #head = 0
  #pendingChars = 0
  // Characters of log text accepted so far (sent or queued), as the client will see it joined.
  #acceptedChars = 0
  #acceptedLines = 0
  #droppedSinceMark = 0
  #capped = false
  #latestCalls: ToolCallCounts | undefined
  #timer: NodeJS.Timeout | undefined
  #pumping: Promise<void> | undefined
  #closing = false
  #closed: Promise<void> | undefined
  // A write failed (the client is gone): nothing more is sent.
  #broken = false

  constructor(sinks: RunNotificationSinks, limits: RunNotifierLimits) {
    this.#sinks = sinks
    this.#maxLogChars = limits.maxLogChars
    this.#flushMs = limits.flushMs ?? DEFAULT_FLUSH_MS
    this.#maxBatchChars = limits.maxBatchChars ?? DEFAULT_MAX_BATCH_CHARS
    this.#maxPendingChars = limits.maxPendingChars ?? DEFAULT_MAX_PENDING_CHARS
  }

  /** Queues one log line; constant time, whatever the client does. */
  log(line: string): void {
    if (this.#sinks.logs === undefined || this.#closing || this.#capped || this.#broken) return
    const separator = this.#acceptedLines > 0 ? 1 : 0
    const room = this.#maxLogChars - this.#acceptedChars - separator
    if (room < 0) {
      this.#capped = true
      return
    }
    const piece = cutText(line, room)
    if (this.#pendingChars + piece.length > this.#maxPendingChars) {
      this.#droppedSinceMark++
      return
    }
    if (this.#droppedSinceMark > 0) {
      this.#queue.push({ dropped: this.#droppedSinceMark })
      this.#droppedSinceMark = 0
    }
    this.#queue.push(piece)
    this.#pendingChars += piece.length
    this.#acceptedChars += separator + piece.length
    this.#acceptedLines++
    if (piece.length < line.length) this.#capped = true
    this.#schedule()
  }

  /** Records the latest tool-call counts; only the newest unsent counts are sent. */
  calls(counts: ToolCallCounts): void {
    if (this.#sinks.calls === undefined || this.#closing || this.#broken) return
    this.#latestCalls = counts
    this.#schedule()
  }

  /** Sends everything still queued, then the notes; resolves when all is written (or the client is gone). */
  close(): Promise<void> {
    return (this.#closed ??= this.#finish())
  }

  async #finish(): Promise<void> {
    this.#closing = true
    if (this.#droppedSinceMark > 0) this.#queue.push({ dropped: this.#droppedSinceMark })
    this.#droppedSinceMark = 0
    clearTimeout(this.#timer)
    this.#timer = undefined
    // A pump in flight sees `#closing` and drains the rest; one that was just returning does not,
    // hence the loop.
    while (this.#hasWork() && !this.#broken) await (this.#pumping ?? this.#startPump())
    if (this.#capped) {
      await this.#run(() =>
        this.#sendNote(`[live logs stop here: one result holds at most ${this.#maxLogChars} characters]`),
      )
    }
  }

  #schedule(): void {
    if (this.#pumping !== undefined || this.#broken) return
    if (this.#pendingChars >= this.#maxBatchChars) {
      void this.#startPump()
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        if (this.#pumping === undefined) void this.#startPump()
      }, this.#flushMs)
      this.#timer.unref()
    }
  }

  #startPump(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const pumping = this.#pump().finally(() => {
      this.#pumping = undefined
      // Work that arrived during the last write waits for the next flush time.
      if (!this.#closing && this.#hasWork()) this.#schedule()
    })
    this.#pumping = pumping
    return pumping
  }

  // One write at a time: the next job starts when the previous write resolved.
  async #pump(): Promise<void> {
    for (let job = this.#nextJob(); job !== undefined; job = this.#nextJob()) {
      await this.#run(job)
      // Between flushes, lines gather into one batch, unless a full batch is already waiting.
      if (!this.#closing && this.#pendingChars < this.#maxBatchChars) return
    }
  }

  async #run(job: Job): Promise<void> {
    if (this.#broken) return
    try {
      await job()
    } catch {
      // The client went away; whatever is queued can no longer reach it.
      this.#broken = true
      this.#queue = []
      this.#head = 0
      this.#pendingChars = 0
      this.#latestCalls = undefined
    }
  }

  #hasWork(): boolean {
    return this.#latestCalls !== undefined || this.#head < this.#queue.length
  }

  #nextJob(): Job | undefined {
    if (this.#broken) return undefined
    const counts = this.#latestCalls
    const callsSink = this.#sinks.calls
    if (counts !== undefined && callsSink !== undefined) {
      this.#latestCalls = undefined
      return () => callsSink(counts)
    }
    const first = this.#queue[this.#head]
    if (first === undefined) return undefined
    if (typeof first !== 'string') {
      this.#head++
      const lines = first.dropped
      return () =>
        this.#sendNote(
          `[${lines} log line${lines === 1 ? '' : 's'} not sent: the client read slower than the program printed]`,
        )
    }
    const batch = this.#takeBatch()
    const logsSink = this.#sinks.logs
    return logsSink === undefined ? undefined : () => logsSink(batch)
  }

  // Whole lines from the head, up to the batch bound (a longer line goes alone), stopping at a drop mark.
  #takeBatch(): string {
    const lines: string[] = []
    let chars = 0
    for (let entry = this.#queue[this.#head]; typeof entry === 'string'; entry = this.#queue[this.#head]) {
      if (lines.length > 0 && chars + entry.length > this.#maxBatchChars) break
      lines.push(entry)
      chars += entry.length
      this.#head++
    }
    this.#pendingChars -= chars
    if (this.#head === this.#queue.length) {
      this.#queue = []
      this.#head = 0
    } else if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
    return lines.join('\n')
  }

  async #sendNote(text: string): Promise<void> {
    await this.#sinks.note?.(text)
  }
}
