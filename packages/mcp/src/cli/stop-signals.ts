/**
 * Ctrl-C (SIGINT) and SIGTERM during `code-runtime run`: the run is aborted and everything the
 * command started is closed before it exits, with the exit code shells use for a command a
 * signal stopped.
 */
import { EXIT_INTERRUPTED } from './cli-arguments.js'
import { writeErrorLine } from './terminal-output.js'

/** What a stop signal says and the exit code it ends with (128 + the signal's number, as shells do). */
const STOP_SIGNALS = {
  SIGINT: { word: 'interrupted', exitCode: EXIT_INTERRUPTED },
  SIGTERM: { word: 'terminated', exitCode: 143 },
} as const

export type StopSignal = keyof typeof STOP_SIGNALS

/**
 * Listens for Ctrl-C (and SIGTERM) from before the servers start until the run is over: the
 * first one aborts the run, which cancels its upstream calls; the command then closes everything
 * it started before it exits. A second one exits at once, for a shutdown that hangs.
 */
export function listenForStop(): {
  readonly signal: AbortSignal
  readonly received: () => StopSignal | undefined
  stop(): void
} {
  const controller = new AbortController()
  let received: StopSignal | undefined
  const onSignal = (name: StopSignal): void => {
    if (received !== undefined) process.exit(STOP_SIGNALS[name].exitCode)
    received = name
    controller.abort(new Error(`Interrupted by ${name}.`))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    received: () => received,
    stop: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}

/** The exit code of a stopped command, after saying so on stderr. */
export function reportStopped(name: StopSignal): number {
  writeErrorLine(process.stderr, STOP_SIGNALS[name].word)
  return STOP_SIGNALS[name].exitCode
}
