// Attacks on the stack-trace filter: a program that installs its own Error.prepareStackTrace, tries
// to remove or go around the filter, or makes the filter run its code while V8 formats a stack.
// The conformance table (core/src/conformance/stack-privacy.ts) covers the ordinary doors on every
// backend; these are the worker's own realm questions.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { echoTools, startWorkerRuntime } from '../start.js'

// What only a frame of the host (or of the sandbox around the program) contains.
const HOST_FRAGMENT = /file:|node:internal|\/work\/|guest-runtime|worker-entry|GuestSession|code-runtime:/

describe('hostile program: stack traces', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime()
  })
  after(() => started.dispose())

  async function runValue(program: string): Promise<unknown> {
    const result = await started.runtime.run({ program, bindings: [echoTools] })
    assert.equal(result.error, undefined, `the program failed: ${JSON.stringify(result.error)}`)
    assert.doesNotMatch(result.logs.join('\n'), HOST_FRAGMENT)
    return result.value
  }

  // V8 builds the CallSite array in the realm that first reads the stack: when the host's console
  // formatting reads it, a hook would receive objects of the worker's realm.
  it("hands the program's own prepareStackTrace only arrays and CallSites of its realm, even when the host reads the stack first", async () => {
    const value = await runValue(`
      Error.stackTraceLimit = Infinity
      const seen = []
      Error.prepareStackTrace = (error, sites) => {
        seen.push(sites instanceof Array && sites.every((site) => site instanceof Object && Object.getPrototypeOf(Object.getPrototypeOf(site)) === Object.prototype))
        for (const site of sites) seen.push(String(site.getFileName()) + ' ' + typeof site.getThis() + ' ' + typeof site.getFunction())
        return 'formatted'
      }
      console.log(new Error('read by the host'))
      await tools.echo({ get a() { new Error('read in a getter').stack; return 1 } })
      Error.prepareStackTrace = undefined
      return seen`)
    assert.ok(Array.isArray(value))
    for (const entry of value) {
      if (typeof entry === 'boolean') assert.equal(entry, true, 'a foreign array or CallSite reached the hook')
      else assert.match(String(entry), /^program\.ts undefined undefined$/)
    }
  })

  it('keeps the filter in front when the program tries to remove or go around it', async () => {
    const value = (await runValue(`
      Error.stackTraceLimit = Infinity
      const raw = (error, sites) => sites.map((site) => String(site.getFileName())).join(',')
      const attempts = [
        Reflect.deleteProperty(Error, 'prepareStackTrace'),
        Reflect.defineProperty(Error, 'prepareStackTrace', { value: raw, writable: true, configurable: true }),
        Reflect.set(globalThis, 'Error', { prepareStackTrace: raw }),
        Reflect.defineProperty(globalThis, 'Error', { value: { prepareStackTrace: raw } }),
      ]
      Error.prepareStackTrace = undefined
      let stack
      await new Promise((resolve) => setTimeout(() => { stack = new TypeError('late').stack; resolve() }, 1))
      return { attempts, stack, stillError: globalThis.Error === Error && typeof Error === 'function' }`)) as {
      attempts: boolean[]
      stack: string
      stillError: boolean
    }
    assert.deepEqual(value.attempts, [false, false, false, false])
    assert.equal(value.stillError, true)
    assert.match(value.stack, /^TypeError: late\n {4}at program\.ts:\d+:\d+$/)
  })

  it('lets a hook delegate to the value it replaced, and restores the default when that value is put back', async () => {
    const value = await runValue(`
      Error.stackTraceLimit = Infinity
      const previous = Error.prepareStackTrace
      Error.prepareStackTrace = (error, sites) => 'hooked: ' + previous(error, sites)
      const hooked = new Error('one').stack
      Error.prepareStackTrace = previous
      return [hooked, new Error('two').stack]`)
    assert.deepEqual(value, ['hooked: Error: one\n    at program.ts:5:22', 'Error: two\n    at program.ts:7:23'])
  })

  // Program code running while V8 formats a stack would read other stacks through V8's own,
  // unfiltered formatter: the first line is built without calling the error's getters.
  it('runs no getter of the error while its stack is formatted', async () => {
    const value = await runValue(`
      Error.stackTraceLimit = Infinity
      const early = new Error('early')
      const error = new Error('x')
      let calls = 0
      Object.defineProperty(error, 'message', { get() { calls++; return early.stack } })
      Object.defineProperty(error, 'name', { get() { calls++; return early.stack } })
      return [error.stack, early.stack, calls]`)
    assert.deepEqual(value, ['Error\n    at program.ts:4:21', 'Error: early\n    at program.ts:3:21', 0])
  })

  it('shows the frames of built-ins the program called, and no other', async () => {
    const value = await runValue(`
      Error.stackTraceLimit = Infinity
      return [[1].map(() => new Error('in map').stack)[0], await new Promise((resolve) => setTimeout(() => resolve([2].map(() => new Error('in a timer').stack)[0]), 1))]`)
    assert.deepEqual(value, [
      'Error: in map\n    at program.ts:3:29\n    at Array.map (<anonymous>)\n    at program.ts:3:19',
      'Error: in a timer\n    at program.ts:3:130\n    at Array.map (<anonymous>)\n    at program.ts:3:120',
    ])
  })

  // The web globals run as scripts of the runtime (code-runtime:globals/...): their frames, in an
  // error they throw or around a program callback they call, are the sandbox's, never shown.
  it('shows only the program frames in errors the web globals throw and in callbacks they run', async () => {
    const value = (await runValue(`
      Error.stackTraceLimit = Infinity
      const stacks = []
      try { new URL('nope') } catch (error) { stacks.push(error.stack) }
      try { atob('*') } catch (error) { stacks.push(error.stack) }
      new URLSearchParams('a=1').forEach(() => { stacks.push(new Error('in forEach').stack) })
      structuredClone({ get a() { stacks.push(new Error('in a getter').stack); return 1 } })
      return stacks`)) as string[]
    assert.deepEqual(value.slice(0, 3), [
      'TypeError: Invalid URL\n    at program.ts:4:13',
      'InvalidCharacterError: Invalid character\n    at program.ts:5:13',
      'Error: in forEach\n    at program.ts:6:62\n    at program.ts:6:34',
    ])
    // V8 names a getter's frame `get a [as a]` before Node 22 and `get a` since.
    assert.match(
      value[3] ?? '',
      /^Error: in a getter\n {4}at get a( \[as a\])? \(program\.ts:7:47\)\n {4}at program\.ts:7:7$/,
    )
  })
})
