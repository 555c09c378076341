/**
 * CONTRACT section #host-memory: host memory a program can make the host spend,
 * the arguments of binding calls held in flight (`maxPendingCallBytes`) and the number of log
 * entries (`maxLogEntries`). Both are backend config fields beside the shared budget fields, so
 * a backend registers these checks with a `start` that accepts them.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { StartedCodeRuntime } from '../start-runtime.js'
import type { CodeBindingNamespace } from '../types.js'
import { assertFailure, assertMentionsNumber, assertWithinCap } from './assertions.js'
import { programLines, runProgram } from './runtime-fixture.js'

/** The two config fields these checks set, plus a wall ceiling so a miss ends in `timeout`. */
export interface HostMemoryConfig {
  readonly maxPendingCallBytes?: number
  readonly maxLogEntries?: number
  readonly maxWallMs?: number
}

/** A backend whose config accepts {@link HostMemoryConfig}. */
export interface HostMemoryTarget {
  readonly name: string
  start(config: HostMemoryConfig): Promise<StartedCodeRuntime<CodeRuntime>>
}

async function withStarted<T>(
  target: HostMemoryTarget,
  config: HostMemoryConfig,
  check: (runtime: CodeRuntime) => Promise<T>,
): Promise<T> {
  const started = await target.start(config)
  try {
    return await check(started.runtime)
  } finally {
    await started.dispose()
  }
}

/** `tools.hold(x)` stays pending until `tools.release()`; `tools.echo(x)` resolves `x`. */
function holdingTools(): CodeBindingNamespace {
  const held: (() => void)[] = []
  return {
    global: 'tools',
    functions: {
      hold: () => new Promise<string>(resolve => held.push(() => resolve('released'))),
      release: async () => {
        for (const release of held.splice(0)) release()
        return null
      },
      echo: async (args: unknown) => args as string,
    },
  }
}

/** Registers the checks for `target`. */
export function describeHostMemory(target: HostMemoryTarget): void {
  void describe(`${target.name}: host memory a program can make the host spend [#host-memory]`, () => {
    void it('refuses a call whose arguments would take the calls in flight past maxPendingCallBytes, and frees the budget as calls settle', async () => {
      // Each argument is a 300 000-character string: 300 002 bytes of JSON. Three fit in 1 000 000, a fourth does not.
      await withStarted(target, { maxPendingCallBytes: 1_000_000, maxWallMs: 60_000 }, async runtime => {
        const result = await runProgram(runtime, {
          program: programLines(
            "const big = 'x'.repeat(300000)",
            'const held = [1, 2, 3].map(() => tools.hold(big))',
            "let refused = 'not refused'",
            'try { await tools.hold(big) } catch (error) { refused = (error as Error).message }',
            'await tools.release()',
            'await Promise.all(held)',
            'const echoed = await tools.echo(big)',
            'return { refused, echoed: echoed.length }',
          ),
          bindings: [holdingTools()],
        })
        assert.equal(result.error, undefined, result.error?.message)
        const value = result.value as { refused: string; echoed: number }
        assert.match(value.refused, /maxPendingCallBytes/)
        assertMentionsNumber(value.refused, 1_000_000, 'the budget')
        assert.equal(value.echoed, 300_000, 'the budget is free again once the held calls settled')
        assert.deepEqual(
          result.calls.map(call => call.outcome),
          ['ok', 'ok', 'ok', 'error', 'ok', 'ok'],
        )
      })
    })

    void it('ends a flood of empty log lines at maxLogEntries with output-limit naming it', async () => {
      await withStarted(target, { maxLogEntries: 1_000, maxWallMs: 60_000 }, async runtime => {
        const result = await runProgram(runtime, {
          program: programLines('for (let line = 0; line < 100000; line++) console.log()', "return 'finished'"),
          bindings: [],
        })
        const message = assertFailure(result, 'output-limit')
        assert.match(message, /maxLogEntries/)
        assertMentionsNumber(message, 1_000, 'the limit')
        assert.equal(result.logs.length, 1_000)
        assert.ok(result.logs.every(entry => entry === ''))
        assertWithinCap(result, 64 * 1024 * 1024)
      })
    })
  })
}
