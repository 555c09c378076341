import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeRunOutcome, CodeRunResult, CodeSession } from '@code-runtime/core'
import { nameBudgetOptions, withBudgetOptionNames } from './budget-option-names.js'

const usage = { wallMs: 5, busyMs: 1, bindingCalls: 0, outputBytes: 10 }

/** A whole result around `outcome`, as a backend would resolve it. */
function resultOf(outcome: CodeRunOutcome): CodeRunResult {
  return { ...outcome, usage, calls: [] }
}

function runtimeAnswering(result: CodeRunResult): ReturnType<typeof withBudgetOptionNames> {
  return withBudgetOptionNames({ run: () => Promise.resolve(result) })
}

const request = { program: 'return 1', bindings: [] }

describe('withBudgetOptionNames', () => {
  it('names the CLI options in timeout failures', async () => {
    const result = await runtimeAnswering(
      resultOf({
        logs: ['a'],
        error: {
          kind: 'timeout',
          message: 'Stopped after 5 ms of wall time (maxWallMs) while the program was still running or waiting.',
        },
      }),
    ).run(request)
    assert.deepEqual(
      result,
      resultOf({
        logs: ['a'],
        error: {
          kind: 'timeout',
          message: 'Stopped after 5 ms of wall time (--timeout-ms) while the program was still running or waiting.',
        },
      }),
    )
    assert.equal(
      nameBudgetOptions('Stopped after 9 ms of compute (computeMs).'),
      'Stopped after 9 ms of compute (--compute-ms).',
    )
  })

  it('names only the budget the failure reports as run out, and keeps the budget fact itself', async () => {
    // A wall timeout whose message also quotes the compute budget: only the reported one is renamed.
    const message = 'Stopped after 5 ms of wall time (maxWallMs); the program had set (computeMs) aside.'
    const budget = { name: 'maxWallMs', limit: 5 }
    const result = await runtimeAnswering(resultOf({ logs: [], error: { kind: 'timeout', message, budget } })).run(
      request,
    )
    assert.deepEqual(result.error, {
      kind: 'timeout',
      message: 'Stopped after 5 ms of wall time (--timeout-ms); the program had set (computeMs) aside.',
      budget,
    })
    const queued = {
      kind: 'timeout' as const,
      message: 'No runner had a free slot within 9 ms (maxQueueMs).',
      budget: { name: 'maxQueueMs', limit: 9 },
    }
    assert.deepEqual((await runtimeAnswering(resultOf({ logs: [], error: queued })).run(request)).error, queued)
  })

  it("leaves a program's own error text and successful results alone", async () => {
    const thrown = resultOf({ logs: [], error: { kind: 'exception', message: 'Error: (maxWallMs)' } })
    assert.equal(await runtimeAnswering(thrown).run(request), thrown)
    const value = resultOf({ logs: [], value: '(computeMs)' })
    assert.equal(await runtimeAnswering(value).run(request), value)
  })

  it('names them in the runs of a session too, passing the session through, and opens none where the runtime has none', async () => {
    const timeout = resultOf({
      logs: [],
      error: { kind: 'timeout', message: 'Stopped after 5 ms of compute (computeMs).' },
    })
    let disposed = 0
    const session: CodeSession = {
      id: 's1',
      endReason: undefined,
      run: () => Promise.resolve(timeout),
      dispose: async () => void disposed++,
    }
    const named = withBudgetOptionNames({
      run: () => Promise.resolve(timeout),
      openSession: () => Promise.resolve(session),
    })
    const opened = await named.openSession?.()
    assert.equal(opened?.id, 's1')
    assert.equal(opened?.endReason, undefined)
    assert.equal((await opened?.run(request))?.error?.message, 'Stopped after 5 ms of compute (--compute-ms).')
    await opened?.dispose()
    assert.equal(disposed, 1)
    assert.equal(runtimeAnswering(timeout).openSession, undefined)
  })
})
