/**
 * Node fires a timer whose delay is past {@link MAX_TIMER_MS} at once (with a warning), as if the
 * delay were 1 ms. A delay made by adding a margin to a budget that may itself be as large as
 * MAX_TIMER_MS (a backstop past the wall budget, a request timeout past a heartbeat ceiling) goes
 * through here, so the timer waits as long as a timer can instead of not at all.
 */
import { MAX_TIMER_MS } from './config-fields.js'

/** `delayMs`, or {@link MAX_TIMER_MS} when it is longer: a delay every Node timer keeps. */
export function timerDelayMs(delayMs: number): number {
  return delayMs > MAX_TIMER_MS ? MAX_TIMER_MS : delayMs
}
