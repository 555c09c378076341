/**
 * CONTRACT section #lifecycle: no state between runs, disposal to quiescence, and binding
 * results that arrive after a run settled are dropped harmlessly.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeRunResult } from '../types.js'
import { assertFailure, assertRunRejects, assertValue } from './assertions.js'
import { createDeferred, recordCalls } from './host-functions.js'
import { programLines, runProgram, useRuntime, withRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

async function runProgramText(runtime: CodeRuntime, program: string): Promise<CodeRunResult> {
  return await runProgram(runtime, { program, bindings: [] })
}

/** Lets pending host callbacks and port messages be handled before the next step. */
async function turnEventLoop(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>(resolve => setImmediate(resolve))
}

function describeIsolationBetweenRuns(runtime: () => CodeRuntime): void {
  void describe('no state between runs [#no-state-between-runs]', () => {
    void it('hides a global set by one run from the next', async () => {
      assertValue(await runProgramText(runtime(), 'globalThis.leak = 1\nreturn 1'), 1)
      assertValue(await runProgramText(runtime(), 'return [typeof leak, typeof globalThis.leak]'), [
        'undefined',
        'undefined',
      ])
    })

    void it('gives the next run clean built-ins after one run mutates them', async () => {
      const mutate = programLines(
        'Array.prototype.poisoned = 1',
        'Object.prototype.alsoPoisoned = 2',
        "JSON.stringify = () => 'poisoned'",
        'Math.max = () => -1',
        'return 1',
      )
      assertValue(await runProgramText(runtime(), mutate), 1)
      const inspect = 'return [typeof [].poisoned, typeof ({}).alsoPoisoned, JSON.stringify([1]), Math.max(1, 2)]'
      assertValue(await runProgramText(runtime(), inspect), ['undefined', 'undefined', '[1]', 2])
    })

    void it('lets no timer of a finished run print into the next run', async () => {
      const first = await runProgramText(
        runtime(),
        programLines(
          "setTimeout(() => console.log('late from the first run'), 0)",
          "setInterval(() => console.log('interval from the first run'), 1)",
          'return 1',
        ),
      )
      assertValue(first, 1)
      const second = await runProgramText(
        runtime(),
        "await new Promise((resolve) => setTimeout(resolve, 50))\nconsole.log('second')\nreturn 2",
      )
      assertValue(second, 2)
      assert.deepEqual(second.logs, ['second'])
    })

    void it('keeps concurrent runs apart', async () => {
      const gate = createDeferred<null>()
      const wait = recordCalls(() => gate.promise)
      const open = recordCalls(() => {
        gate.resolve(null)
        return null
      })
      const [first, second] = await Promise.all([
        runProgram(runtime(), {
          program:
            "globalThis.owner = 'first'\nawait tools.wait({})\nreturn [globalThis.owner, typeof globalThis.other]",
          bindings: [{ global: 'tools', functions: { wait: wait.fn } }],
        }),
        runProgram(runtime(), {
          program:
            "globalThis.owner = 'second'\nglobalThis.other = true\nawait tools.open({})\nreturn globalThis.owner",
          bindings: [{ global: 'tools', functions: { open: open.fn } }],
        }),
      ])
      assertValue(first, ['first', 'undefined'])
      assertValue(second, 'second')
    })
  })
}

function describeLateResults(runtime: () => CodeRuntime): void {
  void describe('late binding results [#late-results]', () => {
    void it('drops a resolution and a rejection that arrive after the run was aborted', async () => {
      const controller = new AbortController()
      const resolveLater = createDeferred<null>()
      const rejectLater = createDeferred<null>()
      const slow = recordCalls(() => resolveLater.promise)
      const failing = recordCalls(() => rejectLater.promise)
      const started = recordCalls(() => {
        controller.abort('stopped while calls were pending')
        return null
      })
      const result = await runProgram(runtime(), {
        program: 'void tools.slow({})\nvoid tools.failing({})\nawait tools.started({})\nawait new Promise(() => {})',
        bindings: [{ global: 'tools', functions: { slow: slow.fn, failing: failing.fn, started: started.fn } }],
        signal: controller.signal,
      })
      assert.equal(assertFailure(result, 'abort'), 'stopped while calls were pending')
      resolveLater.resolve(null)
      rejectLater.reject(new Error('late failure'))
      await turnEventLoop()
      assertValue(await runProgramText(runtime(), 'return 3'), 3)
    })

    void it('stops calling bindings once a run is aborted', async () => {
      const controller = new AbortController()
      const first = recordCalls(() => {
        controller.abort('stop')
        return null
      })
      const second = recordCalls(() => null)
      const result = await runProgram(runtime(), {
        program: 'await tools.first({})\nwhile (true) await tools.second({})',
        bindings: [{ global: 'tools', functions: { first: first.fn, second: second.fn } }],
        signal: controller.signal,
      })
      assertFailure(result, 'abort')
      const callsAtSettle = second.calls.length
      await turnEventLoop()
      assert.equal(second.calls.length, callsAtSettle, 'no binding was called after the run settled')
    })
  })
}

function describeDisposal(target: ConformanceTarget): void {
  void describe('disposal [#dispose]', () => {
    void it('settles in-flight runs as abort and completes only after them; later runs reject', async () => {
      await withRuntime(target, {}, async ({ runtime, dispose }) => {
        const settled: string[] = []
        /** Starts a run that calls tools.started() and then never ends by itself. */
        const startRun = async (label: string, rest: string): Promise<{ readonly pending: Promise<CodeRunResult> }> => {
          const running = createDeferred<null>()
          const started = recordCalls(() => {
            running.resolve(null)
            return null
          })
          const pending = runtime.run({
            program: `await tools.started({})\n${rest}`,
            bindings: [{ global: 'tools', functions: { started: started.fn } }],
          })
          // Watch the promise run() returned itself, so no extra turn hides the order.
          pending.then(
            () => settled.push(label),
            () => settled.push(label),
          )
          await running.promise
          // Wrapped, so awaiting startRun does not wait for the run itself.
          return { pending }
        }
        const [awaiting, looping] = await Promise.all([
          startRun('awaiting', 'await new Promise(() => {})'),
          startRun('looping', 'while (true) {}'),
        ])
        // Give the looping program time to enter its loop; nothing is asserted about time.
        await new Promise(resolve => setTimeout(resolve, 50))

        await dispose()
        assert.deepEqual([...settled].sort(), ['awaiting', 'looping'], 'both runs settled before dispose() resolved')
        for (const { pending } of [awaiting, looping]) {
          let result: CodeRunResult
          try {
            result = await pending
          } catch (error) {
            assert.fail(`an in-flight run rejected on dispose instead of resolving abort: ${String(error)}`)
          }
          assertFailure(result, 'abort')
        }
        await assertRunRejects(runtime, { program: 'return 1', bindings: [] }, 'CODE_RUNTIME_DISPOSED')
      })
    })

    void it('disposes an idle runtime', async () => {
      await withRuntime(target, {}, async ({ runtime, dispose }) => {
        assertValue(await runProgramText(runtime, 'return 1'), 1)
        await dispose()
        await assertRunRejects(runtime, { program: 'return 1', bindings: [] }, 'CODE_RUNTIME_DISPOSED')
      })
    })
  })
}

/** Registers the checks of CONTRACT section #lifecycle. */
export function describeLifecycle(target: ConformanceTarget): void {
  void describe(`${target.name}: lifecycle [#lifecycle]`, () => {
    const runtime = useRuntime(target)
    describeIsolationBetweenRuns(runtime)
    describeLateResults(runtime)
    describeDisposal(target)
  })
}
