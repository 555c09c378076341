/**
 * CONTRACT section #bindings: namespaces as globals of async functions, host rejections as
 * rejections in the program, error classes, and member names as ordinary own keys.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeBindingFunction, CodeBindingNamespace } from '../types.js'
import { assertJsonEqual, assertValue } from './assertions.js'
import { echoTools, recordCalls } from './host-functions.js'
import { runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** What the program reports about an error it caught from a binding call. */
const DESCRIBE_CAUGHT = `{
  isError: caught instanceof Error,
  isPlainError: Object.getPrototypeOf(caught) === Error.prototype,
  name: caught.name,
  message: caught.message,
}`

function rejectingTools(thrown: unknown, errorClass?: CodeBindingNamespace['errorClass']): CodeBindingNamespace {
  const fail: CodeBindingFunction = () => Promise.reject(thrown)
  const functions = { fail }
  return errorClass === undefined ? { global: 'tools', functions } : { global: 'tools', functions, errorClass }
}

const TOOL_CALL_ERROR = { name: 'ToolCallError', memberNameProperty: 'toolName' } as const

function describeCalls(runtime: () => CodeRuntime): void {
  void describe('calls', () => {
    void it("resolves a binding call with the host function's value", async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: "return await tools.echo({ query: 'x', limits: [1, 2], exact: true, none: null })",
        bindings: [namespace],
      })
      assertValue(result, { query: 'x', limits: [1, 2], exact: true, none: null })
      assert.equal(echo.calls.length, 1)
    })

    void it("calls the host function with the program's one argument, and at most the call's place in the record", async () => {
      const { namespace, echo } = echoTools()
      await runProgram(runtime(), {
        program: "await tools.echo({ query: 'x' })\nawait tools.echo({ query: 'y' }, 'extra')",
        bindings: [namespace],
      })
      assert.equal(echo.calls.length, 2)
      assertJsonEqual(echo.calls[0]?.[0], { query: 'x' })
      assertJsonEqual(echo.calls[1]?.[0], { query: 'y' })
      // A second argument, when the runtime passes one, is the call's index in the call record, never a program value.
      for (const [index, call] of echo.calls.entries()) {
        assert.ok(call.length <= 2, 'at most two arguments')
        if (call.length === 2) assert.deepEqual(call[1], { index })
      }
    })

    void it('returns a promise from every binding call', async () => {
      const { namespace } = echoTools()
      const result = await runProgram(runtime(), {
        program: 'const pending = tools.echo(1)\nreturn [pending instanceof Promise, typeof tools.echo, await pending]',
        bindings: [namespace],
      })
      assertValue(result, [true, 'function', 1])
    })

    void it('runs binding calls concurrently', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: 'return await Promise.all([1, 2, 3, 4, 5].map((n) => tools.echo(n)))',
        bindings: [namespace],
      })
      assertValue(result, [1, 2, 3, 4, 5])
      assert.equal(echo.calls.length, 5)
    })

    void it('exposes several namespaces, each under its own global', async () => {
      const result = await runProgram(runtime(), {
        program: "return [await files.read('a'), await web.fetch('b')]",
        bindings: [
          { global: 'files', functions: { read: recordCalls(args => `file ${String(args)}`).fn } },
          { global: 'web', functions: { fetch: recordCalls(args => `page ${String(args)}`).fn } },
        ],
      })
      assertValue(result, ['file a', 'page b'])
    })
  })
}

