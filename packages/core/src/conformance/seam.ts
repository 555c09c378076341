/**
 * CONTRACT section #seam: descriptors, the name rules, the misuse rejections, and the
 * already-aborted signal. Everything here except the last block needs no real program run, so a
 * stub backend passes it too.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import { CodeRuntimeError } from '../errors.js'
import type { CodeBindingNamespace, CodeRunRequest } from '../types.js'
import { assertFailure, assertRunRejects, assertValue } from './assertions.js'
import { recordCalls } from './host-functions.js'
import { runProgram, useRuntime, withRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** Globals every backend must refuse, with why (CONTRACT section #global-names). */
const INVALID_GLOBALS: readonly (readonly [name: string, why: string])[] = [
  ['not valid!', 'not an identifier'],
  ['', 'empty'],
  ['1tools', 'starts with a digit'],
  ['tools-api', 'has a hyphen'],
  ['tööls', 'not ASCII'],
  ['$tools', 'has a $ (refused for portability)'],
  ['a$b', 'has a $ (refused for portability)'],
  ['await', 'an ECMAScript reserved word'],
  ['class', 'an ECMAScript reserved word'],
  ['let', 'a strict-mode reserved word'],
  ['yield', 'a strict-mode reserved word'],
  ['arguments', 'refused like a reserved word'],
  ['eval', 'refused like a reserved word'],
  ['lambda', 'a Python keyword'],
  ['None', 'a Python keyword'],
  ['def', 'a Python keyword'],
  ['match', 'a Python soft keyword'],
  ['type', 'a Python soft keyword'],
  ['_', 'a Python soft keyword'],
  ['console', 'reserved for the runtime'],
  ['__dsh_main__', 'reserved for the runtime'],
  ['__builtins__', 'reserved for the runtime'],
  ['__name__', 'reserved for the runtime'],
  ['__debug__', 'reserved for the runtime'],
]

/** Error-class names every backend must refuse (same rules as globals). */
const INVALID_ERROR_CLASS_NAMES: readonly string[] = ['Tool Error', '$ToolError', 'class', 'lambda', 'console']

/** `memberNameProperty` values every backend must refuse. */
const INVALID_MEMBER_NAME_PROPERTIES: readonly string[] = [
  '',
  'name',
  'message',
  'stack',
  'args',
  'with_traceback',
  'add_note',
  '__x__',
  '__toolName__',
]

function namespace(global: string, errorClass?: CodeBindingNamespace['errorClass']): CodeBindingNamespace {
  const functions = { echo: recordCalls().fn }
  return errorClass === undefined ? { global, functions } : { global, functions, errorClass }
}

function describeDescriptors(target: ConformanceTarget, runtime: () => CodeRuntime): void {
  void describe('descriptors [#descriptors]', () => {
    void it("reports language 'typescript'", () => {
      assert.equal(runtime().language, 'typescript')
    })

    void it(`reports isolation '${target.isolation}'`, () => {
      assert.equal(runtime().isolation, target.isolation)
    })
  })
}

function describeNameRules(target: ConformanceTarget, runtime: () => CodeRuntime): void {
  void describe('name rules [#names]', () => {
    async function assertRefused(bindings: readonly CodeBindingNamespace[], offending: string): Promise<void> {
      const error = await assertRunRejects(
        runtime(),
        { program: 'return 1', bindings },
        'CODE_RUNTIME_INVALID_BINDINGS',
      )
      assert.ok(
        error.message.includes(offending),
        `the message names the offending value ${JSON.stringify(offending)}: ${error.message}`,
      )
    }

    for (const [name, why] of INVALID_GLOBALS) {
      void it(`rejects the global ${JSON.stringify(name)} (${why}) as CODE_RUNTIME_INVALID_BINDINGS`, async () => {
        await assertRefused([namespace(name)], name)
      })
    }

    void it('rejects a duplicate global', async () => {
      await assertRefused([namespace('tools'), namespace('tools')], 'tools')
    })

    for (const name of INVALID_ERROR_CLASS_NAMES) {
      void it(`rejects the error-class name ${JSON.stringify(name)}`, async () => {
        await assertRefused([namespace('tools', { name, memberNameProperty: 'toolName' })], name)
      })
    }

    void it("rejects an error-class name equal to its own namespace's global", async () => {
      await assertRefused([namespace('tools', { name: 'tools', memberNameProperty: 'toolName' })], 'tools')
    })

    void it("rejects an error-class name equal to a later namespace's global", async () => {
      await assertRefused(
        [namespace('tools', { name: 'files', memberNameProperty: 'toolName' }), namespace('files')],
        'files',
      )
    })

    void it("rejects an error-class name equal to another namespace's error-class name", async () => {
      await assertRefused(
        [
          namespace('tools', { name: 'ToolCallError', memberNameProperty: 'toolName' }),
          namespace('files', { name: 'ToolCallError', memberNameProperty: 'fileName' }),
        ],
        'ToolCallError',
      )
    })

    for (const property of INVALID_MEMBER_NAME_PROPERTIES) {
      void it(`rejects the memberNameProperty ${JSON.stringify(property)}`, async () => {
        await assertRefused([namespace('tools', { name: 'ToolCallError', memberNameProperty: property })], property)
      })
    }

    // Not misuse of the seam (the reference accepts it): only a call to that member rejects,
    // which the bindings section checks by running a program.
    void it('does not reject run() for a member that is not a function [#resolve-never-reject]', async () => {
      const bindings = [
        { global: 'tools', functions: { search: 'not a function' } },
      ] as unknown as CodeBindingNamespace[]
      await runtime().run({ program: 'return 1', bindings })
    })

    void it('rejects bindings that are not an array [#request]', async () => {
      const request = { program: 'return 1', bindings: namespace('tools') } as unknown as CodeRunRequest
      await assertRunRejects(runtime(), request, 'CODE_RUNTIME_INVALID_BINDINGS')
    })
  })
}

