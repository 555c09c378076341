/**
 * CONTRACT section #observability: live logs (`request.onLog`), the usage report (`result.usage`)
 * and the record of every binding call (`result.calls`). Additive: a caller that ignores them
 * sees the other rules unchanged. The shape of `usage` and `calls` is checked on every run by
 * `runProgram`; here their meaning is.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeBindingNamespace, CodeJsonValue } from '../types.js'
import { assertFailure, assertValue, outputBytes } from './assertions.js'
import { createDeferred } from './host-functions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

function describeLiveLogs(target: ConformanceTarget): void {
  void describe('live logs (request.onLog) [#live-logs]', () => {
    const runtime = useRuntime(target)

    void it('sees every entry in order before run() resolves, equal to result.logs', async () => {
      const seen: string[] = []
      const gate = createDeferred<CodeJsonValue>()
      const tools: CodeBindingNamespace = {
        global: 'tools',
        functions: {
          // The program waits on this call; the entries printed before it must already be seen.
          wait: async () => {
            gate.resolve([...seen])
            return null
          },
        },
      }
      const result = await runProgram(runtime(), {
        program: programLines(
          "console.log('one')",
          "process.stdout.write('two')",
          'await tools.wait({})',
          "console.error('three')",
          'return 1',
        ),
        bindings: [tools],
        onLog: text => seen.push(text),
      })
      assertValue(result, 1)
      assert.deepEqual(await gate.promise, ['one', 'two'], 'entries arrive while the program is still running')
      assert.deepEqual(seen, result.logs)
      assert.deepEqual(seen, ['one', 'two', 'three'])
    })

    void it('ignores an observer that throws or rejects and keeps the run intact', async () => {
      let calls = 0
      const result = await runProgram(runtime(), {
        program: programLines("console.log('a')", "console.log('b')", "return 'done'"),
        bindings: [],
        onLog: text => {
          calls++
          if (text === 'a') throw new Error('observer broke')
          return Promise.reject(new Error('async observer broke')) as unknown as void
        },
      })
      assertValue(result, 'done')
      assert.deepEqual(result.logs, ['a', 'b'])
      assert.equal(calls, 2)
    })
  })

  void describe('live logs at the output cap [#live-logs]', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 2_000 })

    void it('sees exactly the kept logs, cut included, when the output cap is hit', async () => {
      const seen: string[] = []
      const result = await runProgram(runtime(), {
        program: "for (let i = 0; ; i++) console.log('entry ' + i + ' ' + 'x'.repeat(i % 7))",
        bindings: [],
        onLog: text => seen.push(text),
      })
      assertFailure(result, 'output-limit')
      assert.deepEqual(seen, result.logs)
    })

    void it('sees the logs of a failed run, then the run fails as usual', async () => {
      const seen: string[] = []
      const result = await runProgram(runtime(), {
        program: programLines("console.log('before')", "throw new Error('boom')"),
        bindings: [],
        onLog: text => seen.push(text),
      })
      assertFailure(result, 'exception')
      assert.deepEqual(seen, ['before'])
    })
  })

  void describe('live logs near a small cap [#live-logs]', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 11 })

    void it("hands the observer 'abc' even when it only fits beside the value ('abc' + 'xy' = 11 bytes)", async () => {
      const seen: string[] = []
      const result = await runProgram(runtime(), {
        program: "console.log('abc')\nreturn 'xy'",
        bindings: [],
        onLog: text => seen.push(text),
      })
      assertValue(result, 'xy')
      assert.deepEqual(seen, ['abc'])
    })
  })
}

function describeUsage(target: ConformanceTarget): void {
  void describe('usage report (result.usage) [#usage]', () => {
    const runtime = useRuntime(target)

    void it('counts binding calls and the output bytes charged against the cap', async () => {
      const tools: CodeBindingNamespace = { global: 'tools', functions: { echo: async args => args as CodeJsonValue } }
      const result = await runProgram(runtime(), {
        program: programLines(
          "console.log('€ and more')",
          'await tools.echo(1)',
          'await Promise.all([tools.echo(2), tools.echo(3)])',
          "return { sum: 6, text: 'é' }",
        ),
        bindings: [tools],
      })
      assertValue(result, { sum: 6, text: 'é' })
      assert.equal(result.usage.bindingCalls, 3)
      assert.equal(result.usage.outputBytes, outputBytes(result))
    })

    void it('is reported on failures too, including those before any program ran', async () => {
      const thrown = await runProgram(runtime(), { program: "console.log('x')\nthrow new Error('no')", bindings: [] })
      assertFailure(thrown, 'exception')
      assert.equal(thrown.usage.outputBytes, outputBytes(thrown))
      const transformFailure = await runProgram(runtime(), { program: 'enum Color { Red }', bindings: [] })
      assertFailure(transformFailure, 'exception')
      assert.equal(transformFailure.usage.bindingCalls, 0)
      assert.equal(transformFailure.usage.busyMs, 0, 'no substrate ran for a program that failed to transform')
      assert.equal(transformFailure.usage.outputBytes, outputBytes(transformFailure))
    })

    // A fixed amount of work, not a wall-clock spin: a substrate measured in CPU time gets less
    // CPU than wall time on a loaded machine, and the check must not depend on the load.
    void it('measures busy time that grows with the work done', async () => {
      const idle = await runProgram(runtime(), { program: 'return 1', bindings: [] })
      const busy = await runProgram(runtime(), {
        program: 'let sum = 0\nfor (let i = 0; i < 30_000_000; i++) sum = (sum + i) % 1_000_003\nreturn sum',
        bindings: [],
      })
      assert.equal(busy.error, undefined)
      assert.ok(busy.usage.busyMs >= 10, `thirty million iterations were measured as ${busy.usage.busyMs} ms busy`)
      assert.ok(busy.usage.busyMs > idle.usage.busyMs)
      assert.ok(busy.usage.wallMs >= busy.usage.busyMs * 0.5)
    })
  })
}

function describeCallRecord(target: ConformanceTarget): void {
  void describe('binding-call record (result.calls) [#call-record]', () => {
    const runtime = useRuntime(target)

    void it('records each call in start order with its outcome, and in-flight calls when the run ends first', async () => {
      const tools: CodeBindingNamespace = {
        global: 'tools',
        functions: {
          save: async () => 'saved',
          fail: async () => {
            throw new Error('refused by the host')
          },
          hang: () => new Promise<CodeJsonValue>(() => {}),
        },
      }
      const result = await runProgram(runtime(), {
        program: programLines(
          'await tools.save({ id: 1 })',
          'try { await tools.fail({}) } catch {}',
          'tools.hang({})',
          "throw new Error('stopped early')",
        ),
        bindings: [tools],
      })
      assertFailure(result, 'exception')
      assert.deepEqual(
        result.calls.map(call => [call.namespace, call.member, call.outcome]),
        [
          ['tools', 'save', 'ok'],
          ['tools', 'fail', 'error'],
          ['tools', 'hang', 'in-flight'],
        ],
      )
      for (const call of result.calls) {
        assert.equal(
          'args' in call || 'result' in call || 'error' in call,
          false,
          'values are not stored unless asked for',
        )
      }
    })

    void it('stores arguments, results and errors when asked, within the byte budget', async () => {
      const tools: CodeBindingNamespace = {
        global: 'tools',
        functions: {
          echo: async args => args as CodeJsonValue,
          fail: async () => {
            throw new Error('nope')
          },
        },
      }
      const result = await runProgram(runtime(), {
        program: programLines(
          "await tools.echo({ a: 'small' })",
          'try { await tools.fail({ b: 1 }) } catch {}',
          "await tools.echo({ big: 'x'.repeat(500) })",
        ),
        bindings: [tools],
        recordCallValues: { maxBytes: 100 },
      })
      const [small, failed, big] = result.calls
      assert.deepEqual(small?.args, { a: 'small' })
      assert.deepEqual(small?.result, { a: 'small' })
      assert.deepEqual(failed?.args, { b: 1 })
      assert.equal(failed?.error, 'nope')
      assert.equal(big?.valuesOmitted, true)
      assert.equal('args' in (big ?? {}), false)
    })
  })
}

/** Registers the checks of live logs, usage and the call record. */
export function describeObservability(target: ConformanceTarget): void {
  void describe(`${target.name}: live logs, usage and the call record [#observability]`, () => {
    describeLiveLogs(target)
    describeUsage(target)
    describeCallRecord(target)
  })
}
