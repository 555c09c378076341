import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_TIMER_MS } from './config-fields.js'
import { timerDelayMs } from './timer-delay.js'

describe('timerDelayMs', () => {
  it('keeps a delay a timer accepts, and waits as long as a timer can for a longer one', async () => {
    assert.equal(timerDelayMs(0), 0)
    assert.equal(timerDelayMs(MAX_TIMER_MS), MAX_TIMER_MS)
    assert.equal(timerDelayMs(MAX_TIMER_MS + 5_000), MAX_TIMER_MS)
    // The timer it bounds really waits: one with the raw delay would fire first.
    const order: string[] = []
    const bounded = setTimeout(() => order.push('bounded'), timerDelayMs(MAX_TIMER_MS + 5_000))
    await new Promise(resolve => setTimeout(resolve, 20))
    clearTimeout(bounded)
    assert.deepEqual(order, [])
  })
})
