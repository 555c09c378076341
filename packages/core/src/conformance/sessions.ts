/**
 * CONTRACT section #sessions: a persistent session keeps its programs' top-level declarations
 * from one run to the next (REPL rules), fails runs without losing earlier state when it can,
 * ends (lost, expired, disposed) with a clear failure when it cannot, runs one program at a
 * time, and shares nothing with other sessions or one-shot runs.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeSession, CodeSessionOptions } from '../code-session.js'
import { CodeRuntimeError } from '../errors.js'
import type { CodeBindingNamespace, CodeRunRequest, CodeRunResult } from '../types.js'
import { assertFailure, assertMentionsNumber, assertRunRejects, assertValue } from './assertions.js'
import { createDeferred, recordCalls } from './host-functions.js'
import { describeForAssertion, programLines, runProgram, useRuntime, withRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** Opens a session for one check and disposes it when the check ends, however it ends. */
async function withSession<T>(
  runtime: CodeRuntime,
  options: CodeSessionOptions,
  check: (session: CodeSession) => Promise<T>,
): Promise<T> {
  const session = await runtime.openSession(options)
  try {
    return await check(session)
  } finally {
    await session.dispose()
  }
}

function run(
  session: CodeSession,
  program: string,
  bindings: readonly CodeBindingNamespace[] = [],
  extra: Partial<CodeRunRequest> = {},
): Promise<CodeRunResult> {
  return runProgram(session, { program, bindings, ...extra })
}

async function assertOpenRejects(
  runtime: CodeRuntime,
  options: unknown,
  code: CodeRuntimeError['code'],
): Promise<CodeRuntimeError> {
  let rejection: unknown
  try {
    const session = await runtime.openSession(options as CodeSessionOptions)
    await session.dispose()
  } catch (error) {
    rejection = error
  }
  assert.ok(
    CodeRuntimeError.is(rejection),
    `openSession() should reject with ${code}, got ${describeForAssertion(rejection)}`,
  )
  assert.equal(rejection.code, code, rejection.message)
  return rejection
}

/**
 * CONTRACT section #failure-facts: a run that ended its session, or found it ended, says which
 * session and how in `error.session`; its message speaks of the session without its id.
 */
