/**
 * The run as an async generator, with a run started by hand: what the consumer sees between its
 * pulls, how a failed run surfaces, and that a consumer who stops early stops the run.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { streamRun, type StartRun } from './live-logs.js'

function output(logs: readonly string[]): RunCodeOutput {
  return { text: logs.join('\n'), structured: { logs, calls: [] }, isError: false }
}

/** A run the test drives: `log` prints, `finish` settles it. */
function drivenRun(): {
  start: StartRun
  log(text: string): void
  finish(error?: Error): void
  signal(): AbortSignal | undefined
} {
  let onLog: ((text: string) => void) | undefined
  let settle: ((value: RunCodeOutput) => void) | undefined
  let fail: ((error: Error) => void) | undefined
  let runSignal: AbortSignal | undefined
  const printed: string[] = []
  return {
    start: (observer, signal) => {
      onLog = observer
      runSignal = signal
      return new Promise((resolve, reject) => {
        settle = resolve
        fail = reject
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
      })
    },
    log(text) {
      printed.push(text)
      onLog?.(text)
    },
    finish(error) {
      if (error === undefined) settle?.(output(printed))
      else fail?.(error)
    },
    signal: () => runSignal,
  }
}

describe('streamRun', () => {
  it('answers each pull with every line printed since the last one, in one progress output', async () => {
    const run = drivenRun()
    const outputs = streamRun(run.start, undefined)
    const first = outputs.next()
    run.log('a')
    assert.deepEqual((await first).value, { state: 'running', logs: ['a'] })
    // Lines printed while the consumer was busy come together at its next pull.
    run.log('b')
    run.log('c')
    assert.deepEqual((await outputs.next()).value, { state: 'running', logs: ['a', 'b', 'c'] })
    const last = outputs.next()
    run.finish()
    assert.deepEqual((await last).value, {
      state: 'done',
      logs: ['a', 'b', 'c'],
      calls: [],
      text: 'a\nb\nc',
      isError: false,
    })
    assert.equal((await outputs.next()).done, true)
  })

  it('gives the final output alone when nothing was printed', async () => {
    const run = drivenRun()
    const outputs = streamRun(run.start, undefined)
    const first = outputs.next()
    run.finish()
    assert.equal(((await first).value as { state: string }).state, 'done')
  })

  it("throws the run's failure where the consumer awaits the result", async () => {
    const run = drivenRun()
    const outputs = streamRun(run.start, undefined)
    const first = outputs.next()
    run.finish(new Error('session closed'))
    await assert.rejects(first, /session closed/)
  })

  it('stops the run when the consumer stops early, and when the given signal aborts', async () => {
    let run = drivenRun()
    let outputs = streamRun(run.start, undefined)
    const first = outputs.next()
    run.log('a')
    await first
    await outputs.return()
    assert.equal(run.signal()?.aborted, true)

    run = drivenRun()
    const controller = new AbortController()
    outputs = streamRun(run.start, controller.signal)
    const pending = outputs.next()
    controller.abort(new Error('stop'))
    await assert.rejects(pending, /aborted/)
    assert.equal(run.signal()?.aborted, true)
  })
})
