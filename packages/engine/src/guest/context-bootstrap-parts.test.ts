import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import type { contextBootstrap, BootstrapControl, BootstrapHost } from './context-bootstrap.js'
import { compileContextScript } from './context-script.js'
import type { capturePrimordials } from './primordials.js'

const primordialsScript = compileContextScript<typeof capturePrimordials>('code-runtime:primordials')
const bootstrapScript = compileContextScript<typeof contextBootstrap>('code-runtime:bootstrap')

/** A context with one binding, `tools.get`, whose calls get ids 1, 2, …; nothing else is wired. */
function bootWithBinding(): { context: vm.Context; control: BootstrapControl } {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
  let lastId = 0
  const ignore = (): void => {}
  const host: BootstrapHost = {
    emitLog: ignore,
    formatLog: () => '',
    requestCall: () => ++lastId,
    callErrorFrames: () => '',
    completeRun: ignore,
    failRun: ignore,
    reportUncaught: ignore,
    scheduleTimer: ignore,
    cancelTimer: ignore,
    now: () => 0,
  }
  const control = bootstrapScript.runIn(context)(
    primordialsScript.runIn(context)(),
    host,
    {},
    { maxCollectionSize: 1_000 },
  )
  control.installNamespaces(JSON.stringify([{ global: 'tools', members: ['get'], errorClass: null }]), 1)
  return { context, control }
}

/** Makes call `name` in the program; what it settled with is read by {@link outcomeOf}. */
function call(context: vm.Context, name: string): void {
  vm.runInContext(
    `globalThis.${name} = 'pending'; tools.get({}).then(
    (value) => { ${name} = 'value ' + JSON.stringify(value) + (Object.getPrototypeOf(value) === Array.prototype ? '' : ' (foreign prototype)') },
    (error) => { ${name} = 'error ' + error.message })`,
    context,
  )
}

async function outcomeOf(context: vm.Context, name: string): Promise<unknown> {
  await new Promise(resolve => setImmediate(resolve))
  return vm.runInContext(name, context)
}

const LIMIT = 1_000

describe('context bootstrap: a binding result in parts', () => {
  it('joins the parts and the last elements into one array of the context', async () => {
    const { context, control } = bootWithBinding()
    call(context, 'first')
    control.receivePart(1, '[1,{"a":[2]}]', LIMIT)
    control.receivePart(1, '["x"]', LIMIT)
    assert.equal(await outcomeOf(context, 'first'), 'pending', 'nothing settles before the result')
    control.settleCall(1, true, '[null,4]', 2, LIMIT)
    assert.equal(await outcomeOf(context, 'first'), 'value [1,{"a":[2]},"x",null,4]')
  })

  // Assigning past an array's end would run a setter the program put on Array.prototype,
  // handing it a half-built array; the result must come whole and the setter never run.
  it('never runs a setter the program put on Array.prototype indexes', async () => {
    const { context, control } = bootWithBinding()
    vm.runInContext(
      `globalThis.seen = []
      for (let i = 0; i < 8; i++) Object.defineProperty(Array.prototype, i, { set(v) { seen.push([i, v, this.length]) }, configurable: true })`,
      context,
    )
    call(context, 'planted')
    control.receivePart(1, '[1,2,3]', LIMIT)
    control.receivePart(1, '[4,5]', LIMIT)
    control.settleCall(1, true, '[6]', 2, LIMIT)
    assert.equal(await outcomeOf(context, 'planted'), 'value [1,2,3,4,5,6]')
    assert.equal(vm.runInContext('seen.length', context), 0)
  })

  it('fails the call as too large once its parts pass the budget, whatever comes after', async () => {
    const { context, control } = bootWithBinding()
    call(context, 'big')
    control.receivePart(1, `[${'1,'.repeat(300)}1]`, LIMIT)
    control.receivePart(1, `[${'1,'.repeat(300)}1]`, LIMIT)
    control.receivePart(1, '[2]', LIMIT)
    control.settleCall(1, true, '[3]', 3, LIMIT)
    assert.match(
      String(await outcomeOf(context, 'big')),
      /^error The tool result \(1212 characters of JSON\) is too large to read in the sandbox/,
    )
  })

  it('counts the last message against the budget too', async () => {
    const { context, control } = bootWithBinding()
    call(context, 'tail')
    control.receivePart(1, `[${'1,'.repeat(300)}1]`, LIMIT)
    control.settleCall(1, true, `[${'1,'.repeat(300)}1]`, 1, LIMIT)
    assert.match(
      String(await outcomeOf(context, 'tail')),
      /^error The tool result \(1206 characters of JSON\) is too large/,
    )
  })

  // A failure after some parts (the host's walk met a throwing getter, a BigInt, a cycle) voids them.
  it('drops the parts of a call that fails, and ignores parts that come after', async () => {
    const { context, control } = bootWithBinding()
    call(context, 'failed')
    control.receivePart(1, '[1,2]', LIMIT)
    control.settleCall(1, false, 'value[7] is a BigInt', 0, LIMIT)
    assert.equal(await outcomeOf(context, 'failed'), 'error value[7] is a BigInt')
    // A stale part of call 1 must not leak into call 2's value.
    call(context, 'next')
    control.receivePart(1, '[99]', LIMIT)
    control.receivePart(2, '[5]', LIMIT)
    control.settleCall(2, true, '[6]', 1, LIMIT)
    control.settleCall(1, true, '[0]', 1, LIMIT)
    assert.equal(await outcomeOf(context, 'next'), 'value [5,6]')
  })

  const INCOMPLETE = 'error The tool result arrived incomplete; the call failed.'
  const inconsistent: [string, string[], string, number, string][] = [
    ['a result counting a part that never came', ['[1]'], '[2]', 2, INCOMPLETE],
    ['a result counting fewer parts than came', ['[1]'], '[2]', 0, INCOMPLETE],
    ['a part that is not an array', ['{"a":1}'], '[2]', 1, INCOMPLETE],
    ['a last message that is not an array', ['[1]'], '{"a":1}', 1, INCOMPLETE],
  ]
  for (const [label, parts, payload, counted, expected] of inconsistent) {
    it(`fails the call on ${label}`, async () => {
      const { context, control } = bootWithBinding()
      call(context, 'outcome')
      for (const part of parts) control.receivePart(1, part, LIMIT)
      control.settleCall(1, true, payload, counted, LIMIT)
      assert.equal(await outcomeOf(context, 'outcome'), expected)
    })
  }
})
