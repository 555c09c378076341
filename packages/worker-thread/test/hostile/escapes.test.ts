// Attacks that try to reach an object of the worker's own realm (or any code generation) from
// inside the program. Every path must lead to the program's own context, where code generation
// from strings is disabled: the attempt ends in an EvalError inside the program.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { echoTools, outcomeOf, startWorkerRuntime } from '../start.js'

// Tries the constructor-chain escape on `expression` and reports what happened, as a value.
function constructorChainProgram(setup: string, expression: string): string {
  return [
    setup,
    'const target = ' + expression,
    'const realmFunction = Object.getPrototypeOf(target) === null ? target.constructor : target.constructor.constructor',
    'let outcome',
    "try { outcome = String(realmFunction('return typeof process')()) } catch (error) { outcome = error.name }",
    'return { outcome, sameRealm: realmFunction === Function }',
  ].join('\n')
}

describe('hostile program: constructor-chain escapes', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime()
  })
  after(() => started.dispose())

  const targets: readonly (readonly [string, string, string])[] = [
    ['this', '', 'this'],
    ['globalThis', '', 'globalThis'],
    ['a binding function', '', 'tools.echo'],
    ['the promise a binding returns', '', 'tools.echo(1)'],
    [
      'a caught binding error',
      'let caught; try { await tools.fail({ message: "x" }) } catch (error) { caught = error }',
      'caught',
    ],
    ['the injected error class', '', 'ToolCallError'],
    ['a console method', '', 'console.log'],
    ['a timer id', '', 'setTimeout(() => {}, 1)'],
    ['the process shim', '', 'process.stdout.write'],
    ['a web global', '', 'structuredClone'],
    ['a value resolved by a binding', '', 'await tools.echo({ a: [1] })'],
  ]
  for (const [name, setup, expression] of targets) {
    it(`finds only the program's own realm through ${name}`, async () => {
      const result = await started.runtime.run({
        program: constructorChainProgram(setup, expression),
        bindings: [echoTools],
      })
      assert.deepEqual(outcomeOf(result), { logs: [], value: { outcome: 'EvalError', sameRealm: true } })
    })
  }

  it('finds only the program realm through the namespace object (null prototype)', async () => {
    const result = await started.runtime.run({
      program:
        'return [Object.getPrototypeOf(tools) === null, typeof tools.constructor, typeof tools.hasOwnProperty, typeof tools.__proto__]',
      bindings: [echoTools],
    })
    assert.deepEqual(result.value, [true, 'undefined', 'undefined', 'undefined'])
  })

  // Every global the program sees, and every function on it, belongs to the program's realm.
  it('exposes no object of another realm among the globals', async () => {
    const program = `
      const foreign = []
      for (const name of Object.getOwnPropertyNames(globalThis)) {
        const value = globalThis[name]
        if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue
        if (!(value instanceof Object) && Object.getPrototypeOf(value) !== null) foreign.push(name)
        for (const key of Object.getOwnPropertyNames(value)) {
          let member
          try { member = value[key] } catch { continue }
          if (typeof member === 'function' && member !== Function.prototype && !(member instanceof Function)) foreign.push(name + '.' + key)
        }
      }
      return foreign`
    const result = await started.runtime.run({ program, bindings: [echoTools] })
    assert.deepEqual(outcomeOf(result), { logs: [], value: [] })
  })

  // CallSite objects can expose the functions and receivers of the frames on the stack.
  it('leaks no function or receiver through Error.prepareStackTrace while the host reads program values', async () => {
    const program = `
      const seen = []
      Error.prepareStackTrace = (error, frames) => frames
      const args = { get probe() {
        for (const frame of new Error().stack) {
          const fn = frame.getFunction(), self = frame.getThis()
          if (fn !== undefined && !(fn instanceof Function)) seen.push('function ' + frame.getFunctionName())
          if (self !== undefined && self !== null && typeof self === 'object' && !(self instanceof Object) && Object.getPrototypeOf(self) !== null) seen.push('receiver')
        }
        return 1
      } }
      await tools.echo(args)
      console.log({ get shown() { new Error().stack; return 1 } })
      return seen`
    const result = await started.runtime.run({ program, bindings: [echoTools] })
    assert.deepEqual(result.value, [])
  })

  // A stack overflow inside the sandbox's own code would create the RangeError in its realm.
  it('hands the program only its own errors when a binding call overflows the stack', async () => {
    const program = `
      const names = new Set()
      function dive(depth) {
        try { return dive(depth + 1) } catch {
          try { tools.echo({ depth }) } catch (error) { names.add(error instanceof Error ? 'own' : 'foreign') }
          try { console.log('deep') } catch (error) { names.add(error instanceof Error ? 'own' : 'foreign') }
          return depth
        }
      }
      dive(0)
      return [...names].filter((name) => name === 'foreign')`
    const result = await started.runtime.run({ program, bindings: [echoTools] })
    assert.equal(result.error, undefined)
    assert.deepEqual(result.value, [])
  })

  it('refuses eval and new Function', async () => {
    const result = await started.runtime.run({
      program:
        'const names = []\nfor (const attempt of [() => eval("1"), () => new Function("return 1")]) { try { attempt() } catch (e) { names.push(e.name) } }\nreturn names',
      bindings: [],
    })
    assert.deepEqual(result.value, ['EvalError', 'EvalError'])
  })

  it('has no custom inspector of ours to call back into', async () => {
    const program = `
      let received = 'not called'
      const bait = { [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) { received = typeof inspect; return 'bait' } }
      console.log(bait)
      return received`
    const result = await started.runtime.run({ program, bindings: [] })
    assert.equal(result.value, 'not called')
  })
})
