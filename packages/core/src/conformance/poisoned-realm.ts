/**
 * CONTRACT section #poisoned-realm: the program cannot change the validator by mutating globals or
 * prototypes. The program replaces built-ins and traps prototype keys before it calls a binding
 * and before it returns; the outcome must be exactly what it would be otherwise.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import { assertFailure, assertJsonEqual, assertValue } from './assertions.js'
import { echoTools } from './host-functions.js'
import { runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

// Replaces what a validator, a copier or a message builder in the program's realm might use.
const POISON_BUILTINS = `
Object.defineProperty(Object.prototype, 'injected', { __proto__: null, value: 'poisoned', enumerable: true, configurable: true, writable: true })
Object.defineProperty(Array.prototype, 'injected', { __proto__: null, value: 'poisoned', enumerable: true, configurable: true, writable: true })
Object.prototype.toJSON = function () { return 'poisoned' }
Array.prototype.toJSON = function () { return 'poisoned' }
Array.prototype[Symbol.iterator] = function* () { yield 'poisoned' }
Array.prototype.push = function () { throw new Error('push is poisoned') }
Array.prototype.map = function () { return ['poisoned'] }
Array.prototype.forEach = function () {}
Array.prototype.slice = function () { return ['poisoned'] }
JSON.stringify = () => '"poisoned"'
JSON.parse = () => 'poisoned'
Object.keys = () => ['poisoned']
Object.entries = () => [['poisoned', 1]]
Object.assign = () => ({ poisoned: true })
Object.getOwnPropertyNames = () => []
Object.getPrototypeOf = () => null
Array.isArray = () => false
Reflect.ownKeys = () => []
Reflect.getOwnPropertyDescriptor = () => undefined
Function.prototype.call = function () { throw new Error('call is poisoned') }
Function.prototype.apply = function () { throw new Error('apply is poisoned') }
Object.defineProperty = () => { throw new Error('defineProperty is poisoned') }
`

// Accessors on the prototypes: writing a missing key by assignment, or reading one, runs them.
// The keys of property descriptors (get, set, value, writable) are among them, so a descriptor
// written as an ordinary object literal in the program's realm inherits them and breaks.
const POISON_ACCESSORS = `
const poisonKey = (target, key) => Object.defineProperty(target, key, {
  __proto__: null,
  get() { return 'poisoned' },
  set() { throw new Error('the setter of ' + key + ' is poisoned') },
  configurable: true,
})
for (const key of ['a', 'b', 'value', 'kind', 'type', 'id', 'args', 'result', 'error', 'message', 'data', 'method', 'payload', 'logs', 'inner', 'get', 'set', 'writable']) poisonKey(Object.prototype, key)
for (const key of ['0', '1', '2']) poisonKey(Array.prototype, key)
`

function describePoisoning(runtime: () => CodeRuntime): void {
  void describe('a program that poisons its built-ins', () => {
    const sent = { a: [1, { b: 'c' }], value: 'own', n: null }

    void it('still passes the argument and the completion value unchanged after replacing built-ins', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: `const sent = ${JSON.stringify(sent)}\n${POISON_BUILTINS}\nconst echoed = await tools.echo(sent)\nreturn { echoed, sent, list: ['x', 'y'] }`,
        bindings: [namespace],
      })
      assertValue(result, { echoed: sent, sent, list: ['x', 'y'] })
      assertJsonEqual(echo.calls[0]?.[0], sent)
    })

    void it('still passes the argument and the completion value unchanged after trapping prototype keys', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: `const sent = ${JSON.stringify(sent)}\n${POISON_ACCESSORS}\nconst echoed = await tools.echo(sent)\nreturn { echoed, sent, list: ['x', 'y', 'z'] }`,
        bindings: [namespace],
      })
      assertValue(result, { echoed: sent, sent, list: ['x', 'y', 'z'] })
      assertJsonEqual(echo.calls[0]?.[0], sent)
    })

    void it('still refuses a non-JSON argument after replacing built-ins', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: `${POISON_BUILTINS}\nlet rejected = false\ntry { await tools.echo(new Map()) } catch { rejected = true }\nreturn rejected`,
        bindings: [namespace],
      })
      assertValue(result, true)
      assert.equal(echo.calls.length, 0)
    })

    void it('still refuses a non-JSON completion value after replacing built-ins', async () => {
      assertFailure(
        await runProgram(runtime(), { program: `${POISON_BUILTINS}\nreturn [new Date(0)]`, bindings: [] }),
        'invalid-output',
      )
    })

    void it('still rejects a failed call with its error class and call site after poisoning built-ins and prototype keys', async () => {
      const tools = {
        global: 'tools',
        functions: { fail: () => Promise.reject(new Error('refused by the host')) },
        errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
      }
      // The call is on the last line: the poisons above it take whatever lines they take.
      const program = `${POISON_ACCESSORS}\n${POISON_BUILTINS}\ntry { await tools.fail({}) } catch (error) { return [error instanceof ToolCallError, error.stack] }`
      const result = await runProgram(runtime(), { program, bindings: [tools] })
      const lastLine = program.split('\n').length
      assert.equal(result.error, undefined, `the program failed: ${result.error?.message ?? ''}`)
      assert.ok(Array.isArray(result.value) && result.value[0] === true, 'the error is an instance of its class')
      assert.match(
        String(result.value[1]),
        new RegExp(`^ToolCallError: refused by the host\\n    at program\\.ts:${lastLine}:\\d+$`),
      )
    })

    void it('still reports a thrown error after poisoning built-ins and prototype keys', async () => {
      const result = await runProgram(runtime(), {
        program: `${POISON_ACCESSORS}\n${POISON_BUILTINS}\nthrow new Error('boom after poisoning')`,
        bindings: [],
      })
      assert.match(assertFailure(result, 'exception'), /boom after poisoning/)
    })
  })
}

/** Registers the checks of CONTRACT section #poisoned-realm. */
export function describePoisonedRealm(target: ConformanceTarget): void {
  void describe(`${target.name}: lossless JSON in a poisoned realm [#poisoned-realm]`, () => {
    const runtime = useRuntime(target)
    describePoisoning(runtime)
  })
}
