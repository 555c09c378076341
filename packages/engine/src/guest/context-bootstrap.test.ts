import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { contextBootstrap, type BootstrapHost } from './context-bootstrap.js'

function bootInFreshContext(limits = { maxCollectionSize: 5 }): { context: vm.Context; logs: string[] } {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
  const logs: string[] = []
  const host: BootstrapHost = {
    emitLog: (text) => logs.push(text),
    formatLog: (args) => args.map(String).join(' '),
    requestCall: () => 'refused',
    completeRun: () => {},
    failRun: () => {},
    reportUncaught: () => {},
    scheduleTimer: () => {},
    cancelTimer: () => {},
    now: () => 0,
  }
  const bootstrap = vm.runInContext(`(${contextBootstrap.toString()})`, context) as typeof contextBootstrap
  bootstrap(host, {}, limits)
  return { context, logs }
}

describe('context bootstrap', () => {
  it('runs self-contained in a context that has only ECMAScript built-ins', () => {
    const { context, logs } = bootInFreshContext()
    vm.runInContext("console.log('hello')", context)
    assert.deepEqual(logs, ['hello'])
  })

  // Growing a Map or Set past V8's maximum aborts the process; the guard throws first.
  it('refuses to grow a Map or a Set past the guard limit but still updates existing keys', () => {
    const { context } = bootInFreshContext()
    const outcome = vm.runInContext(`
      const map = new Map(), set = new Set(), errors = []
      for (let i = 0; i < 5; i++) { map.set(i, i); set.add(i) }
      map.set(0, 'updated'); set.add(0)
      try { map.set(99, 1) } catch (error) { errors.push(error instanceof RangeError) }
      try { set.add(99) } catch (error) { errors.push(error instanceof RangeError) }
      try { new Map([[1,1],[2,2],[3,3],[4,4],[5,5],[6,6]]) } catch (error) { errors.push(error instanceof RangeError) }
      JSON.stringify({ size: map.size, first: map.get(0), errors })`, context) as string
    assert.deepEqual(JSON.parse(outcome), { size: 5, first: 'updated', errors: [true, true, true] })
  })

  it('removes WebAssembly', () => {
    const { context } = bootInFreshContext()
    assert.equal(vm.runInContext('typeof WebAssembly', context), 'undefined')
  })
})
