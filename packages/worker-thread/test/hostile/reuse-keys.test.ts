// Reuse mode with reuse keys: runs of one key share a worker, runs of different keys never do.
// Which worker serves a run is counted on the host (Node announces every new worker on
// `process`), never through anything a program can see. One tenant (key) poisons everything it
// can reach and arms work that would surface later; another tenant's run then looks for any of it.
// With spawnAhead 0 every worker is spawned on demand, so the spawn count tells exactly when a
// run got a worker of its own.
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { countWorkerSpawns, echoTools, outcomeOf, startWorkerRuntime } from '../start.js'
import { poisonProgram, PRISTINE, PROBE } from './tenant-poison.js'

/** Far longer than a recycle takes even on a loaded machine (see runFor). */
const RECYCLE_SETTLE_MS = 500

describe('hostile program: reuse keys keep tenants apart in reuse mode', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  // A runtime per test, so no test finds a worker an earlier one left idle.
  beforeEach(async () => {
    started = await startWorkerRuntime({ reuseWorkers: true, spawnAhead: 0 })
  })
  afterEach(() => started.dispose())

  /**
   * Runs `program` for `reuseKey` and returns its outcome with the workers spawned for it. A
   * worker is recycled after its run (a fresh context, a few milliseconds), and a run that comes
   * while that is still going on waits only briefly before it takes a fresh worker (by design:
   * never longer than a spawn would take). On a loaded machine a recycle can outlast that wait,
   * so each run first gives the last one's worker time to be back idle: the property tested is
   * which worker an idle pool hands out, not how fast a recycle is.
   */
  async function runFor(
    reuseKey: string | undefined,
    program: string,
  ): Promise<{ outcome: ReturnType<typeof outcomeOf>; spawned: number }> {
    await new Promise(resolve => setTimeout(resolve, RECYCLE_SETTLE_MS))
    const spawns = countWorkerSpawns()
    try {
      const request = { program, bindings: [echoTools], ...(reuseKey === undefined ? {} : { reuseKey }) }
      const outcome = outcomeOf(await started.runtime.run(request))
      return { outcome, spawned: spawns.count }
    } finally {
      spawns.stop()
    }
  }

  it('serves the runs of one key from one worker', async () => {
    const key = 'tenant-a'
    assert.equal((await runFor(key, 'return 1')).spawned, 1, 'the first run of a key starts a worker')
    for (let run = 0; run < 4; run++) {
      const { outcome, spawned } = await runFor(key, 'return 1')
      assert.deepEqual(outcome, { logs: [], value: 1 })
      assert.equal(spawned, 0, `run ${run + 2} of the key reuses its worker`)
    }
  })

  it('gives another key, and a run without a key, a worker of its own', async () => {
    assert.equal((await runFor('tenant-a', 'return 1')).spawned, 1)
    assert.equal((await runFor('tenant-b', 'return 1')).spawned, 1, 'key B never gets the worker key A used')
    assert.equal((await runFor(undefined, 'return 1')).spawned, 1, 'a keyless run never gets a keyed worker')
    assert.equal((await runFor('tenant-c', 'return 1')).spawned, 1, 'a keyed run never gets the keyless worker')
    // Each of them kept its own worker.
    for (const key of ['tenant-a', 'tenant-b', undefined, 'tenant-c']) {
      assert.equal((await runFor(key, 'return 1')).spawned, 0, `${String(key)} reuses its own worker`)
    }
  })

  it("shows a run of key B nothing of key A's runs, and A nothing of B's", async () => {
    const [a, b] = ['tenant-a', 'tenant-b']
    assert.deepEqual(await runFor(a, poisonProgram(a)), { outcome: { logs: [], value: 'poisoned' }, spawned: 1 })
    assert.deepEqual(await runFor(b, PROBE), { outcome: PRISTINE, spawned: 1 }, "B's run on a worker of its own")
    assert.deepEqual(await runFor(b, poisonProgram(b)), { outcome: { logs: [], value: 'poisoned' }, spawned: 0 })
    assert.deepEqual(await runFor(a, PROBE), { outcome: PRISTINE, spawned: 0 }, "A's run back on A's worker")
    assert.deepEqual(
      await runFor(undefined, PROBE),
      { outcome: PRISTINE, spawned: 1 },
      'a keyless run on a worker of its own',
    )
  })

  it('keeps tenants apart when their runs overlap', { timeout: 60_000 }, async () => {
    const keys = ['tenant-a', 'tenant-b', 'tenant-c', 'tenant-d']
    const rounds = 3
    const spawns = countWorkerSpawns()
    try {
      // Each caller poisons as its own tenant, then probes, while the other three do the same.
      await Promise.all(
        keys.map(async key => {
          for (let round = 0; round < rounds; round++) {
            assert.deepEqual(
              outcomeOf(
                await started.runtime.run({ program: poisonProgram(key), bindings: [echoTools], reuseKey: key }),
              ),
              { logs: [], value: 'poisoned' },
            )
            assert.deepEqual(
              outcomeOf(await started.runtime.run({ program: PROBE, bindings: [echoTools], reuseKey: key })),
              PRISTINE,
              `${key} round ${round}`,
            )
          }
        }),
      )
      // Isolation is what the probes above assert. How many workers it took depends on timing: a
      // run waits only briefly for its key's recycled worker, so on a loaded machine some runs get
      // a fresh one. Never fewer than one per tenant, never more than one per run.
      const runs = keys.length * rounds * 2
      assert.ok(
        spawns.count >= keys.length && spawns.count <= runs,
        `${spawns.count} workers for ${runs} runs of ${keys.length} tenants`,
      )
    } finally {
      spawns.stop()
    }
  })
})
