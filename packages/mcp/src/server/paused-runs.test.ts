import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ToolApprovalDecision, ToolApprovalRequest } from '@code-runtime/code-mode'
import { PausableRun, PausedRuns } from './paused-runs.js'
import { RefusedRequestState, RequestStates } from './request-states.js'

function question(tool: string): ToolApprovalRequest {
  return { tool, member: tool, args: {}, summary: '(no arguments)' }
}

describe('PausableRun', () => {
  it('asks calls that wait together in one round, and each answer reaches its call once', async () => {
    const run = new PausableRun<string>('alice', 60_000, undefined)
    const approve = run.approver()
    const signal = new AbortController().signal
    const first = approve(question('a'), { signal })
    const second = approve(question('b'), { signal })
    const event = await run.next()
    assert.equal(event.kind, 'questions')
    assert.ok(event.kind === 'questions')
    assert.deepEqual(
      event.questions.map(asked => asked.request.tool),
      ['a', 'b'],
    )
    assert.equal(run.claim(event.round), true)
    assert.equal(run.claim(event.round), false, 'a round is claimed once')
    const [keyA] = event.questions.map(asked => asked.key)
    run.answer(key => (key === keyA ? { action: 'allow' } : undefined))
    assert.deepEqual(await first, { action: 'allow' })
    // The unanswered call is asked again, alone, in the next round.
    const again = await run.next()
    assert.ok(again.kind === 'questions')
    assert.equal(again.round, event.round + 1)
    assert.deepEqual(
      again.questions.map(asked => asked.request.tool),
      ['b'],
    )
    assert.equal(run.claim(event.round), false, 'an old round stays claimed')
    assert.equal(run.claim(again.round), true)
    const declined: ToolApprovalDecision = { action: 'decline', reason: 'no' }
    run.answer(() => declined)
    run.answer(() => ({ action: 'allow' }))
    assert.deepEqual(await second, declined, 'a second answer of the same round reaches nothing')
    run.end('done')
    assert.deepEqual(await run.next(), { kind: 'ended', outcome: 'done' })
  })

  it('forgets a question whose run was aborted before the answer', async () => {
    const run = new PausableRun<string>('alice', 60_000, undefined)
    const aborting = new AbortController()
    void run.approver()(question('a'), { signal: aborting.signal })
    aborting.abort()
    run.end('aborted')
    assert.deepEqual(await run.next(), { kind: 'ended', outcome: 'aborted' })
  })
})

describe('PausedRuns', () => {
  it('finds a run by id for its principal only, and a retired run as a replay', async () => {
    const runs = new PausedRuns<string>()
    const run = new PausableRun<string>('alice', 60_000, undefined)
    void run.approver()(question('a'), { signal: new AbortController().signal })
    const event = await run.next()
    assert.ok(event.kind === 'questions')
    runs.keep(run, () => undefined)
    assert.equal(runs.claim('r_nothing', event.round, 'alice'), 'unknown-run')
    assert.equal(runs.claim(run.id, event.round, 'bob'), 'other-principal')
    assert.equal(runs.claim(run.id, event.round, 'alice'), run, 'a refused claim changed nothing')
    assert.equal(runs.claim(run.id, event.round, 'alice'), 'replayed')
    runs.retire(run.id)
    assert.equal(runs.claim(run.id, event.round + 1, 'alice'), 'replayed')
    runs.clear()
  })
})

describe('RequestStates', () => {
  it('reads back what it signed, and refuses a state altered, signed by another key, expired or of another principal', async () => {
    const states = new RequestStates(RequestStates.randomKey(), 60_000)
    const state = await states.mint('r_1', 2, 'alice', Date.now() + 30_000)
    assert.deepEqual(await states.read(state, 'alice'), { runId: 'r_1', round: 2 })
    const reasonOf = async (attempt: Promise<unknown>): Promise<string> => {
      try {
        await attempt
        return 'accepted'
      } catch (error) {
        assert.ok(error instanceof RefusedRequestState)
        return error.reason
      }
    }
    assert.equal(await reasonOf(states.read(state, 'bob')), 'other-principal')
    const other = new RequestStates(RequestStates.randomKey(), 60_000)
    assert.equal(await reasonOf(other.read(state, 'alice')), 'forged')
    assert.equal(await reasonOf(states.read(`${state}x`, 'alice')), 'forged')
    assert.equal(await reasonOf(states.read('not a state', 'alice')), 'forged')
    const past = await states.mint('r_1', 2, 'alice', Date.now() - 1)
    assert.equal(await reasonOf(states.read(past, 'alice')), 'expired')
    assert.throws(() => new RequestStates(new Uint8Array(16), 1_000), /at least 32 bytes/)
  })
})