function describeRejections(runtime: () => CodeRuntime): void {
  void describe('rejections [#binding-rejections]', () => {
    void it('rejects the call in the program when the host function rejects, catchably', async () => {
      const result = await runProgram(runtime(), {
        program: `try { await tools.fail({}) } catch (caught) { return ${DESCRIBE_CAUGHT} }\nreturn 'not rejected'`,
        bindings: [rejectingTools(new Error('host says no'))],
      })
      assertValue(result, { isError: true, isPlainError: true, name: 'Error', message: 'host says no' })
    })

    void it('rejects with an instance of the error class, carrying the failing member', async () => {
      const result = await runProgram(runtime(), {
        program: `try { await tools.fail({}) } catch (caught) {
  return {
    isClass: caught instanceof ToolCallError,
    isError: caught instanceof Error,
    classType: typeof ToolCallError,
    name: caught.name,
    hasOwnMember: Object.prototype.hasOwnProperty.call(caught, 'toolName'),
    member: caught.toolName,
    message: caught.message,
  }
}
return 'not rejected'`,
        bindings: [rejectingTools(new Error('quota exhausted'), TOOL_CALL_ERROR)],
      })
      assertValue(result, {
        isClass: true,
        isError: true,
        classType: 'function',
        name: 'ToolCallError',
        hasOwnMember: true,
        member: 'fail',
        message: 'quota exhausted',
      })
    })

    void it('uses String(thrown) as the message when the host throws a string', async () => {
      const result = await runProgram(runtime(), {
        program:
          "try { await tools.fail({}) } catch (caught) { return [caught instanceof ToolCallError, caught.message] }\nreturn 'not rejected'",
        bindings: [rejectingTools('plain text failure', TOOL_CALL_ERROR)],
      })
      assertValue(result, [true, 'plain text failure'])
    })

    void it('uses String(thrown) as the message when the host throws a number', async () => {
      const result = await runProgram(runtime(), {
        program:
          "try { await tools.fail({}) } catch (caught) { return [caught instanceof ToolCallError, caught.message] }\nreturn 'not rejected'",
        bindings: [rejectingTools(404, TOOL_CALL_ERROR)],
      })
      assertValue(result, [true, '404'])
    })

    void it('accepts any other string as memberNameProperty [#member-name-property]', async () => {
      const result = await runProgram(runtime(), {
        program:
          "try { await tools.fail({}) } catch (caught) { return caught['failing member'] }\nreturn 'not rejected'",
        bindings: [rejectingTools(new Error('no'), { name: 'ToolCallError', memberNameProperty: 'failing member' })],
      })
      assertValue(result, 'fail')
    })

    void it('rejects only a call to a member whose host value is not a function, without showing the value', async () => {
      const { namespace, echo } = echoTools()
      const functions = { ...namespace.functions, settings: 'sk-not-for-the-model' } as unknown as Record<
        string,
        CodeBindingFunction
      >
      const result = await runProgram(runtime(), {
        program: `const kind = typeof tools.settings
let caught
try { await tools.settings({}) } catch (error) { caught = error }
return { kind, isClass: caught instanceof ToolCallError, member: caught.toolName, message: caught.message, echoed: await tools.echo(7) }`,
        bindings: [{ global: 'tools', functions, errorClass: TOOL_CALL_ERROR }],
      })
      assertValue(result, {
        kind: 'function',
        isClass: true,
        member: 'settings',
        message: 'tools.settings cannot be called: the host bound a string to it, not a function. Use another member.',
        echoed: 7,
      })
      assert.equal(echo.calls.length, 1, 'the other members still work')
    })

    void it('keeps rejections of a namespace without errorClass plain when another namespace has one', async () => {
      const result = await runProgram(runtime(), {
        program: `try { await files.fail({}) } catch (caught) { return [caught instanceof ToolCallError, ${DESCRIBE_CAUGHT}] }
return 'not rejected'`,
        bindings: [
          { global: 'tools', functions: { echo: recordCalls().fn }, errorClass: TOOL_CALL_ERROR },
          { global: 'files', functions: { fail: () => Promise.reject(new Error('disk full')) } },
        ],
      })
      assertValue(result, [false, { isError: true, isPlainError: true, name: 'Error', message: 'disk full' }])
    })
  })
}

function describeMemberNames(runtime: () => CodeRuntime): void {
  void describe('member names [#namespace-objects]', () => {
    void it('treats __proto__, constructor and toString as ordinary callable members', async () => {
      const functions: Record<string, CodeBindingFunction> = {}
      for (const member of ['__proto__', 'constructor', 'toString']) {
        Object.defineProperty(functions, member, {
          value: recordCalls(() => `called ${member}`).fn,
          enumerable: true,
          writable: true,
          configurable: true,
        })
      }
      const result = await runProgram(runtime(), {
        program:
          "return [await tools['__proto__'](1), await tools.constructor(2), await tools.toString(3), Object.getPrototypeOf(tools) === null]",
        bindings: [{ global: 'tools', functions }],
      })
      assertValue(result, ['called __proto__', 'called constructor', 'called toString', true])
    })

    void it('has no hasOwnProperty (or other Object.prototype member) on a namespace unless bound', async () => {
      const { namespace } = echoTools()
      const result = await runProgram(runtime(), {
        program:
          "return [typeof tools.hasOwnProperty, typeof tools.valueOf, typeof tools.toString, 'constructor' in tools, Object.getPrototypeOf(tools) === null]",
        bindings: [namespace],
      })
      assertValue(result, ['undefined', 'undefined', 'undefined', false, true])
    })

    void it('calls a bound hasOwnProperty member', async () => {
      const result = await runProgram(runtime(), {
        program: "return await tools.hasOwnProperty('x')",
        bindings: [{ global: 'tools', functions: { hasOwnProperty: recordCalls(() => 'bound').fn } }],
      })
      assertValue(result, 'bound')
    })

    void it('accepts members whose names are not identifiers [#member-names]', async () => {
      const result = await runProgram(runtime(), {
        program: "return [await tools['read file'](1), await tools['ünïcode-name'](2), await tools[''](3)]",
        bindings: [
          {
            global: 'tools',
            functions: {
              'read file': recordCalls(() => 'spaces').fn,
              'ünïcode-name': recordCalls(() => 'unicode').fn,
              '': recordCalls(() => 'empty').fn,
            },
          },
        ],
      })
      assertValue(result, ['spaces', 'unicode', 'empty'])
    })
  })
}

/** Registers the checks of CONTRACT section #bindings. */
export function describeProgramBindings(target: ConformanceTarget): void {
  void describe(`${target.name}: bindings [#bindings]`, () => {
    const runtime = useRuntime(target)
    describeCalls(runtime)
    describeRejections(runtime)
    describeMemberNames(runtime)
  })
}
