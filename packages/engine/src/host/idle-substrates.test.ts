// The reuse mode's idle substrates: filed by key, bounded in number (least recently used killed
// first) and in time (killed after idleMs without a run of their key).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { IdleSubstrates } from './idle-substrates.js'
import { RecyclableSubstrate } from '../../test/in-memory-substrate.js'

describe('IdleSubstrates', () => {
  it('hands out only a substrate filed under the asked key, the most recently parked first', () => {
    const idle = new IdleSubstrates({ maxIdle: 4, idleMs: 60_000 })
    const [older, newer, other] = [new RecyclableSubstrate(), new RecyclableSubstrate(), new RecyclableSubstrate()]
    idle.park(older, 'a')
    idle.park(newer, 'a')
    idle.park(other, undefined)
    assert.equal(idle.take('b'), undefined)
    assert.equal(idle.take('a'), newer)
    assert.equal(idle.take('a'), older)
    assert.equal(idle.take('a'), undefined)
    assert.equal(idle.take(undefined), other)
    assert.equal(idle.size, 0)
  })

  it('kills the least recently parked substrate, of whatever key, to stay within maxIdle', () => {
    const idle = new IdleSubstrates({ maxIdle: 2, idleMs: 60_000 })
    const substrates = [new RecyclableSubstrate(), new RecyclableSubstrate(), new RecyclableSubstrate()]
    idle.park(substrates[0]!, 'a')
    idle.park(substrates[1]!, 'b')
    idle.park(substrates[2]!, 'c')
    assert.deepEqual(
      substrates.map(substrate => substrate.alive),
      [false, true, true],
    )
    assert.equal(idle.take('a'), undefined)
    assert.equal(idle.size, 2)
    idle.clear()
  })

  it('kills a substrate left idle longer than idleMs', async () => {
    const idle = new IdleSubstrates({ maxIdle: 4, idleMs: 20 })
    const substrate = new RecyclableSubstrate()
    idle.park(substrate, 'a')
    await new Promise(resolve => setTimeout(resolve, 60))
    assert.equal(substrate.alive, false)
    assert.equal(idle.take('a'), undefined)
  })

  it('kills at once what it is given with maxIdle 0, and forgets a substrate that exited without killing it again', () => {
    const idle = new IdleSubstrates({ maxIdle: 0, idleMs: 60_000 })
    const refused = new RecyclableSubstrate()
    idle.park(refused, 'a')
    assert.equal(refused.alive, false)
    const kept = new IdleSubstrates({ maxIdle: 1, idleMs: 60_000 })
    const exited = new RecyclableSubstrate()
    kept.park(exited, 'a')
    kept.forget(exited)
    assert.equal(exited.terminations, 0)
    assert.equal(kept.take('a'), undefined)
  })
})
