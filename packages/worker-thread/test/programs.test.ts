import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { echoTools, outcomeOf, startWorkerRuntime } from './start.js'

describe('worker-thread programs', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  const run = (program: string) => started.runtime.run({ program, bindings: [echoTools] })
  before(async () => {
    started = await startWorkerRuntime()
  })
  after(() => started.dispose())

  describe('transform', () => {
    it('runs erasable TypeScript with top-level await and return', async () => {
      const result = await run(
        [
          'interface Point { x: number; y: number }',
          'function mid<T extends Point>(a: T, b: T): Point { return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } }',
          'const echoed = await tools.echo({ x: 4, y: 6 }) as Point',
          'return mid(echoed, { x: 0, y: 0 } satisfies Point)',
        ].join('\n'),
      )
      assert.deepEqual(outcomeOf(result), { logs: [], value: { x: 2, y: 3 } })
    })

    it('refuses enum with its line and column and what to write instead', async () => {
      const result = await run('const a = 1\n\nenum Color { Red }\nreturn a')
      assert.equal(result.error?.kind, 'exception')
      assert.match(
        result.error?.message ?? '',
        /^Line 3, col 1: 'enum' cannot run here; use a union of string literals/,
      )
    })

    it('refuses a value namespace and a parameter property with hints', async () => {
      const namespaceResult = await run('namespace N { export const x = 1 }')
      assert.match(namespaceResult.error?.message ?? '', /^Line 1, col 1: a value 'namespace' cannot run here/)
      const propertyResult = await run('class A {\n  constructor(private x: number) {}\n}')
      assert.match(
        propertyResult.error?.message ?? '',
        /^Line 2, col 23: parameter properties cannot run here; declare the field/,
      )
    })

    it('reports a syntax error at its position in the program', async () => {
      const result = await run('const a = 1\nlet b = ;')
      assert.equal(result.error?.kind, 'exception')
      assert.match(result.error?.message ?? '', /^Line 2, col 9: SyntaxError: Expression expected/)
    })

    it('refuses dynamic import before any worker runs', async () => {
      const result = await run("const fs = await import ( 'node:fs' )")
      assert.equal(result.error?.kind, 'exception')
      assert.match(result.error?.message ?? '', /^Line 1, col 18: import\(\) cannot run here/)
    })
  })

  describe('exceptions', () => {
    it('reads Name: message then only frames inside the program, in its own numbering', async () => {
      const result = await run('function explode() {\n  throw new TypeError("bad input")\n}\nexplode()')
      assert.equal(result.error?.kind, 'exception')
      const message = result.error?.message ?? ''
      assert.match(message, /^TypeError: bad input\n {4}at explode \(program\.ts:2:9\)\n {4}at program\.ts:4:1/)
      assert.doesNotMatch(message, /\/work\/|node:internal|file:|bootstrap|worker/)
    })

    it('describes a thrown non-error value', async () => {
      const result = await run('throw { code: 7 }')
      assert.deepEqual(result.error, { kind: 'exception', message: 'Uncaught { code: 7 }' })
    })

    it('fails the run on an exception thrown in a timer callback', async () => {
      const result = await run('setTimeout(() => { throw new RangeError("late") }, 1); await new Promise(() => {})')
      assert.equal(result.error?.kind, 'exception')
      assert.match(result.error?.message ?? '', /^RangeError: late/)
    })

    it('ignores an unhandled rejection and still returns the value', async () => {
      const result = await run('Promise.reject(new Error("ignored")); return "fine"')
      assert.deepEqual(outcomeOf(result), { logs: [], value: 'fine' })
    })
  })

  describe('console and process shim', () => {
    it('turns every standard console method into one log entry', async () => {
      const result = await run(
        [
          "console.log('a', 1, { x: 1 })",
          "console.info('info')",
          "console.warn('warn')",
          "console.error('error')",
          "console.debug('debug')",
          "console.trace('here')",
          'console.dir({ nested: { deep: [1, 2] } })',
          'console.assert(1 === 2, "math")',
          'console.assert(true, "never")',
          "console.count(); console.count(); console.count('x')",
          "console.group('group'); console.log('inside'); console.groupEnd(); console.log('outside')",
          "console.table([{ a: 1, b: 'two' }])",
          "console.time('t'); console.timeEnd('t')",
          'class Point { constructor(public_x) { this.x = 1; this.y = 2 } }',
          'console.log(new Point())',
          "console.log('%s is %d', 'answer', 42)",
        ].join('\n'),
      )
      assert.equal(result.error, undefined)
      const logs = result.logs
      assert.equal(logs[0], 'a 1 { x: 1 }')
      assert.deepEqual(logs.slice(1, 5), ['info', 'warn', 'error', 'debug'])
      assert.equal(logs[5], 'Trace: here')
      assert.equal(logs[6], '{ nested: { deep: [ 1, 2 ] } }')
      assert.equal(logs[7], 'Assertion failed: math')
      assert.deepEqual(logs.slice(8, 11), ['default: 1', 'default: 2', 'x: 1'])
      assert.deepEqual(logs.slice(11, 14), ['group', '  inside', 'outside'])
      assert.match(logs[14] ?? '', /│ \(index\) │ a +│ b +│/)
      assert.match(logs[15] ?? '', /^t: \d+(\.\d+)?ms$/)
      assert.equal(logs[16], 'Point { x: 1, y: 2 }')
      assert.equal(logs[17], 'answer is 42')
    })

    it('captures process.stdout.write and process.stderr.write verbatim and calls the callback', async () => {
      const result = await run(
        [
          "const wrote = process.stdout.write('no newline')",
          "process.stderr.write('err\\n')",
          "await new Promise((resolve) => process.stdout.write('cb', resolve))",
          'return { wrote, env: Object.keys(process.env).length, keys: Object.keys(process).sort() }',
        ].join('\n'),
      )
      assert.deepEqual(outcomeOf(result), {
        logs: ['no newline', 'err\n', 'cb'],
        value: { wrote: true, env: 0, keys: ['env', 'stderr', 'stdout'] },
      })
    })
  })

  describe('globals', () => {
    it('offers the harmless globals a model expects', async () => {
      const result = await run(
        [
          'const url = new URL("/a?b=1", "https://example.com")',
          'return {',
          '  timers: [typeof setTimeout, typeof setInterval, typeof clearTimeout, typeof queueMicrotask],',
          '  clone: structuredClone({ d: [1, { e: 2 }] }),',
          '  text: new TextDecoder().decode(new TextEncoder().encode("héllo")),',
          '  url: url.href, param: url.searchParams.get("b"),',
          '  base64: atob(btoa("hi")),',
          '  uuid: /^[0-9a-f-]{36}$/.test(crypto.randomUUID()),',
          '  random: crypto.getRandomValues(new Uint8Array(4)).length,',
          '  timerId: typeof setTimeout(() => {}, 1),',
          '}',
        ].join('\n'),
      )
      assert.deepEqual(result.value, {
        timers: ['function', 'function', 'function', 'function'],
        clone: { d: [1, { e: 2 }] },
        text: 'héllo',
        url: 'https://example.com/a?b=1',
        param: '1',
        base64: 'hi',
        uuid: true,
        random: 4,
        timerId: 'number',
      })
    })

    it('gives no require, Buffer, fetch, real process, WebAssembly or environment', async () => {
      const result = await run(
        [
          'return [typeof require, typeof Buffer, typeof fetch, typeof process.exit, typeof process.binding,',
          '  typeof WebAssembly, typeof module, typeof __filename, typeof postMessage, typeof globalThis.process.versions]',
        ].join('\n'),
      )
      assert.deepEqual(result.value, Array(10).fill('undefined'))
    })

    it('keeps no state between runs', async () => {
      await run('globalThis.leak = 1; Array.prototype.poisoned = true')
      const result = await run('return [typeof leak, [].poisoned === undefined]')
      assert.deepEqual(result.value, ['undefined', true])
    })
  })
})

describe('worker-thread binding calls without an argument', () => {
  it('passes {} to the host for tools.x() and refuses an explicit undefined', async () => {
    const received: unknown[] = []
    const { runtime, dispose } = await startWorkerRuntime()
    try {
      const result = await runtime.run({
        program: 'await tools.list()\ntry { await tools.list(undefined) } catch (error) { return error.message }',
        bindings: [
          {
            global: 'tools',
            functions: {
              list: async (args: unknown) => {
                received.push(args)
                return null
              },
            },
          },
        ],
      })
      assert.deepEqual(received, [{}])
      assert.match(String(result.value), /^tools\.list: args is undefined/)
    } finally {
      await dispose()
    }
  })
})
