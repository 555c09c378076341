import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import type { contextBootstrap, BootstrapControl, BootstrapHost } from './context-bootstrap.js'
import { compileContextScript } from './context-script.js'
import type { capturePrimordials } from './primordials.js'

const primordialsScript = compileContextScript<typeof capturePrimordials>('code-runtime:primordials')
const bootstrapScript = compileContextScript<typeof contextBootstrap>('code-runtime:bootstrap')

/** Deletes every configurable global of `context` (as a program may), keeping nothing. */
const STRIP_GLOBALS_SOURCE = `{
  const global = globalThis, { ownKeys, getOwnPropertyDescriptor, deleteProperty } = Reflect
  const names = ownKeys(global)
  for (let index = 0; index < names.length; index++) {
    if (getOwnPropertyDescriptor(global, names[index]).configurable) deleteProperty(global, names[index])
  }
}`

function bootInFreshContext(
  limits = { maxCollectionSize: 5 },
  stripGlobals = false,
  requestCall: BootstrapHost['requestCall'] = () => 'refused',
): { context: vm.Context; logs: string[]; control: BootstrapControl } {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
  const primordials = primordialsScript.runIn(context)()
  if (stripGlobals) vm.runInContext(STRIP_GLOBALS_SOURCE, context)
  const logs: string[] = []
  const host: BootstrapHost = {
    emitLog: text => logs.push(text),
    // A copy in this realm first: the context's array methods may be the program's.
    formatLog: args => Array.from(args, String).join(' '),
    requestCall,
    callErrorFrames: () => '',
    completeRun: () => {},
    failRun: () => {},
    reportUncaught: () => {},
    scheduleTimer: () => {},
    cancelTimer: () => {},
    now: () => 0,
  }
  const control = bootstrapScript.runIn(context)(primordials, host, {}, limits)
  return { context, logs, control }
}

describe('context bootstrap', () => {
  it('runs self-contained in a context that has only ECMAScript built-ins', () => {
    const { context, logs } = bootInFreshContext()
    vm.runInContext("console.log('hello')", context)
    assert.deepEqual(logs, ['hello'])
  })

  // Every built-in it uses comes from the primordials, captured before the program runs.
  it('builds its globals when every global of the context is gone', () => {
    const { context, logs } = bootInFreshContext({ maxCollectionSize: 5 }, true)
    vm.runInContext(
      "console.log('still', 1); console.count(); console.group(); console.log('a\\nb'); console.groupEnd(); console.log('c')",
      context,
    )
    assert.deepEqual(logs, ['still 1', 'default: 1', '  a\n  b', 'c'])
  })

  // The console's own string work must not run (or break on) methods the program replaced.
  it('keeps console groups working after the program replaces String and Array methods', () => {
    const { context, logs } = bootInFreshContext()
    vm.runInContext(
      `
      for (const key of ['slice', 'split', 'includes']) String.prototype[key] = () => { throw new Error('poisoned ' + key) }
      Array.prototype.join = () => { throw new Error('poisoned join') }
      console.group('g'); console.log('a\\nb'); console.groupEnd(); console.log('c')`,
      context,
    )
    assert.deepEqual(logs, ['g', '  a\n  b', 'c'])
  })

  // Growing a Map or Set past V8's maximum aborts the process; the guard throws first.
  it('refuses to grow a Map or a Set past the guard limit but still updates existing keys', () => {
    const { context } = bootInFreshContext()
    const outcome = vm.runInContext(
      `
      const map = new Map(), set = new Set(), errors = []
      for (let i = 0; i < 5; i++) { map.set(i, i); set.add(i) }
      map.set(0, 'updated'); set.add(0)
      try { map.set(99, 1) } catch (error) { errors.push(error instanceof RangeError) }
      try { set.add(99) } catch (error) { errors.push(error instanceof RangeError) }
      try { new Map([[1,1],[2,2],[3,3],[4,4],[5,5],[6,6]]) } catch (error) { errors.push(error instanceof RangeError) }
      JSON.stringify({ size: map.size, first: map.get(0), errors })`,
      context,
    ) as string
    assert.deepEqual(JSON.parse(outcome), { size: 5, first: 'updated', errors: [true, true, true] })
  })

  it('removes WebAssembly', () => {
    const { context } = bootInFreshContext()
    assert.equal(vm.runInContext('typeof WebAssembly', context), 'undefined')
  })
})
