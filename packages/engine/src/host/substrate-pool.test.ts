// The substrate pool on in-memory substrates: spawning ahead and refilling, failed spawns,
// disposal (every substrate killed and its exit awaited), and the opt-in reuse path.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_RUNS_PER_SUBSTRATE, SubstratePool } from './substrate-pool.js'
import type { SubstrateFactory } from './substrate.js'
import {
  deferred,
  drain,
  InMemoryFactory,
  RecyclableSubstrate,
  ScriptedSubstrate,
  type Deferred,
} from '../../test/in-memory-substrate.js'

/** Cores for tests that count spawns: the host's thread and one run leave no core idle. */
const TWO_CORES = 2

function scriptedFactory(): InMemoryFactory<ScriptedSubstrate> {
  return new InMemoryFactory(() => new ScriptedSubstrate())
}

/** A factory whose every spawn waits for the test to settle it. */
function heldFactory(): { factory: InMemoryFactory<ScriptedSubstrate>; spawns: Deferred<ScriptedSubstrate>[] } {
  const spawns: Deferred<ScriptedSubstrate>[] = []
  const factory = new InMemoryFactory(() => {
    const spawn = deferred<ScriptedSubstrate>()
    spawns.push(spawn)
    return spawn.promise
  })
  return { factory, spawns }
}