function assertSessionEnded(result: CodeRunResult, session: CodeSession, ended: 'lost' | 'expired'): string {
  const message = result.error?.message ?? ''
  assert.deepEqual(
    result.error?.session,
    { id: session.id, ended },
    `the failure names the ${ended} session: ${message}`,
  )
  assert.match(message, /session/i, `the message speaks of the session: ${JSON.stringify(message)}`)
  assert.ok(!message.includes(session.id), `the message leaves the id to error.session: ${JSON.stringify(message)}`)
  return message
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

function describeKeptState(runtime: () => CodeRuntime): void {
  void describe('what a session keeps [#session-state]', () => {
    void it('keeps top-level const, let, var, function and class declarations, destructuring too', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(
          await run(
            session,
            programLines(
              'const a = 1',
              'let b = 2',
              'var c = 3',
              'function sum() { return a + b + c }',
              'class Box { v: number; constructor(v: number) { this.v = v } }',
              'const { d, e: [g] } = { d: 4, e: [5] }',
              'return 0',
            ),
          ),
          0,
        )
        assertValue(await run(session, 'return [a, b, c, sum(), new Box(7).v, d, g]'), [1, 2, 3, 6, 7, 4, 5])
      })
    })

    void it('lets a later run declare a kept name again, const included', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'const x = 1\nreturn x'), 1)
        assertValue(await run(session, 'const x = 2\nreturn x'), 2)
        assertValue(await run(session, 'let x = "three"\nreturn x'), 'three')
        assertValue(await run(session, 'return x'), 'three')
      })
    })

    void it('gives closures the kept binding, not a copy', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(
          await run(session, 'let n = 1\nfunction read() { return n }\nconst bump = () => ++n\nreturn read()'),
          1,
        )
        assertValue(await run(session, 'n = 10\nbump()\nreturn [read(), n]'), [11, 11])
      })
    })

    void it('returns the last top-level expression as the run value when there is no return', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'const y = 3\ny * 2'), 6)
        assertValue(await run(session, '({ y, double: y * 2 })'), { y: 3, double: 6 })
        assertValue(await run(session, 'if (y === 3) return "returned"\n"completion"'), 'returned')
        const nothing = await run(session, 'const z = 1')
        assert.ok(
          !('value' in nothing) && nothing.error === undefined,
          `a program ending in a declaration has no value: ${describeForAssertion(nothing)}`,
        )
      })
    })

    void it('keeps globals the program assigns, and a kept name hides a runtime global', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'globalThis.counter = 1\nconst URL = "mine"\nreturn 0'), 0)
        assertValue(await run(session, 'return [counter, URL]'), [1, 'mine'])
      })
    })

    void it('gives each run exactly its own bindings', async () => {
      const alpha = recordCalls()
      const beta = recordCalls()
      await withSession(runtime(), {}, async session => {
        const first = await run(session, 'const kept = alpha\nreturn await alpha.echo(1)', [
          { global: 'alpha', functions: { echo: alpha.fn } },
        ])
        assertValue(first, 1)
        const second = await run(
          session,
          programLines(
            'let outcome',
            'try { await kept.echo(2); outcome = "called" } catch { outcome = "refused" }',
            'return [typeof alpha, typeof beta, outcome, await beta.echo(3)]',
          ),
          [{ global: 'beta', functions: { echo: beta.fn } }],
        )
        assertValue(second, ['undefined', 'object', 'refused', 3])
        assert.equal(alpha.calls.length, 1, 'a namespace of an earlier run never reaches its host function again')
      })
    })

    void it("refuses a top-level declaration of one of the run's namespace names, naming the line", async () => {
      const echo = recordCalls()
      await withSession(runtime(), {}, async session => {
        const message = assertFailure(
          await run(session, 'const ok = 1\nconst tools = 2', [{ global: 'tools', functions: { echo: echo.fn } }]),
          'exception',
        )
        assert.match(message, /\b2\b/, `the refusal names line 2: ${message}`)
        assert.match(message, /tools/)
        assert.equal(session.endReason, undefined, 'the session is still open')
        assertValue(await run(session, 'return 1'), 1)
      })
    })

    void it("changes nothing when it refuses a run: a class named like the run's error class is not kept", async () => {
      const echo = recordCalls()
      const bindings = [
        {
          global: 'tools',
          functions: { echo: echo.fn },
          errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
        },
      ]
      await withSession(runtime(), {}, async session => {
        const message = assertFailure(await run(session, 'class ToolCallError extends Error {}', bindings), 'exception')
        assert.match(message, /ToolCallError/, message)
        assertValue(await run(session, 'return await tools.echo(1)', bindings), 1)
        assertValue(await run(session, 'const kept = 2\nreturn kept', bindings), 2)
        assertValue(await run(session, 'return [kept, typeof ToolCallError]'), [2, 'undefined'])
      })
    })

    void it('keeps at most maxKeptNames names: a run that would pass it is refused whole, names the limit, and keeps nothing', async () => {
      await withSession(runtime(), { maxKeptNames: 3 }, async session => {
        assertValue(await run(session, 'const a = 1\nfunction f() { return a }\nreturn f()'), 1)
        const message = assertFailure(await run(session, 'a = 5\nlet b = 2\nclass C {}\nreturn 0'), 'exception')
        assert.match(message, /maxKeptNames/, message)
        assertMentionsNumber(message, 3, 'the refusal')
        assert.match(message, /new session/, `the refusal says how to start over: ${message}`)
        assertValue(await run(session, 'return [a, typeof b, typeof C]'), [1, 'undefined', 'undefined'])
        // Declaring kept names again costs nothing; the last free name can still be kept.
        assertValue(await run(session, 'const a = 2\nfunction f() { return a * 10 }\nvar last = f()\nreturn last'), 20)
        assertFailure(await run(session, 'const one = 1'), 'exception')
        assertValue(await run(session, '{ const notKept = 7; last += notKept }\nreturn last'), 27)
        assert.equal(session.endReason, undefined, 'the session is still open')
      })
    })
  })
}

