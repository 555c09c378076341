import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RunAdmission, RunRefusedBusy, type AdmittedRun } from './run-admission.js'

/** Lets every settled promise's callbacks run. */
const settle = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

describe('RunAdmission', () => {
  it('admits at once under the bounds, and holds a principal at its own bound', async () => {
    const admission = new RunAdmission({ maxRuns: 10, maxRunsPerPrincipal: 2 })
    const first = await admission.admit('alice')
    await admission.admit('alice')
    const admitted: AdmittedRun[] = []
    void admission.admit('alice').then(run => admitted.push(run))
    await settle()
    assert.equal(admitted.length, 0, 'the third run of alice waits')
    assert.deepEqual(admission.load('alice'), { running: 2, queued: 1 })
    // Another principal is not held by alice's bound.
    await admission.admit('bob')
    first.release()
    first.release()
    await settle()
    assert.equal(admitted.length, 1, 'the waiting run starts when one of alice ends')
    assert.ok((admitted[0]?.waitedMs ?? -1) >= 0)
    assert.deepEqual(admission.load(), { running: 3, queued: 0 })
  })

  it('serves the principals in turn, so a flood of one does not starve another', async () => {
    const admission = new RunAdmission({ maxRuns: 1, maxRunsPerPrincipal: 1, maxQueuedPerPrincipal: 100 })
    const started: string[] = []
    const blocker = await admission.admit('flood')
    const runs: Promise<void>[] = []
    const track = (principal: string): void => {
      runs.push(
        admission.admit(principal).then(run => {
          started.push(principal)
          // Each run ends soon after it starts, handing its slot on.
          setImmediate(() => run.release())
        }),
      )
    }
    for (let index = 0; index < 5; index++) track('flood')
    track('quiet')
    blocker.release()
    await Promise.all(runs)
    assert.equal(started.length, 6)
    assert.ok(started.indexOf('quiet') <= 1, `quiet started after at most one flood run: ${started.join(', ')}`)
  })

  it('refuses at once when the queue is full, in total and for one principal, and nothing is kept', async () => {
    const admission = new RunAdmission({ maxRuns: 1, maxRunsPerPrincipal: 1, maxQueued: 3, maxQueuedPerPrincipal: 2 })
    await admission.admit('alice')
    void admission.admit('alice')
    void admission.admit('alice')
    await assert.rejects(admission.admit('alice'), (error: unknown) => {
      assert.ok(error instanceof RunRefusedBusy)
      assert.match(error.message, /the most this server keeps for one caller; nothing ran/)
      return true
    })
    void admission.admit('bob')
    await assert.rejects(
      admission.admit('carol'),
      /The server is busy \(1 runs in flight, 3 waiting\); nothing ran\. Retry later\./,
    )
    assert.deepEqual(admission.load(), { running: 1, queued: 3 })
    // A flood of names never seen before, each refused at the total bound, leaves nothing behind.
    for (let index = 0; index < 100; index++) await assert.rejects(admission.admit(`stranger-${index}`), RunRefusedBusy)
    assert.equal(admission.activePrincipals, 2)
  })

  it('drops a waiting run whose request is cancelled: it never starts', async () => {
    const admission = new RunAdmission({ maxRuns: 1 })
    const running = await admission.admit('alice')
    const controller = new AbortController()
    let started = false
    const waiting = admission.admit('bob', controller.signal).then(() => (started = true))
    controller.abort(new Error('cancelled by the client'))
    await assert.rejects(waiting, /cancelled by the client/)
    running.release()
    await settle()
    assert.equal(started, false)
    assert.deepEqual(admission.load(), { running: 0, queued: 0 })
    await assert.rejects(admission.admit('bob', controller.signal), /cancelled by the client/)
  })

  it('refuses limits that are not whole numbers from 1', () => {
    for (const limits of [{ maxRuns: 0 }, { maxRunsPerPrincipal: 1.5 }, { maxQueued: Number.NaN }]) {
      assert.throws(() => new RunAdmission(limits), RangeError)
    }
  })
})
