// Sessions keep tenants apart: each session runs in a worker (and context) of its own, never one
// spawned ahead for one-shot runs nor one recycled in reuse mode, so a session that poisons
// everything it can reach (globals, built-ins, prototypes, any realm an escape reaches, timers)
// shows nothing of it to another session or to a one-shot run, and a one-shot run shows nothing
// to a session. Which worker serves what is counted on the host (Node announces every new worker
// on `process`), never through anything a program can see.
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeSession } from '@code-runtime/core'
import type { WorkerThreadConfigInput } from '@code-runtime/worker-thread'
import { countWorkerSpawns, echoTools, outcomeOf, startWorkerRuntime } from '../start.js'
import { poisonProgram, PRISTINE, PROBE } from './tenant-poison.js'

const POISONED = { logs: [], value: 'poisoned' }

describe('hostile program: sessions keep tenants apart', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>> | undefined
  const sessions: CodeSession[] = []
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map(session => session.dispose()))
    await started?.dispose()
  })

  async function start(config: WorkerThreadConfigInput): Promise<NonNullable<typeof started>> {
    started = await startWorkerRuntime(config)
    return started
  }

  /** Opens a session; returns it with the workers spawned for it. */
  async function open(): Promise<{ session: CodeSession; spawned: number }> {
    const spawns = countWorkerSpawns()
    try {
      const session = await (started as NonNullable<typeof started>).runtime.openSession()
      sessions.push(session)
      return { session, spawned: spawns.count }
    } finally {
      spawns.stop()
    }
  }

  const inSession = async (session: CodeSession, program: string): Promise<unknown> =>
    outcomeOf(await session.run({ program, bindings: [echoTools] }))

  it('gives a session a worker spawned for it, never a recycled one', async () => {
    // No spawn ahead: every worker counted below was spawned on demand.
    const { runtime } = await start({ reuseWorkers: true, spawnAhead: 0 })
    assert.deepEqual(
      outcomeOf(await runtime.run({ program: poisonProgram('one-shot'), bindings: [echoTools] })),
      POISONED,
    )
    const first = await open()
    assert.equal(first.spawned, 1, 'the session spawned its own worker')
    assert.deepEqual(await inSession(first.session, PROBE), PRISTINE, 'nothing of the recycled one-shot worker')
    const second = await open()
    assert.equal(second.spawned, 1)
  })

  it("shows another session and a one-shot run nothing of a session's poison, and a session nothing of a one-shot run's", async () => {
    const { runtime } = await start({ spawnAhead: 1 })
    const { session: a } = await open()
    const { session: b } = await open()
    assert.deepEqual(await inSession(a, poisonProgram('session a')), POISONED)
    assert.deepEqual(await inSession(b, PROBE), PRISTINE, 'session b')
    assert.deepEqual(
      outcomeOf(await runtime.run({ program: PROBE, bindings: [echoTools] })),
      PRISTINE,
      'a one-shot run',
    )
    assert.deepEqual(
      outcomeOf(await runtime.run({ program: poisonProgram('one-shot'), bindings: [echoTools] })),
      POISONED,
    )
    assert.deepEqual(await inSession(b, PROBE), PRISTINE, 'session b after a one-shot run poisoned its worker')
    // The poisoning session keeps what it did, as its own state: a REPL, not a fresh context.
    assert.deepEqual(await inSession(a, 'return [leftBy, ({}).pollutedBy]'), {
      logs: [],
      value: ['session a', 'session a'],
    })
  })

  it('keeps overlapping sessions apart: each finds its own poison only', { timeout: 60_000 }, async () => {
    await start({ spawnAhead: 0 })
    const tenants = ['a', 'b', 'c']
    const opened = await Promise.all(tenants.map(() => open()))
    await Promise.all(
      opened.map(async ({ session }, index) => {
        const tenant = tenants[index] as string
        assert.deepEqual(await inSession(session, PROBE), PRISTINE, `session ${tenant} before any poison`)
        for (let round = 0; round < 3; round++) {
          assert.deepEqual(await inSession(session, poisonProgram(tenant)), POISONED)
          assert.deepEqual(
            await inSession(session, 'return [leftBy, ({}).pollutedBy, globalThis.markedBy ?? null]'),
            { logs: [], value: [tenant, tenant, null] },
            `session ${tenant} round ${round}`,
          )
        }
      }),
    )
  })
})
