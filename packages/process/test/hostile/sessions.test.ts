// Sessions on the child backends. A subverted guest (a test-only child entry whose program can
// forge any message on the wire) cannot keep a session going with forged traffic: a run-stopped
// nobody asked for, or anything sent between runs, ends the session, later runs resolve
// worker-exit naming it, and the runtime keeps serving other runs. And sessions keep tenants
// apart: one session's poison is invisible to another session and to one-shot runs.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeRunFailure, CodeRunResult, CodeSession, StartedCodeRuntime, CodeRuntime } from '@code-runtime/core'
import {
  startContainerRuntime,
  startHookedRuntime,
  startProcessRuntime,
  type BackendName,
  type HookedRuntime,
} from '../start.js'

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Waits until the session has ended (the forged message arrived and was judged), at most 10 s:
 * on a loaded machine a child's 20 ms timer can fire hundreds of milliseconds late.
 */
async function ended(session: CodeSession): Promise<void> {
  for (const deadline = Date.now() + 10_000; session.endReason === undefined && Date.now() < deadline;) await sleep(10)
}

function failureOf(result: CodeRunResult): CodeRunFailure {
  assert.ok(result.error !== undefined, `expected a failure, got ${JSON.stringify(result)}`)
  return result.error
}

/** Asserts the session ended as lost, and that its next run says so, naming it. */
async function assertLost(session: CodeSession, why: RegExp): Promise<void> {
  assert.equal(session.endReason, 'lost')
  const next = failureOf(await session.run({ program: 'return 1', bindings: [] }))
  assert.equal(next.kind, 'worker-exit')
  assert.match(next.message, /This session was lost/)
  assert.deepEqual(next.session, { id: session.id, ended: 'lost' })
  assert.match(next.message, why)
}

/** Poisons what a program in the sandbox can reach, and arms work that would show up later. */
const POISON = `globalThis.leftBy = 'tenant a'
Object.prototype.pollutedBy = 'tenant a'
Array.prototype.includes = () => true
JSON.stringify = () => '"poisoned"'
setInterval(() => console.log('interval of tenant a'), 5)
const escapes = []
for (const reach of [() => globalThis, () => console.log, () => setTimeout(() => {}, 1), () => process.stdout.write]) {
  try { reach().constructor.constructor('globalThis.markedBy = "tenant a"')(); escapes.push('escaped') } catch (error) { escapes.push(error.name) }
}
return escapes`

const PROBE = `await new Promise((resolve) => setTimeout(resolve, 50))
return [typeof globalThis.leftBy, typeof ({}).pollutedBy, [1].includes(2), JSON.stringify({ a: 1 }), typeof globalThis.markedBy]`

const PRISTINE = ['undefined', 'undefined', false, '{"a":1}', 'undefined']

for (const backend of ['process', 'container'] as const satisfies readonly BackendName[]) {
  describe(`hostile guest on the ${backend} backend: forged traffic in a session`, () => {
    let runtime: HookedRuntime
    const sessions: CodeSession[] = []
    before(async () => {
      runtime = await startHookedRuntime(backend, 'session-forging-child-entry', {
        config: { maxWallMs: 10_000, spawnAhead: 0 },
      })
    })
    afterEach(async () => {
      await Promise.all(sessions.splice(0).map(session => session.dispose()))
    })
    after(() => runtime.dispose())

    async function open(): Promise<CodeSession> {
      const session = await runtime.openSession()
      sessions.push(session)
      return session
    }

    it('ends the session on a run-stopped nobody asked for', async () => {
      const session = await open()
      const failure = failureOf(
        await session.run({
          program: "forge({ kind: 'run-stopped' })\nawait new Promise((resolve) => setTimeout(resolve, 2000))",
          bindings: [],
        }),
      )
      assert.equal(failure.kind, 'worker-exit')
      assert.match(failure.message, /run-stopped out of turn/)
      await assertLost(session, /out of turn/)
    })

    it('ends the session on a run-end or run-stopped sent between runs', async () => {
      for (const forged of ["{ kind: 'run-end', outcome: 'value', valueJson: '2' }", "{ kind: 'run-stopped' }"]) {
        const session = await open()
        const result = await session.run({
          program: `globalThis.kept = 1\nsetTimeout(() => forge(${forged}), 20)\nreturn 1`,
          bindings: [],
        })
        assert.equal(result.value, 1)
        await ended(session)
        await assertLost(session, /between runs/)
      }
    })

    it('ends the session when a forged run-end mid-run is followed by the real one', async () => {
      const session = await open()
      const result = await session.run({
        program:
          "forge({ kind: 'run-end', outcome: 'value', valueJson: '\"forged\"' })\nawait new Promise((resolve) => setTimeout(resolve, 20))\nreturn 'real'",
        bindings: [],
      })
      assert.equal(result.value, 'forged', "the guest's first word settles the run")
      await ended(session)
      await assertLost(session, /between runs/)
    })

    it('keeps a session whose guest answers run-stop, and serves one-shot runs after sessions were lost', async () => {
      const session = await open()
      const controller = new AbortController()
      setTimeout(() => controller.abort(new Error('enough')), 100)
      const aborted = failureOf(
        await session.run({
          program: 'globalThis.kept = 7\nawait new Promise(() => {})',
          bindings: [],
          signal: controller.signal,
        }),
      )
      assert.equal(aborted.kind, 'abort')
      assert.equal(session.endReason, undefined)
      assert.equal((await session.run({ program: 'return globalThis.kept', bindings: [] })).value, 7)
      assert.equal((await runtime.run({ program: 'return 6 * 7', bindings: [] })).value, 42)
    })
  })

  describe(`hostile program on the ${backend} backend: sessions keep tenants apart`, () => {
    let started: StartedCodeRuntime<CodeRuntime>
    before(async () => {
      started =
        backend === 'process'
          ? await startProcessRuntime({ spawnAhead: 1 })
          : await startContainerRuntime({ spawnAhead: 1 })
    })
    after(() => started.dispose())

    it("shows another session and a one-shot run nothing of a session's poison, and a session nothing of a one-shot run's", async () => {
      const a = await started.runtime.openSession()
      const b = await started.runtime.openSession()
      try {
        const poisoned = await a.run({ program: POISON, bindings: [] })
        assert.deepEqual(poisoned.value, ['EvalError', 'EvalError', 'EvalError', 'EvalError'], JSON.stringify(poisoned))
        assert.deepEqual((await b.run({ program: PROBE, bindings: [] })).value, PRISTINE, 'another session')
        assert.deepEqual(
          (await started.runtime.run({ program: PROBE, bindings: [] })).value,
          PRISTINE,
          'a one-shot run',
        )
        assert.deepEqual((await started.runtime.run({ program: POISON, bindings: [] })).value, [
          'EvalError',
          'EvalError',
          'EvalError',
          'EvalError',
        ])
        const probed = await b.run({ program: PROBE, bindings: [] })
        assert.deepEqual(probed.value, PRISTINE, 'the session after a one-shot run poisoned')
        assert.deepEqual(probed.logs, [])
      } finally {
        await Promise.all([a.dispose(), b.dispose()])
      }
    })
  })
}
