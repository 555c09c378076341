/**
 * CONTRACT section #failure-kinds: `exception`, `timeout` and `abort`, each reported exactly and
 * never merged with another kind. `invalid-output` is checked with the completion boundary
 * (lossless-json.ts) and `output-limit` with the cap (output-cap.ts). `worker-exit` is not
 * checked here: no program text kills every substrate the same portable way (a backend's own
 * tests trigger it, e.g. by exhausting the heap cap).
 */
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeRunResult } from '../types.js'
import { assertBudgetFacts, assertFailure, assertMentionsNumber, assertValue, outputBytes } from './assertions.js'
import { abortWhenCalled, createDeferred, recordCalls } from './host-functions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** The smallest budget the timeout checks use: quick, and far above start-up on a quiet machine. */
const SMALL_BUDGET_MS = 300
/** How many times the slowest trivial run the small budget is, at least. */
const SMALL_BUDGET_MARGIN = 10
/** How long after the program says it is running the checks abort it. */
const ABORT_DELAY_MS = 50

async function runProgramText(runtime: CodeRuntime, program: string): Promise<CodeRunResult> {
  return await runProgram(runtime, { program, bindings: [] })
}

function describeExceptions(runtime: () => CodeRuntime): void {
  void describe('exception [#exception]', () => {
    void it('resolves an exception for a thrown error', async () => {
      const message = assertFailure(await runProgramText(runtime(), "throw new Error('boom')"), 'exception')
      assert.match(message, /boom/)
    })

    // CONTRACT section #exception: a thrown non-Error value's message is String(value), nothing more, so
    // the model reads what it threw and the output cap counts exactly that.
    const thrownPrimitives: readonly (readonly [string, string])[] = [
      ["'plain failure'", 'plain failure'],
      ['42', '42'],
      ['12n', '12'],
      ['false', 'false'],
      ['undefined', 'undefined'],
      ['null', 'null'],
      ["Symbol('mark')", 'Symbol(mark)'],
    ]
    for (const [thrown, expected] of thrownPrimitives) {
      void it(`resolves an exception whose message is String(value) for throw ${thrown}`, async () => {
        const result = await runProgramText(runtime(), `throw ${thrown}`)
        assert.equal(assertFailure(result, 'exception'), expected)
        assert.equal(result.usage.outputBytes, outputBytes(result))
      })
    }

    void it('resolves an exception for an awaited rejection', async () => {
      const message = assertFailure(
        await runProgramText(runtime(), "await Promise.reject(new Error('rejected late'))"),
        'exception',
      )
      assert.match(message, /rejected late/)
    })

    void it("resolves an exception carrying the host's message for a binding rejection the program does not catch", async () => {
      const fail = recordCalls(() => Promise.reject(new Error('host refused the call')))
      const result = await runProgram(runtime(), {
        program: 'await tools.fail({})\nreturn 1',
        bindings: [{ global: 'tools', functions: { fail: fail.fn } }],
      })
      assert.match(assertFailure(result, 'exception'), /host refused the call/)
    })

    void it('reports an error named AbortError as exception, not abort', async () => {
      const program = "const error = new Error('looks like an abort')\nerror.name = 'AbortError'\nthrow error"
      assertFailure(await runProgramText(runtime(), program), 'exception')
    })

    void it('reports an error named TimeoutError as exception, not timeout', async () => {
      const program =
        "const error = new Error('Stopped after 300 ms (computeMs)')\nerror.name = 'TimeoutError'\nthrow error"
      const result = await runProgramText(runtime(), program)
      assertFailure(result, 'exception')
      assert.ok(
        result.error !== undefined && !('budget' in result.error),
        'an exception names no budget [#failure-facts]',
      )
    })
  })
}

/**
 * A small budget for the timeout checks, measured on this machine now. The checks need the
 * program's first statements (a log line, a call) to reach the host before the budget runs out,
 * and on a loaded machine the host or the substrate can wait for a core longer than a fixed
 * 300 ms. So the budget is {@link SMALL_BUDGET_MARGIN} times the slowest of three exchanges
 * with a running program (the host answers a call, the program logs and ends, the host settles:
 * what a check needs, without the start-up a run may also wait for), never below
 * {@link SMALL_BUDGET_MS}.
 */
function useSmallBudget(runtime: () => CodeRuntime): () => number {
  let budgetMs = SMALL_BUDGET_MS
  before(async () => {
    let slowestMs = 0
    for (let run = 0; run < 3; run++) {
      let calledAt = 0
      const ping = recordCalls(() => {
        calledAt = performance.now()
        return null
      })
      const result = await runProgram(runtime(), {
        program: "await tools.ping({})\nconsole.log('measuring')\nreturn 1",
        bindings: [{ global: 'tools', functions: { ping: ping.fn } }],
      })
      assertValue(result, 1)
      slowestMs = Math.max(slowestMs, performance.now() - calledAt)
    }
    budgetMs = Math.max(SMALL_BUDGET_MS, Math.ceil(slowestMs * SMALL_BUDGET_MARGIN))
  })
  return () => budgetMs
}