function describeMisuse(target: ConformanceTarget, runtime: () => CodeRuntime): void {
  void describe('misuse [#request] [#resolve-never-reject]', () => {
    void it('rejects a program that is not a string as CODE_RUNTIME_INVALID_REQUEST', async () => {
      const request = { program: 42, bindings: [] } as unknown as CodeRunRequest
      await assertRunRejects(runtime(), request, 'CODE_RUNTIME_INVALID_REQUEST')
    })

    void it('rejects a signal that is not an AbortSignal as CODE_RUNTIME_INVALID_REQUEST', async () => {
      const request = { program: 'return 1', bindings: [], signal: { aborted: true } } as unknown as CodeRunRequest
      await assertRunRejects(runtime(), request, 'CODE_RUNTIME_INVALID_REQUEST')
    })

    void it('rejects a reuseKey that is empty or not a string as CODE_RUNTIME_INVALID_REQUEST [#reuse-key]', async () => {
      for (const reuseKey of ['', 7]) {
        const request = { program: 'return 1', bindings: [], reuseKey } as unknown as CodeRunRequest
        await assertRunRejects(runtime(), request, 'CODE_RUNTIME_INVALID_REQUEST')
      }
    })

    void it('rejects run() after disposal as CODE_RUNTIME_DISPOSED', async () => {
      await withRuntime(target, {}, async started => {
        await started.dispose()
        await assertRunRejects(started.runtime, { program: 'return 1', bindings: [] }, 'CODE_RUNTIME_DISPOSED')
      })
    })
  })
}

function describeRunningSeam(target: ConformanceTarget, runtime: () => CodeRuntime): void {
  void describe('requests with a reuse key [#reuse-key]', () => {
    void it('runs a request with a reuseKey, whether or not the backend reuses substrates', async () => {
      assertValue(await runProgram(runtime(), { program: 'return 1', bindings: [], reuseKey: 'tenant-a' }), 1)
    })
  })

  void describe('requests that run [#abort]', () => {
    void it('resolves abort with String(reason) for a signal aborted before the run', async () => {
      const started = recordCalls()
      const result = await runProgram(runtime(), {
        program: 'await tools.started(null)\nreturn 1',
        bindings: [{ global: 'tools', functions: { started: started.fn } }],
        signal: AbortSignal.abort('stopped before the start'),
      })
      assert.equal(assertFailure(result, 'abort'), 'stopped before the start')
      assert.equal(started.calls.length, 0, 'the program never ran, so it never called the host')
    })

    void it('resolves abort with String(reason) for a signal aborted before the run with the default reason', async () => {
      const signal = AbortSignal.abort()
      const result = await runProgram(runtime(), { program: 'return 1', bindings: [], signal })
      assert.equal(assertFailure(result, 'abort'), String(signal.reason))
    })

    void it('accepts globals that only resemble reserved words [#global-names]', async () => {
      const globals = ['_tools', 'Tools2', 'awaitable', 'types', 'None_', 'process']
      const result = await runProgram(runtime(), {
        program: `return [${globals.map(global => `typeof ${global}.echo`).join(', ')}]`,
        bindings: globals.map(global => namespace(global)),
      })
      assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
      assert.deepEqual(
        result.value,
        globals.map(() => 'function'),
      )
    })
  })
}

/** Budget values every backend must refuse when it starts: CONTRACT section #budget-fields wants finite numbers > 0. */
const INVALID_BUDGETS: readonly number[] = [
  0,
  -0,
  -1,
  -0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
]

function describeBudgetConfig(target: ConformanceTarget): void {
  void describe('budget config [#budget-fields] [#invalid-config]', () => {
    void it('loads fractional budgets, as the reference does, and runs under them', async () => {
      await withRuntime(target, { computeMs: 5000.5, maxWallMs: 60000.5 }, async ({ runtime }) => {
        const result = await runProgram(runtime, { program: 'return 1', bindings: [] })
        assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
        assert.equal(result.value, 1)
      })
    })

    for (const field of ['computeMs', 'maxWallMs'] as const) {
      void it(`refuses a non-finite, zero or negative ${field} when it starts, naming the field`, async () => {
        for (const value of INVALID_BUDGETS) {
          let caught: unknown
          try {
            const started = await target.start({ [field]: value })
            await started.dispose()
          } catch (error) {
            caught = error
          }
          assert.ok(
            CodeRuntimeError.is(caught),
            `${field}: ${String(value)} did not fail the start with a CodeRuntimeError`,
          )
          assert.equal(caught.code, 'CODE_RUNTIME_INVALID_CONFIG')
          assert.ok(caught.message.includes(field), `the message names ${field}: ${caught.message}`)
        }
      })
    }
  })
}

/** Registers the checks of CONTRACT section #seam about the seam itself. */
export function describeSeam(target: ConformanceTarget, runsPrograms: boolean): void {
  void describe(`${target.name}: the seam [#seam]`, () => {
    const runtime = useRuntime(target)
    describeDescriptors(target, runtime)
    describeNameRules(target, runtime)
    describeMisuse(target, runtime)
    if (!runsPrograms) return
    describeRunningSeam(target, runtime)
    describeBudgetConfig(target)
  })
}