function describeFailedRuns(runtime: () => CodeRuntime): void {
  void describe('failed runs [#session-failures]', () => {
    void it('keeps the state before an exception and what the run assigned before it threw', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'let s = 1\nlet t = 1\nreturn s'), 1)
        assertFailure(await run(session, 's = 2\nthrow new Error("boom")\nt = 2'), 'exception')
        assertValue(await run(session, 'return [s, t]'), [2, 1])
      })
    })

    void it('keeps the state when a run is aborted while it awaits a binding call', async () => {
      const gate = createDeferred<null>()
      const controller = new AbortController()
      const wait = recordCalls(() => {
        setTimeout(() => controller.abort(new Error('stopped by the caller')), 20)
        return gate.promise
      })
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'let k = 1\nreturn k'), 1)
        const aborted = await run(
          session,
          'k = 2\nawait tools.wait()\nk = 3',
          [{ global: 'tools', functions: { wait: wait.fn } }],
          { signal: controller.signal },
        )
        assertFailure(aborted, 'abort')
        gate.resolve(null)
        assert.equal(session.endReason, undefined, 'an abort that found the program waiting leaves the session open')
        assertValue(await run(session, 'return k'), 2)
      })
    })

    void it('keeps the state after a wall-clock timeout that found the program waiting, and after invalid output', async () => {
      await withSession(runtime(), { maxWallMs: 300 }, async session => {
        assertValue(await run(session, 'let w = 1\nreturn w'), 1)
        assertFailure(await run(session, 'w = 2\nawait new Promise(() => {})'), 'timeout')
        assertFailure(await run(session, 'w = 3\nreturn () => 1'), 'invalid-output')
        assertValue(await run(session, 'return w'), 3)
      })
    })

    void it('ends the session when a compute timeout stops a loop; the next run names the lost session', async () => {
      await withSession(runtime(), { computeMs: 300 }, async session => {
        assertValue(await run(session, 'let kept = 1\nreturn kept'), 1)
        const stopped = await run(session, 'while (true) {}')
        assertFailure(stopped, 'timeout')
        assertSessionEnded(stopped, session, 'lost')
        assert.equal(session.endReason, 'lost')
        const after = await run(session, 'return kept')
        assertFailure(after, 'worker-exit')
        assertSessionEnded(after, session, 'lost')
      })
    })

    void it('never lets a timer, interval or late binding result of a settled run reach the next run', async () => {
      const gate = createDeferred<string>()
      const slow = recordCalls(() => gate.promise)
      await withSession(runtime(), {}, async session => {
        const first = await run(
          session,
          programLines(
            "setTimeout(() => console.log('timer of the first run'), 0)",
            "setInterval(() => console.log('interval of the first run'), 1)",
            "tools.slow().then((text) => console.log('late ' + text))",
            'return 1',
          ),
          [{ global: 'tools', functions: { slow: slow.fn } }],
        )
        assertValue(first, 1)
        const second = run(
          session,
          "await new Promise((resolve) => setTimeout(resolve, 100))\nconsole.log('second')\nreturn 2",
          [{ global: 'tools', functions: { slow: slow.fn } }],
        )
        gate.resolve('result of the first run')
        const result = await second
        assertValue(result, 2)
        assert.deepEqual(result.logs, ['second'])
      })
    })

    void it('ends the session when its heap budget overflows, and the runtime serves other runs', async () => {
      await withSession(runtime(), { maxHeapBytes: 32 * 1024 * 1024 }, async session => {
        const overflow = await run(session, 'globalThis.hold = []\nwhile (true) hold.push(new Array(100000).fill(0.5))')
        const message = assertFailure(overflow, 'worker-exit')
        assert.match(message, /maxHeapBytes/, `the message names the budget: ${message}`)
        assertSessionEnded(overflow, session, 'lost')
        assert.equal(session.endReason, 'lost')
        const after = await run(session, 'return 1')
        assertFailure(after, 'worker-exit')
        assertSessionEnded(after, session, 'lost')
      })
      assertValue(await runProgram(runtime(), { program: 'return 6 * 7', bindings: [] }), 42)
    })
  })
}

