/**
 * One side's watch over the other's silence: a run's caller over its runner, a runner over the
 * caller of a run or a held session. Each message heard resets it; past `lostAfterMs` of silence
 * it calls `onLost`, once for each such silence.
 *
 * Silence is counted only over time in which this process could have heard the other side. When
 * our own event loop is stalled (a large value checked or parsed synchronously, a loaded machine),
 * the other side's messages wait unread in the socket, and a clock that kept running would blame
 * them for our stall: a run would be declared lost although its runner never stopped beating.
 * So each look counts at most {@link MAX_COUNTED_LOOKS} look intervals, however late it comes; a
 * peer that really went away is still noticed, a little later while we are that busy.
 */
import { timerDelayMs } from '@code-runtime/core/internal'

/** How many look intervals one late look may count as silence; the rest of the gap was ours. */
export const MAX_COUNTED_LOOKS = 2

/** How often one side looks at the other's silence: a fraction of the beat, so loss is seen soon after lostAfterMs. */
export function silenceCheckMs(heartbeatMs: number): number {
  return Math.max(10, Math.min(100, Math.floor(heartbeatMs / 4)))
}

export interface SilenceMonitorOptions {
  /** Silence past this many counted milliseconds is a loss. */
  readonly lostAfterMs: number
  /** The other side's beat, which sets how often we look. */
  readonly heartbeatMs: number
  /** Called with the silence counted when it passes `lostAfterMs`; again only after a message heard and a new silence. */
  readonly onLost: (silentMs: number) => void
}

export class SilenceMonitor {
  readonly #options: SilenceMonitorOptions
  readonly #lookMs: number
  readonly #timer: ReturnType<typeof setInterval>
  #silentMs = 0
  #lastLook = performance.now()
  #hasReportedLoss = false

  constructor(options: SilenceMonitorOptions) {
    this.#options = options
    this.#lookMs = silenceCheckMs(options.heartbeatMs)
    this.#timer = setInterval(() => this.#look(), this.#lookMs)
  }

  /** The silence counted so far: nothing right after a message, and never a stall of ours. */
  get silentMs(): number {
    return this.#silentMs + this.#countedSince(performance.now())
  }

  /** True while the silence counted is past `lostAfterMs`. */
  get isLost(): boolean {
    return this.silentMs > this.#options.lostAfterMs
  }

  /** The other side spoke: its silence starts again from nothing. */
  heard(): void {
    this.#silentMs = 0
    this.#lastLook = performance.now()
    this.#hasReportedLoss = false
  }

  /** Stops looking; no `onLost` comes after this. Idempotent. */
  stop(): void {
    clearInterval(this.#timer)
  }

  #countedSince(now: number): number {
    return Math.min(now - this.#lastLook, this.#lookMs * MAX_COUNTED_LOOKS)
  }

  #look(): void {
    const now = performance.now()
    this.#silentMs += this.#countedSince(now)
    this.#lastLook = now
    if (this.#hasReportedLoss || this.#silentMs <= this.#options.lostAfterMs) return
    this.#hasReportedLoss = true
    this.#options.onLost(this.#silentMs)
  }
}

/**
 * A request whose answer counts as the other side's word: it fails with "timeout" only after
 * `lostAfterMs` of silence as a {@link SilenceMonitor} counts it, so a stall of our own event
 * loop (the answer waiting unread in the socket) never fails it. `request` gets the backstop
 * timeout to pass to the client library: far past the silence, for a client that never answers.
 */
export async function requestWithinSilence<Answer>(
  options: Omit<SilenceMonitorOptions, 'onLost'>,
  request: (backstopMs: number) => Promise<Answer>,
): Promise<Answer> {
  let monitor: SilenceMonitor | undefined
  const lost = new Promise<never>((_resolve, reject) => {
    monitor = new SilenceMonitor({ ...options, onLost: () => reject(new Error('timeout')) })
  })
  const answered = request(timerDelayMs(options.lostAfterMs * 20 + 10_000))
  // The loser of the race must not surface as an unhandled rejection.
  answered.catch(() => undefined)
  try {
    return await Promise.race([answered, lost])
  } finally {
    monitor?.stop()
  }
}