describe('SubstratePool', () => {
  it('spawns ahead, hands out a spawned substrate without waiting, and refills once the run settled', async () => {
    const factory = scriptedFactory()
    const pool = new SubstratePool(factory, 2, false, TWO_CORES)
    await drain()
    assert.equal(factory.spawnCalls, 2)
    const first = await pool.acquire()
    assert.equal(first, factory.spawned[0])
    assert.equal(factory.spawnCalls, 2, 'the refill waits for the run, not the hand-out')
    pool.refillNow()
    await drain()
    assert.equal(factory.spawnCalls, 3)
    const second = await pool.acquire()
    assert.equal(second, factory.spawned[1])
    await pool.dispose()
  })

  it('refills on its own shortly after a hand-out when nobody says the run settled', async () => {
    const factory = scriptedFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    await drain()
    await pool.acquire()
    await drain()
    assert.equal(factory.spawnCalls, 1, 'no core is idle: the refill waits')
    await new Promise(resolve => setTimeout(resolve, 60))
    assert.equal(factory.spawnCalls, 2)
    await pool.dispose()
  })

  it('spawns on demand when nothing waits, and a spawn that fails rejects only that acquire', async () => {
    let failNext = true
    const factory = new InMemoryFactory(() => {
      if (failNext) {
        failNext = false
        throw new Error('no room for another substrate')
      }
      return new ScriptedSubstrate()
    })
    const pool = new SubstratePool(factory, 0, false, TWO_CORES)
    await assert.rejects(pool.acquire(), /no room/)
    const substrate = await pool.acquire()
    assert.equal(substrate, factory.spawned[0])
    await pool.dispose()
  })

  it('turns a factory that throws instead of rejecting into failed spawns, not host exceptions', async () => {
    let calls = 0
    const factory: SubstrateFactory = {
      spawn: () => {
        calls++
        throw new Error('out of file descriptors')
      },
    }
    const pool = new SubstratePool(factory, 2, false, TWO_CORES)
    await assert.rejects(pool.acquire(), /out of file descriptors/)
    pool.refillNow()
    await drain()
    assert.equal(calls, 4, 'two spawns ahead (the waiting run rides on them and fails with the last), two more ahead')
    await pool.dispose()
  })

  it('starts a refill at the hand-out when a core is idle', async () => {
    const factory = scriptedFactory()
    const pool = new SubstratePool(factory, 1, false, 8)
    await drain()
    await pool.acquire()
    await drain()
    assert.equal(factory.spawnCalls, 2)
    await pool.dispose()
  })

  it('a run that finds nothing ready takes the spawn already in flight instead of starting its own', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    const substrate = pool.acquire()
    await drain()
    assert.equal(factory.spawnCalls, 1, 'the spawn ahead covers the run')
    const inFlight = new ScriptedSubstrate()
    spawns[0]?.resolve(inFlight)
    assert.equal(await substrate, inFlight)
    await pool.dispose()
  })

  it('runs arriving back to back with nothing ready get one spawn each, handed out in arrival order', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    const runs = [pool.acquire(), pool.acquire(), pool.acquire()]
    await drain()
    assert.equal(factory.spawnCalls, 3, 'one spawn ahead and one for each run it does not cover')
    const substrates = [new ScriptedSubstrate(), new ScriptedSubstrate(), new ScriptedSubstrate()]
    // Spawns finish in any order; the run that waited longest gets the first one ready.
    spawns[2]?.resolve(substrates[0] as ScriptedSubstrate)
    spawns[0]?.resolve(substrates[1] as ScriptedSubstrate)
    spawns[1]?.resolve(substrates[2] as ScriptedSubstrate)
    assert.deepEqual(await Promise.all(runs), substrates)
    await pool.dispose()
  })

  it('a failed spawn fails only a waiting run that no other pending spawn covers', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 0, false, TWO_CORES)
    const first = pool.acquire()
    const second = pool.acquire()
    await drain()
    assert.equal(factory.spawnCalls, 2)
    spawns[0]?.reject(new Error('spawn failed'))
    await assert.rejects(second, /spawn failed/, 'the newest run is left uncovered')
    const late = new ScriptedSubstrate()
    spawns[1]?.resolve(late)
    assert.equal(await first, late, 'the oldest run keeps its place in line')
    await pool.dispose()
  })

  it('disposal rejects the runs still waiting for a substrate', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 0, false, TWO_CORES)
    const waiting = pool.acquire()
    const disposal = pool.dispose()
    await assert.rejects(waiting, /disposed/)
    spawns[0]?.resolve(new ScriptedSubstrate())
    await disposal
    assert.equal(pool.liveSubstrates.size, 0)
  })

  it('retries a spawn ahead that failed at the next acquire', async () => {
    let calls = 0
    const factory = new InMemoryFactory(() => {
      if (calls++ === 0) return Promise.reject(new Error('first spawn dies'))
      return new ScriptedSubstrate()
    })
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    await drain()
    const substrate = await pool.acquire()
    assert.ok(substrate instanceof ScriptedSubstrate)
    assert.equal(factory.spawnCalls, 2)
    await pool.dispose()
  })

  it('never hands out a waiting substrate that died in the pool', async () => {
    const factory = scriptedFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    await drain()
    factory.spawned[0]?.die({ kind: 'exited', code: 1 })
    await drain()
    const substrate = await pool.acquire()
    assert.notEqual(substrate, factory.spawned[0])
    assert.equal((substrate as ScriptedSubstrate).alive, true)
    await pool.dispose()
  })

  it('never hands out a substrate that died as it was spawned', async () => {
    const factory = new InMemoryFactory(index => {
      const substrate = new ScriptedSubstrate()
      if (index === 0) substrate.die({ kind: 'crashed', detail: 'died right after guest-ready' })
      return substrate
    })
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    await drain()
    const substrate = await pool.acquire()
    assert.equal((substrate as ScriptedSubstrate).alive, true, 'the dead one would never answer its run')
    await pool.dispose()
  })

  it('disposal kills the waiting substrates and the handed-out ones, and resolves after every exit', async () => {
    const factory = scriptedFactory()
    const pool = new SubstratePool(factory, 2, false, TWO_CORES)
    await drain()
    const inUse = await pool.acquire()
    let disposed = false
    const disposal = pool.dispose().then(() => {
      disposed = true
    })
    // Exits are observed a macrotask after the kill; disposal must wait for them.
    await Promise.resolve()
    assert.equal(disposed, false)
    await disposal
    assert.equal(factory.spawned.length, 2)
    for (const substrate of factory.spawned) {
      assert.equal(substrate.alive, false)
      assert.ok(substrate.terminations >= 1)
    }
    assert.equal((inUse as ScriptedSubstrate).alive, false)
    assert.equal(pool.liveSubstrates.size, 0)
  })

  it('disposal while spawning waits for the spawn, kills what it brings, and spawns nothing more', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    let disposed = false
    const disposal = pool.dispose().then(() => {
      disposed = true
    })
    await drain()
    assert.equal(disposed, false, 'a spawn in flight would leak its substrate')
    const late = new ScriptedSubstrate()
    spawns[0]?.resolve(late)
    await disposal
    assert.equal(late.alive, false)
    pool.refillNow()
    await drain()
    assert.equal(factory.spawnCalls, 1)
  })

  it('disposal does not wait on a spawn that failed', async () => {
    const { factory, spawns } = heldFactory()
    const pool = new SubstratePool(factory, 1, false, TWO_CORES)
    const disposal = pool.dispose()
    spawns[0]?.reject(new Error('spawn failed'))
    await disposal
    assert.equal(pool.liveSubstrates.size, 0)
  })

  describe('without reuse', () => {
    it('kills a released substrate even when it could be recycled', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 1, false, TWO_CORES)
      const substrate = (await pool.acquire()) as RecyclableSubstrate
      pool.release(substrate)
      assert.equal(substrate.recycles, 0)
      assert.equal(substrate.alive, false)
      await pool.dispose()
    })
  })

  describe('in a stream of runs', () => {
    it('spawns ahead on the idle cores while fresh substrates are asked for back to back', async () => {
      const factory = scriptedFactory()
      const pool = new SubstratePool(factory, 1, false, TWO_CORES)
      await drain()
      await pool.acquire()
      pool.refillNow()
      await drain()
      assert.equal(factory.spawnCalls, 2, 'a first run alone: one spawn ahead')
      await pool.acquire()
      pool.refillNow()
      await drain()
      assert.equal(factory.spawnCalls, 4, 'the second came back to back: a spawn ahead for each core')
      await pool.dispose()
    })

    it('keeps one spawn ahead for runs that come apart', async () => {
      const factory = scriptedFactory()
      const pool = new SubstratePool(factory, 1, false, TWO_CORES)
      await drain()
      for (let run = 0; run < 2; run++) {
        await new Promise(resolve => setTimeout(resolve, 120))
        await pool.acquire()
        pool.refillNow()
        await drain()
      }
      assert.equal(factory.spawnCalls, 3, 'the spawn ahead, and one replacement per run')
      await pool.dispose()
    })

    it('adds at most three substrates to the spawn-ahead target however many cores there are', async () => {
      const factory = scriptedFactory()
      const pool = new SubstratePool(factory, 2, false, 64)
      await drain()
      for (let run = 0; run < 10; run++) {
        await pool.acquire()
        pool.refillNow()
        await drain()
      }
      assert.equal(factory.spawnCalls, 10 + 2 + 3, 'every run replaced, plus the spawn-ahead target and three more')
      await pool.dispose()
    })

    it('never spawns ahead with spawnAhead 0', async () => {
      const factory = scriptedFactory()
      const pool = new SubstratePool(factory, 0, false, 8)
      for (let run = 0; run < 5; run++) {
        await pool.acquire()
        pool.refillNow()
        await drain()
      }
      assert.equal(factory.spawnCalls, 5, 'one spawn per run, none ahead')
      await pool.dispose()
    })
  })

  describe('with reuse', () => {
    it('recycles a released substrate and hands it out again', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 1, true, TWO_CORES)
      await drain()
      const substrate = await pool.acquire()
      pool.release(substrate)
      await drain()
      assert.equal((substrate as RecyclableSubstrate).recycles, 1)
      assert.equal(await pool.acquire(), substrate)
      await pool.dispose()
    })

    it('a waiting run waits on a recycle only briefly (it can take until its deadline): then it gets a spawn of its own', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const substrate = (await pool.acquire()) as RecyclableSubstrate
      const recycled = deferred<undefined>()
      substrate.recycleResult = () => recycled.promise.then(() => {})
      pool.release(substrate)
      const waiting = pool.acquire()
      assert.equal(await waiting, factory.spawned[1], 'a fresh substrate, once the short wait for the recycle is over')
      assert.equal(factory.spawnCalls, 2)
      recycled.resolve(undefined)
      await drain()
      assert.equal(await pool.acquire(), substrate, 'the recycled one waits in the pool for the next run')
      await pool.dispose()
    })

    it('kills a substrate that cannot be recycled', async () => {
      const factory = scriptedFactory()
      const pool = new SubstratePool(factory, 1, true, TWO_CORES)
      const substrate = (await pool.acquire()) as ScriptedSubstrate
      pool.release(substrate)
      assert.equal(substrate.alive, false)
      await pool.dispose()
    })

    it('kills a substrate whose recycle fails and spawns a replacement', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      // One core: its two acquires come back to back, and a stream spawns ahead on idle cores.
      const pool = new SubstratePool(factory, 1, true, 1)
      await drain()
      const substrate = (await pool.acquire()) as RecyclableSubstrate
      substrate.recycleResult = () => Promise.reject(new Error('the guest did not come back'))
      pool.refillNow()
      await drain()
      const spawnsBefore = factory.spawnCalls
      const waiting = await pool.acquire()
      pool.release(substrate)
      await drain()
      assert.equal(substrate.alive, false)
      assert.equal(factory.spawnCalls, spawnsBefore + 1, 'the failed recycle is replaced')
      assert.notEqual(waiting, substrate)
      await pool.dispose()
    })

    it('kills a substrate that finishes recycling after disposal began', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 1, true, TWO_CORES)
      const substrate = (await pool.acquire()) as RecyclableSubstrate
      const recycled = deferred<undefined>()
      substrate.recycleResult = () => recycled.promise.then(() => {})
      pool.release(substrate)
      const disposal = pool.dispose()
      recycled.resolve(undefined)
      await disposal
      await drain()
      assert.equal(substrate.alive, false)
    })

    it(`retires a substrate after ${MAX_RUNS_PER_SUBSTRATE} runs`, async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const first = (await pool.acquire()) as RecyclableSubstrate
      let substrate: RecyclableSubstrate = first
      for (let run = 1; run < MAX_RUNS_PER_SUBSTRATE; run++) {
        pool.release(substrate)
        await drain(1)
        substrate = (await pool.acquire()) as RecyclableSubstrate
        assert.equal(substrate, first, `run ${run + 1} reuses the substrate`)
      }
      pool.release(substrate)
      assert.equal(first.recycles, MAX_RUNS_PER_SUBSTRATE - 1)
      assert.equal(first.alive, false)
      const replacement = await pool.acquire()
      assert.notEqual(replacement, first)
      await pool.dispose()
    })
  })

  describe('with reuse keys', () => {
    /** Runs one acquire-release round of `key` and returns the substrate it used, once recycled. */
    async function runOnce(pool: SubstratePool, key: string | undefined): Promise<RecyclableSubstrate> {
      const substrate = (await pool.acquire(key)) as RecyclableSubstrate
      pool.release(substrate)
      await drain()
      return substrate
    }

    it('hands a recycled substrate only to a later run of the same key', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const ofA = await runOnce(pool, 'tenant-a')
      const ofB = await runOnce(pool, 'tenant-b')
      assert.notEqual(ofB, ofA, 'key B never gets the substrate key A used')
      assert.equal(await runOnce(pool, 'tenant-a'), ofA)
      assert.equal(await runOnce(pool, 'tenant-b'), ofB)
      assert.equal(factory.spawnCalls, 2)
      await pool.dispose()
    })

    it('never shares between a keyless run and a keyed one, while keyless runs share among themselves', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const keyless = await runOnce(pool, undefined)
      const keyed = await runOnce(pool, 'tenant-a')
      assert.notEqual(keyed, keyless)
      assert.equal(await runOnce(pool, undefined), keyless)
      assert.equal(await runOnce(pool, 'tenant-a'), keyed)
      await pool.dispose()
    })

    it('gives a new key a fresh substrate spawned ahead, never a recycled one', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 1, true, TWO_CORES)
      await drain()
      const ofA = await runOnce(pool, 'tenant-a')
      await drain()
      const ofB = (await pool.acquire('tenant-b')) as RecyclableSubstrate
      assert.notEqual(ofB, ofA)
      assert.equal(ofB.recycles, 0, 'a substrate that served no run')
      await pool.dispose()
    })

    /** A reuse pool whose one substrate, used by tenant-a, is being recycled until the test says. */
    async function releasedAndHeld(): Promise<{
      factory: InMemoryFactory<RecyclableSubstrate>
      pool: SubstratePool
      first: RecyclableSubstrate
      recycled: Deferred<undefined>
    }> {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const first = (await pool.acquire('tenant-a')) as RecyclableSubstrate
      const recycled = deferred<undefined>()
      first.recycleResult = () => recycled.promise.then(() => {})
      pool.release(first)
      return { factory, pool, first, recycled }
    }

    it('hands a run back to back the substrate its key is still recycling instead of spawning', async () => {
      const { factory, pool, first, recycled } = await releasedAndHeld()
      const next = pool.acquire('tenant-a')
      const other = await pool.acquire('tenant-b')
      recycled.resolve(undefined)
      assert.equal(await next, first)
      assert.notEqual(other, first, 'another key does not wait for it')
      assert.equal(factory.spawnCalls, 2)
      await pool.dispose()
    })

    it('does not wait longer than about a cold start for a recycle, and parks the substrate once it is back', async () => {
      const { pool, first, recycled } = await releasedAndHeld()
      const next = await pool.acquire('tenant-a')
      assert.notEqual(next, first, 'a fresh substrate rather than an endless wait')
      recycled.resolve(undefined)
      await drain()
      assert.equal(await pool.acquire('tenant-a'), first)
      await pool.dispose()
    })

    it('gives the waiting run a fresh substrate when the recycle it waited for fails', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const first = (await pool.acquire('tenant-a')) as RecyclableSubstrate
      first.recycleResult = () => Promise.reject(new Error('the guest did not come back'))
      pool.release(first)
      const next = await pool.acquire('tenant-a')
      assert.notEqual(next, first)
      assert.equal(first.alive, false)
      await pool.dispose()
    })

    it('kills the idle substrates of every key on disposal', async () => {
      const factory = new InMemoryFactory(() => new RecyclableSubstrate())
      const pool = new SubstratePool(factory, 0, true, TWO_CORES)
      const idle = [await runOnce(pool, 'tenant-a'), await runOnce(pool, 'tenant-b'), await runOnce(pool, undefined)]
      await pool.dispose()
      assert.deepEqual(
        idle.map(substrate => substrate.alive),
        [false, false, false],
      )
    })
  })
})
