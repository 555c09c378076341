import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RunNotifier } from './run-notifier.js'

/** A sink whose writes finish only when the test says so; it records the most writes outstanding at once. */
class HeldSink {
  readonly sent: string[] = []
  readonly #waiting: (() => void)[] = []
  maxOutstanding = 0

  readonly send = (text: string): Promise<void> => {
    this.sent.push(text)
    this.maxOutstanding = Math.max(this.maxOutstanding, this.#waiting.length + 1)
    return new Promise(resolve => this.#waiting.push(resolve))
  }

  get outstanding(): number {
    return this.#waiting.length
  }

  /** Finishes the oldest write and lets the notifier react to it. */
  async finishOne(): Promise<void> {
    this.#waiting.shift()?.()
    await new Promise(resolve => setImmediate(resolve))
  }

  /** Finishes writes as they come until `done` settles. */
  async finishAllUntil(done: Promise<void>): Promise<void> {
    let settled = false
    void done.then(() => (settled = true))
    while (!settled) await this.finishOne()
  }
}

const instant =
  (sent: string[]) =>
  (text: string): Promise<void> => {
    sent.push(text)
    return Promise.resolve()
  }

describe('RunNotifier', () => {
  it('coalesces lines printed together into one notification after the flush time', async () => {
    const sent: string[] = []
    const notifier = new RunNotifier({ logs: instant(sent) }, { maxLogChars: 1_000_000, flushMs: 5 })
    for (let index = 0; index < 100; index++) notifier.log(`line ${index}`)
    assert.deepEqual(sent, [], 'nothing is sent before the flush time')
    while (sent.length === 0) await new Promise(resolve => setTimeout(resolve, 5))
    assert.deepEqual(sent, [Array.from({ length: 100 }, (_, index) => `line ${index}`).join('\n')])
    await notifier.close()
  })

  it('sends a full batch without waiting for the flush time, in batches of whole lines', async () => {
    const sent: string[] = []
    const notifier = new RunNotifier(
      { logs: instant(sent) },
      { maxLogChars: 1_000_000, flushMs: 1_000_000, maxBatchChars: 10 },
    )
    notifier.log('12345')
    notifier.log('67890')
    assert.deepEqual(sent, ['12345\n67890'])
    notifier.log('a')
    await notifier.close()
    assert.deepEqual(sent, ['12345\n67890', 'a'])
  })

  it('keeps one write outstanding, and past the pending bound drops lines with a count at the gap', async () => {
    const logs = new HeldSink()
    const notes: string[] = []
    const notifier = new RunNotifier(
      { logs: logs.send, note: instant(notes) },
      { maxLogChars: 1_000_000, flushMs: 1_000_000, maxBatchChars: 4, maxPendingChars: 8 },
    )
    notifier.log('aaaa')
    assert.deepEqual(logs.sent, ['aaaa'])
    notifier.log('bbbb')
    notifier.log('cccc')
    notifier.log('dddd')
    notifier.log('eeee')
    assert.equal(logs.sent.length, 1, 'no second write while the first is outstanding')
    await logs.finishOne()
    assert.deepEqual(logs.sent, ['aaaa', 'bbbb'])
    notifier.log('ffff')
    const closed = notifier.close()
    await logs.finishAllUntil(closed)
    assert.deepEqual(logs.sent, ['aaaa', 'bbbb', 'cccc', 'ffff'])
    assert.deepEqual(notes, ['[2 log lines not sent: the client read slower than the program printed]'])
    assert.equal(logs.maxOutstanding, 1)
  })

  it('places the drop note between the lines sent before and after the gap', async () => {
    const order: string[] = []
    const logs = new HeldSink()
    const notifier = new RunNotifier(
      {
        logs: text => {
          order.push(text)
          return logs.send(text)
        },
        note: text => {
          order.push(text)
          return Promise.resolve()
        },
      },
      { maxLogChars: 1_000_000, flushMs: 1_000_000, maxBatchChars: 100, maxPendingChars: 3 },
    )
    notifier.log('one')
    notifier.log('two')
    const closed = notifier.close()
    await logs.finishAllUntil(closed)
    assert.deepEqual(order, ['one', '[1 log line not sent: the client read slower than the program printed]'])
  })

  it('never sends more log text than the cap, cutting the last line, and says where it stopped', async () => {
    const sent: string[] = []
    const notes: string[] = []
    const notifier = new RunNotifier(
      { logs: instant(sent), note: instant(notes) },
      { maxLogChars: 25, flushMs: 1_000_000 },
    )
    const lines = Array.from({ length: 50 }, (_, index) => `line ${index}`)
    for (const line of lines) notifier.log(line)
    await notifier.close()
    assert.equal(sent.join('\n'), lines.join('\n').slice(0, 25))
    assert.deepEqual(notes, ['[live logs stop here: one result holds at most 25 characters]'])
  })

  it('does not cut a surrogate pair at the cap', async () => {
    const sent: string[] = []
    const notifier = new RunNotifier({ logs: instant(sent) }, { maxLogChars: 3 })
    notifier.log('ab\u{1F600}')
    await notifier.close()
    assert.deepEqual(sent, ['ab'])
  })

  it('sends only the latest tool-call counts', async () => {
    const counts: string[] = []
    const notifier = new RunNotifier(
      { calls: value => instant(counts)(`${value.finished}/${value.started}`) },
      { maxLogChars: 100, flushMs: 1_000_000 },
    )
    notifier.calls({ started: 1, finished: 0 })
    notifier.calls({ started: 2, finished: 0 })
    notifier.calls({ started: 2, finished: 1 })
    await notifier.close()
    assert.deepEqual(counts, ['1/2'])
  })

  it('stops sending once a write fails (the client is gone), and still closes', async () => {
    let attempts = 0
    const notifier = new RunNotifier(
      {
        logs: () => {
          attempts++
          return Promise.reject(new Error('Not connected'))
        },
      },
      { maxLogChars: 1_000_000, flushMs: 1_000_000, maxBatchChars: 1 },
    )
    notifier.log('a')
    notifier.log('b')
    notifier.log('c')
    await notifier.close()
    assert.equal(attempts, 1)
  })

  it('ignores logs when nobody receives them', async () => {
    const notifier = new RunNotifier({}, { maxLogChars: 100 })
    for (let index = 0; index < 10; index++) notifier.log('x')
    await notifier.close()
  })
})
