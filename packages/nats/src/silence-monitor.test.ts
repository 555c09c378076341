import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { requestWithinSilence, SilenceMonitor } from './silence-monitor.js'

/** Blocks this event loop, as a large value checked synchronously (or a loaded machine) does. */
function stallEventLoop(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // Busy on purpose: no timer and no socket of ours is served meanwhile.
  }
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

async function waitFor(check: () => boolean, limitMs = 20_000): Promise<void> {
  const deadline = performance.now() + limitMs
  while (!check()) {
    if (performance.now() > deadline) throw new Error('gave up waiting')
    await sleep(10)
  }
}

describe('SilenceMonitor', () => {
  it('does not blame the other side for a stall of our own event loop', async () => {
    const losses: number[] = []
    const monitor = new SilenceMonitor({ lostAfterMs: 200, heartbeatMs: 40, onLost: silentMs => losses.push(silentMs) })
    try {
      stallEventLoop(1_000)
      // The first look after the stall counts a little of it; the other side's queued message comes next.
      await new Promise(resolve => setImmediate(resolve))
      monitor.heard()
      assert.deepEqual(losses, [])
      assert.equal(monitor.isLost, false)
    } finally {
      monitor.stop()
    }
  })

  it('reports a real silence once, and again only after a message heard and a new silence', async () => {
    const losses: number[] = []
    const monitor = new SilenceMonitor({ lostAfterMs: 100, heartbeatMs: 40, onLost: silentMs => losses.push(silentMs) })
    try {
      await waitFor(() => losses.length === 1)
      assert.ok((losses[0] as number) > 100)
      assert.equal(monitor.isLost, true)
      await sleep(200)
      assert.equal(losses.length, 1, 'one silence, one report')
      monitor.heard()
      assert.equal(monitor.isLost, false)
      await waitFor(() => losses.length === 2)
    } finally {
      monitor.stop()
    }
  })

  it('reports nothing after stop', async () => {
    const losses: number[] = []
    const monitor = new SilenceMonitor({ lostAfterMs: 20, heartbeatMs: 40, onLost: silentMs => losses.push(silentMs) })
    monitor.stop()
    monitor.stop()
    await sleep(200)
    assert.deepEqual(losses, [])
  })
})

describe('requestWithinSilence', () => {
  const options = { lostAfterMs: 200, heartbeatMs: 100 }

  it('takes an answer that waited behind a stall of our own, longer than lostAfterMs', async () => {
    const answer = requestWithinSilence(
      options,
      () => new Promise<string>(resolve => setTimeout(resolve, 20, 'started')),
    )
    stallEventLoop(1_000)
    assert.equal(await answer, 'started')
  })

  it('fails with timeout after lostAfterMs of real silence, long before the backstop', async () => {
    let backstop = 0
    const startedAt = performance.now()
    await assert.rejects(
      requestWithinSilence(options, backstopMs => {
        backstop = backstopMs
        return new Promise<never>(() => {})
      }),
      /timeout/,
    )
    assert.ok(performance.now() - startedAt < 2_000, 'gave up within a few lostAfterMs')
    assert.ok(backstop > 2_000, "the library's own timeout is only a backstop")
  })

  it("passes on the request's own failure", async () => {
    await assert.rejects(
      requestWithinSilence(options, () => Promise.reject(new Error('503 no responders'))),
      /no responders/,
    )
  })
})
