/**
 * A run as an async generator, the shape of an AI SDK tool with preliminary results: progress
 * outputs carrying the logs so far while the program runs, then the final output.
 *
 * Progress is coalesced: a program that prints 10 000 lines in a burst gives a few progress
 * outputs, not 10 000. A progress output is made only when the consumer asks for the next one
 * and new lines arrived since the last; when none did, the generator waits for the next line and
 * then lets the rest of its burst arrive (the log messages already queued) before answering.
 */
import { setImmediate as afterQueuedEvents } from 'node:timers/promises'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { toolResultOf, type CodeModeToolOutput } from './run-code-output.js'

/** Starts the run, handing it the live-log observer and the signal that stops it. */
export type StartRun = (onLog: (text: string) => void, signal: AbortSignal) => Promise<RunCodeOutput>

/**
 * Runs the program started by `start`, yielding progress while it runs and its result last.
 * A consumer that stops early (the generator's `return`) aborts the run.
 */
export async function* streamRun(
  start: StartRun,
  signal: AbortSignal | undefined,
): AsyncGenerator<CodeModeToolOutput, void, undefined> {
  const logs: string[] = []
  let wake: (() => void) | undefined
  const onLog = (text: string): void => {
    logs.push(text)
    const waiting = wake
    wake = undefined
    waiting?.()
  }
  const abandoned = new AbortController()
  const runSignal = signal === undefined ? abandoned.signal : AbortSignal.any([signal, abandoned.signal])
  let ended = false
  const run = start(onLog, runSignal).finally(() => {
    ended = true
    wake?.()
  })
  // Observed here so that a failure surfaces once, where the result is awaited below.
  run.catch(() => {})
  try {
    let shown = 0
    while (!ended) {
      if (logs.length === shown) {
        await new Promise<void>(resolve => {
          wake = resolve
        })
        if (ended) break
        await afterQueuedEvents()
        if (ended) break
      }
      shown = logs.length
      yield { state: 'running', logs: logs.slice() }
    }
    yield toolResultOf(await run)
  } finally {
    if (!ended) {
      abandoned.abort(new Error('The tool call was abandoned before its program finished.'))
      await run.catch(() => {})
    }
  }
}