function describeComputeBudget(target: ConformanceTarget, measuringRuntime: () => CodeRuntime): void {
  void describe('timeout: a small computeMs [#timeout]', () => {
    const smallBudget = useSmallBudget(measuringRuntime)
    const runtime = useRuntime(target, () => ({ computeMs: smallBudget() }))

    void it('resolves timeout naming computeMs and its value for a hot loop', async () => {
      const result = await runProgramText(runtime(), 'while (true) {}')
      const message = assertFailure(result, 'timeout')
      assert.match(message, /computeMs/)
      assertMentionsNumber(message, smallBudget(), 'the budget')
      assertBudgetFacts(result, 'computeMs', smallBudget())
    })

    void it('catches a hot loop while a binding call is pending', async () => {
      // The decoy call never settles; a backend that pauses its compute clock while a call is
      // pending would let the loop run until the wall budget.
      const pending = recordCalls(() => new Promise<never>(() => {}))
      const result = await runProgram(runtime(), {
        program: 'void tools.pending({})\nwhile (true) {}',
        bindings: [{ global: 'tools', functions: { pending: pending.fn } }],
      })
      assert.match(assertFailure(result, 'timeout'), /computeMs/)
    })

    void it('does not charge computeMs while the program awaits a binding', async () => {
      const slow = recordCalls(
        () => new Promise(resolve => setTimeout(() => resolve('slow answer'), smallBudget() * 2)),
      )
      const result = await runProgram(runtime(), {
        program: 'return await tools.slow({})',
        bindings: [{ global: 'tools', functions: { slow: slow.fn } }],
      })
      assertValue(result, 'slow answer')
    })

    void it('keeps logs printed before the timeout [#logs-kept]', async () => {
      const result = await runProgramText(
        runtime(),
        programLines("console.log('before the loop')", "process.stdout.write('partial line')", 'while (true) {}'),
      )
      assertFailure(result, 'timeout')
      assert.deepEqual(result.logs, ['before the loop', 'partial line'])
    })

    void it('stays usable after a timeout', async () => {
      assertFailure(await runProgramText(runtime(), 'while (true) {}'), 'timeout')
      assertValue(await runProgramText(runtime(), 'return 1'), 1)
    })
  })
}

function describeWallBudget(target: ConformanceTarget, measuringRuntime: () => CodeRuntime): void {
  void describe('timeout: a small maxWallMs [#timeout]', () => {
    const smallBudget = useSmallBudget(measuringRuntime)
    const runtime = useRuntime(target, () => ({ maxWallMs: smallBudget() }))

    void it('resolves timeout naming maxWallMs and its value for a program awaiting forever', async () => {
      const result = await runProgramText(runtime(), "console.log('waiting')\nawait new Promise(() => {})")
      const message = assertFailure(result, 'timeout')
      assert.match(message, /maxWallMs/)
      assertMentionsNumber(message, smallBudget(), 'the budget')
      assertBudgetFacts(result, 'maxWallMs', smallBudget())
      assert.deepEqual(result.logs, ['waiting'], 'logs printed before the timeout are kept')
    })

    void it('resolves timeout naming maxWallMs while a binding call never settles', async () => {
      const never = recordCalls(() => new Promise<never>(() => {}))
      const result = await runProgram(runtime(), {
        program: 'await tools.never({})',
        bindings: [{ global: 'tools', functions: { never: never.fn } }],
      })
      assert.match(assertFailure(result, 'timeout'), /maxWallMs/)
    })
  })
}

function describeAbort(runtime: () => CodeRuntime): void {
  void describe('abort [#abort]', () => {
    void it('resolves abort with String(reason) when the signal fires while the program awaits', async () => {
      const controller = new AbortController()
      const started = abortWhenCalled(controller, 'stopped by the caller', ABORT_DELAY_MS)
      const result = await runProgram(runtime(), {
        program: "console.log('before')\nawait tools.started({})\nawait new Promise(() => {})",
        bindings: [{ global: 'tools', functions: { started: started.fn } }],
        signal: controller.signal,
      })
      assert.equal(assertFailure(result, 'abort'), 'stopped by the caller')
      assert.deepEqual(result.logs, ['before'], 'logs printed before the abort are kept')
    })

    void it('resolves abort with String(reason) when the signal fires inside a synchronous loop', async () => {
      const controller = new AbortController()
      const reason = new Error('the caller gave up')
      const started = abortWhenCalled(controller, reason, ABORT_DELAY_MS)
      const result = await runProgram(runtime(), {
        program: 'await tools.started({})\nwhile (true) {}',
        bindings: [{ global: 'tools', functions: { started: started.fn } }],
        signal: controller.signal,
      })
      assert.equal(assertFailure(result, 'abort'), String(reason))
    })

    void it('resolves abort while a binding call is pending, without waiting for it', async () => {
      const controller = new AbortController()
      const call = createDeferred<null>()
      const pending = recordCalls(() => {
        controller.abort('stopped during a call')
        return call.promise
      })
      try {
        const result = await runProgram(runtime(), {
          program: 'await tools.pending({})\nreturn 1',
          bindings: [{ global: 'tools', functions: { pending: pending.fn } }],
          signal: controller.signal,
        })
        assert.equal(assertFailure(result, 'abort'), 'stopped during a call')
      } finally {
        call.resolve(null)
      }
    })

    void it('stays usable after an abort', async () => {
      const controller = new AbortController()
      const started = abortWhenCalled(controller, 'stop', 0)
      const result = await runProgram(runtime(), {
        program: 'await tools.started({})\nwhile (true) {}',
        bindings: [{ global: 'tools', functions: { started: started.fn } }],
        signal: controller.signal,
      })
      assertFailure(result, 'abort')
      assertValue(await runProgramText(runtime(), 'return 2'), 2)
    })
  })
}

/** Registers the checks of CONTRACT section #failure-kinds. */
export function describeFailureKinds(target: ConformanceTarget): void {
  void describe(`${target.name}: failure kinds [#failure-kinds]`, () => {
    const runtime = useRuntime(target)
    describeExceptions(runtime)
    describeAbort(runtime)
    describeComputeBudget(target, runtime)
    describeWallBudget(target, runtime)
  })
}
