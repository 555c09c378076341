// Attacks that replace built-ins or prototype methods to change what crosses the bridge.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeBindingNamespace, CodeJsonValue } from '@code-runtime/core'
import { outcomeOf, startWorkerRuntime } from '../start.js'

describe('hostile program: poisoned built-ins', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  const received: unknown[] = []
  const tools: CodeBindingNamespace = {
    global: 'tools',
    functions: {
      echo: async (args: unknown) => {
        received.push(args)
        return args as CodeJsonValue
      },
    },
  }
  before(async () => {
    started = await startWorkerRuntime()
  })
  after(() => started.dispose())

  const poison = `
    Object.prototype.toJSON = () => 'poisoned'
    Object.keys = () => ['poisoned']
    Object.getPrototypeOf = () => null
    Array.isArray = () => false
    Array.prototype.push = function () { throw new Error('push') }
    Array.prototype[Symbol.iterator] = function* () { yield 'poisoned' }
    Reflect.ownKeys = () => []
    JSON.stringify = () => '"poisoned"'
    JSON.parse = () => 'poisoned'
    Map.prototype.get = () => 'poisoned'
    Promise.prototype.then = function () { throw new Error('then') }
    Function.prototype.call = function () { throw new Error('call') }
    Function.prototype.apply = function () { throw new Error('apply') }
  `

  it('sends the true arguments and returns the true value after poisoning before calls and return', async () => {
    received.length = 0
    const program = `${poison}
      const value = { list: [1, 2, { deep: true }], text: 'ok' }
      const echoed = await tools.echo(value)
      if (echoed.text !== 'ok') throw new Error('the echo came back altered')
      return { list: [1, 2, { deep: true }], text: 'ok' }`
    const result = await started.runtime.run({ program, bindings: [tools] })
    assert.deepEqual(received, [{ list: [1, 2, { deep: true }], text: 'ok' }])
    assert.deepEqual(outcomeOf(result), { logs: [], value: { list: [1, 2, { deep: true }], text: 'ok' } })
  })

  it('cannot hijack the completion through Promise species or a thenable', async () => {
    const program = `
      class Evil extends Promise { static get [Symbol.species]() { return Evil } }
      Promise[Symbol.species] = Evil
      Array[Symbol.species] = class extends Array {}
      return { then(resolve) { resolve('from thenable') } }`
    const result = await started.runtime.run({ program, bindings: [] })
    assert.deepEqual(outcomeOf(result), { logs: [], value: 'from thenable' })
  })

  it('routes members named __proto__, constructor and toString as ordinary members', async () => {
    const odd: CodeBindingNamespace = {
      global: 'odd',
      functions: {
        ['__proto__']: async () => 'proto member',
        constructor: async () => 'constructor member',
        toString: async () => 'toString member',
      },
    }
    const result = await started.runtime.run({
      program:
        'return [await odd.__proto__({}), await odd.constructor({}), await odd.toString({}), typeof odd.hasOwnProperty]',
      bindings: [odd],
    })
    assert.deepEqual(result.value, ['proto member', 'constructor member', 'toString member', 'undefined'])
  })
})