function describeLifecycle(target: ConformanceTarget, runtime: () => CodeRuntime): void {
  void describe('session lifecycle [#session-lifecycle]', () => {
    void it('runs one program at a time, in the order the runs were called', async () => {
      await withSession(runtime(), {}, async session => {
        assertValue(await run(session, 'let order = []\nreturn 0'), 0)
        const results = await Promise.all([
          run(
            session,
            "await new Promise((resolve) => setTimeout(resolve, 100))\norder.push('first')\nreturn order.length",
          ),
          run(session, "order.push('second')\nreturn order.length"),
        ])
        assertValue(results[0] as CodeRunResult, 1)
        assertValue(results[1] as CodeRunResult, 2)
      })
    })

    void it('expires after idleMs without a run; later runs name the expired session', async () => {
      await withSession(runtime(), { idleMs: 100 }, async session => {
        assertValue(await run(session, 'let gone = 1\nreturn gone'), 1)
        await sleep(400)
        assert.equal(session.endReason, 'expired')
        const after = await run(session, 'return gone')
        assertFailure(after, 'worker-exit')
        assert.match(assertSessionEnded(after, session, 'expired'), /expired/)
      })
    })

    void it('settles a run in flight as abort on dispose, and refuses runs afterwards', async () => {
      const session = await runtime().openSession()
      const pending = run(session, 'await new Promise(() => {})')
      const queued = session.run({ program: 'return 1', bindings: [] })
      const queuedOutcome = queued.then(
        () => 'resolved',
        (error: unknown) => (CodeRuntimeError.is(error) ? error.code : 'other'),
      )
      await sleep(50)
      await session.dispose()
      assertFailure(await pending, 'abort')
      assert.equal(await queuedOutcome, 'CODE_RUNTIME_SESSION_CLOSED')
      assert.equal(session.endReason, 'disposed')
      await assertRunRejects(session, { program: 'return 1', bindings: [] }, 'CODE_RUNTIME_SESSION_CLOSED')
      await session.dispose()
    })

    void it('refuses invalid options with CODE_RUNTIME_INVALID_REQUEST naming the field', async () => {
      for (const [options, field] of [
        [{ idleMs: -1 }, 'idleMs'],
        [{ maxHeapBytes: 1 }, 'maxHeapBytes'],
        [{ computeMs: 0 }, 'computeMs'],
        [{ maxKeptNames: 0 }, 'maxKeptNames'],
        [{ maxKeptNames: 2.5 }, 'maxKeptNames'],
        [{ maxKeptNames: '10' }, 'maxKeptNames'],
        [{ idleMz: 1 }, 'idleMz'],
      ] as const) {
        const error = await assertOpenRejects(runtime(), options, 'CODE_RUNTIME_INVALID_REQUEST')
        assert.ok(error.message.includes(field), `the refusal names ${field}: ${error.message}`)
      }
    })

    void it('caps open sessions at maxSessions and frees a slot when one is disposed', async () => {
      await withRuntime(target, { maxSessions: 2 }, async ({ runtime: limited }) => {
        const first = await limited.openSession()
        const second = await limited.openSession()
        await assertOpenRejects(limited, undefined, 'CODE_RUNTIME_SESSION_LIMIT')
        await first.dispose()
        const third = await limited.openSession()
        assertValue(await run(third, 'return 3'), 3)
        await Promise.all([second.dispose(), third.dispose()])
      })
    })

    void it('disposes every session when the runtime is disposed', async () => {
      let session: CodeSession | undefined
      let pending: Promise<CodeRunResult> | undefined
      await withRuntime(target, {}, async ({ runtime: owned, dispose }) => {
        session = await owned.openSession()
        pending = run(session, 'await new Promise(() => {})')
        await sleep(50)
        await dispose()
      })
      assert.ok(session !== undefined && pending !== undefined)
      assertFailure(await pending, 'abort')
      assert.equal(session.endReason, 'disposed')
      await assertRunRejects(session, { program: 'return 1', bindings: [] }, 'CODE_RUNTIME_SESSION_CLOSED')
    })
  })
}

function describeIsolation(runtime: () => CodeRuntime): void {
  void describe('sessions are isolated [#session-isolation]', () => {
    void it('keeps two sessions and one-shot runs apart', async () => {
      await withSession(runtime(), {}, async one => {
        await withSession(runtime(), {}, async two => {
          assertValue(
            await run(one, 'const mine = "one"\nglobalThis.marker = "one"\nArray.prototype.poisoned = "one"\nreturn 1'),
            1,
          )
          assertValue(await run(two, 'return [typeof mine, typeof marker, typeof [].poisoned]'), [
            'undefined',
            'undefined',
            'undefined',
          ])
          assertValue(
            await runProgram(runtime(), {
              program: 'return [typeof mine, typeof marker, typeof [].poisoned]',
              bindings: [],
            }),
            ['undefined', 'undefined', 'undefined'],
          )
          assertValue(await run(one, 'return [mine, marker, [].poisoned]'), ['one', 'one', 'one'])
        })
      })
    })
  })
}

/** Registers the sessions part of the suite. */
export function describeSessions(target: ConformanceTarget): void {
  void describe(`${target.name}: sessions [#sessions]`, () => {
    const runtime = useRuntime(target, { computeMs: 10_000 })
    describeKeptState(runtime)
    describeFailedRuns(runtime)
    describeLifecycle(target, runtime)
    describeIsolation(runtime)
  })
}
