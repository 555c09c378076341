/**
 * CONTRACT section #lossless-json, across every boundary: binding arguments (program → host),
 * binding resolutions (host → program) and the completion value. Each refusal is checked on each
 * boundary it can reach, and so is what must cross unchanged: every JSON kind, 3 000 levels of
 * nesting, getters read once, `toJSON` ignored and a literal `__proto__` key. A program that
 * poisons its own built-ins is checked in poisoned-realm.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeJsonValue, CodeRunResult } from '../types.js'
import { assertFailure, assertJsonEqual, assertNoHostPaths, assertValue } from './assertions.js'
import { echoTools, recordCalls } from './host-functions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** Values the program can build that are not lossless JSON, as source text. */
const REFUSED_PROGRAM_VALUES: readonly (readonly [what: string, source: string])[] = [
  ['undefined inside an array', '[1, undefined]'],
  ['undefined inside an object', '({ a: undefined })'],
  ['a function', '(() => 1)'],
  ['an object with a method', '({ run() { return 1 } })'],
  ['an object with a toJSON method', "({ a: 1, toJSON() { return 'replaced' } })"],
  ['a symbol', "Symbol('s')"],
  ['a BigInt', '10n'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'],
  ['-0', '-0'],
  ['a nested -0', '[0, -0]'],
  ['a Date', 'new Date(0)'],
  ['a Map', "new Map([['a', 1]])"],
  ['a Set', 'new Set([1])'],
  ['a RegExp', '/x/g'],
  ['a typed array', 'new Uint8Array(2)'],
  ['an Error', "new Error('not data')"],
  ['a boxed string', "new String('boxed')"],
  ['a class instance', 'new (class Point { x = 1 })()'],
  ['an array subclass', 'new (class List extends Array {})()'],
  ['a sparse array', '[1, , 3]'],
  ['an array with an extra property', 'Object.assign([1, 2], { extra: 3 })'],
  ['an object with a symbol key', "({ [Symbol('s')]: 1 })"],
  ['an object with a hidden property', "Object.defineProperty({ a: 1 }, 'hidden', { value: 2 })"],
  ['an object with a custom prototype', 'Object.create({ inherited: 1 })'],
  [
    'an object with a spoofed prototype',
    'Object.setPrototypeOf({ a: 1 }, Object.create(null, { constructor: { value: Object } }))',
  ],
  ['a Proxy', 'new Proxy({ a: 1 }, {})'],
  ['an object with a throwing getter', "({ get broken() { throw new Error('getter failed') } })"],
  ['a cycle', '(() => { const loop: unknown[] = []; loop.push(loop); return loop })()'],
  ['a cycle through an object', '(() => { const node: { self?: unknown } = {}; node.self = { node }; return node })()'],
]

/** Values a host function can resolve that are not lossless JSON. */
const REFUSED_HOST_VALUES: readonly (readonly [what: string, make: () => unknown])[] = [
  ['a Date', () => new Date(0)],
  ['undefined', () => undefined],
  ['NaN', () => Number.NaN],
  [
    'a cycle',
    () => {
      const loop: unknown[] = []
      loop.push(loop)
      return loop
    },
  ],
  ['undefined inside an object', () => ({ a: undefined })],
  ['-0', () => -0],
  ['Infinity', () => Number.POSITIVE_INFINITY],
  ['a BigInt', () => 10n],
  ['a function', () => () => 1],
  ['a symbol', () => Symbol('s')],
  ['a Map', () => new Map([['a', 1]])],
  ['a typed array', () => new Uint8Array(2)],
  [
    'a class instance',
    () =>
      new (class Reply {
        ok = true
      })(),
  ],
  [
    'a sparse array',
    () => {
      const sparse = new Array<number>(3)
      sparse[0] = 1
      return sparse
    },
  ],
  ['an object with a toJSON method', () => ({ a: 1, toJSON: () => 'replaced' })],
  [
    'an object with a throwing getter',
    () => ({
      get broken(): never {
        throw new Error('getter failed')
      },
    }),
  ],
]

/** A value with every kind of lossless JSON in it, including strings JSON escapes. */
const RICH_VALUE: CodeJsonValue = {
  plain: 'text',
  empty: '',
  escaped: 'quote " backslash \\ newline \n tab \t nul \u0000 line separator \u2028',
  unicode: '\u20ac \u{1F600}',
  loneSurrogate: '\ud800',
  integer: 42,
  fraction: -7.25,
  large: 1e308,
  tiny: 5e-324,
  zero: 0,
  maxSafe: Number.MAX_SAFE_INTEGER,
  yes: true,
  no: false,
  nothing: null,
  list: [1, 'a', null, [], {}, [[true]]],
  nested: { 'key with spaces': { '': 'empty key', constructor: 'ordinary key', toString: 'ordinary too' } },
}

/** RICH_VALUE as program source (JSON text is a JavaScript expression). */
const RICH_SOURCE = JSON.stringify(RICH_VALUE)

const DEPTH = 3_000

/** Program source that builds a value nested {@link DEPTH} levels deep, alternating arrays and objects. */
const BUILD_DEEP_SOURCE = `(() => {
  let value: unknown = 'leaf'
  for (let level = 0; level < ${DEPTH}; level++) value = level % 2 === 0 ? [value] : { inner: value }
  return value
})()`

/** Program source of a function that measures such a value without recursion: [depth, leaf]. */
const MEASURE_DEEP_SOURCE = `(value) => {
  let depth = 0
  let cursor = value
  while (typeof cursor === 'object' && cursor !== null) {
    cursor = Array.isArray(cursor) ? cursor[0] : cursor.inner
    depth++
  }
  return [depth, cursor]
}`

function buildDeepValue(): CodeJsonValue {
  let value: CodeJsonValue = 'leaf'
  for (let level = 0; level < DEPTH; level++) value = level % 2 === 0 ? [value] : { inner: value }
  return value
}

/** Checks a value has the shape {@link buildDeepValue} builds, without recursion. */
function assertDeepValue(value: unknown): void {
  let cursor = value
  let depth = 0
  while (typeof cursor === 'object' && cursor !== null) {
    const level = DEPTH - 1 - depth
    if (level % 2 === 0) {
      assert.ok(Array.isArray(cursor) && cursor.length === 1, `level ${depth} is a one-element array`)
      cursor = cursor[0]
    } else {
      assert.deepEqual(Object.keys(cursor), ['inner'], `level ${depth} is an object with the key inner`)
      cursor = (cursor as Record<string, unknown>)['inner']
    }
    depth++
  }
  assert.equal(depth, DEPTH)
  assert.equal(cursor, 'leaf')
}

/** The program tries one binding call and reports whether it was rejected, and how. */
function tryCallSource(call: string): string {
  return `try {
  await ${call}
  return { rejected: false }
} catch (error) {
  return { rejected: true, isError: error instanceof Error, message: typeof error?.message === 'string' ? error.message : '' }
}`
}

interface CallOutcome {
  readonly rejected: boolean
  readonly isError?: boolean
  readonly message?: string
}

function readCallOutcome(result: CodeRunResult): CallOutcome {
  assert.equal(result.error, undefined, `the run failed instead of the call: ${result.error?.message ?? ''}`)
  const outcome = result.value as CallOutcome | undefined
  assert.ok(typeof outcome === 'object' && outcome !== null, 'the program reported the call outcome')
  return outcome
}

function describeRefusals(runtime: () => CodeRuntime): void {
  void describe('refusals [#json-refused] [#json-refusal-outcomes]', () => {
    for (const [what, source] of [['undefined', 'undefined'], ...REFUSED_PROGRAM_VALUES] as const) {
      void it(`rejects a binding call with ${what} as argument inside the program, without calling the host`, async () => {
        const { namespace, echo } = echoTools()
        const outcome = readCallOutcome(
          await runProgram(runtime(), {
            program: tryCallSource(`tools.echo(${source})`),
            bindings: [namespace],
          }),
        )
        assert.equal(outcome.rejected, true, 'the call was rejected')
        assert.equal(outcome.isError, true, 'the rejection is an Error')
        assert.ok((outcome.message ?? '').length > 0, 'the rejection has a message')
        assertNoHostPaths(outcome.message ?? '', 'the rejection message')
        assert.equal(echo.calls.length, 0, 'the host function was not called')
      })
    }

    for (const [what, make] of REFUSED_HOST_VALUES) {
      void it(`rejects the call in the program when the host resolves ${what}`, async () => {
        const reply = recordCalls(() => make() as CodeJsonValue)
        const outcome = readCallOutcome(
          await runProgram(runtime(), {
            program: tryCallSource('tools.reply({})'),
            bindings: [{ global: 'tools', functions: { reply: reply.fn } }],
          }),
        )
        assert.equal(outcome.rejected, true, 'the call was rejected')
        assert.equal(outcome.isError, true, 'the rejection is an Error')
        assert.match(outcome.message ?? '', /JSON/, 'the message says the resolution was not lossless JSON')
        assert.match(outcome.message ?? '', /resol/i, 'the message says it is the resolution that was refused')
        assertNoHostPaths(outcome.message ?? '', 'the rejection message')
      })
    }

    for (const [what, source] of REFUSED_PROGRAM_VALUES) {
      void it(`resolves invalid-output for a completion value that is ${what}`, async () => {
        assertFailure(await runProgram(runtime(), { program: `return ${source}`, bindings: [] }), 'invalid-output')
      })
    }
  })
}

function describeAccepted(runtime: () => CodeRuntime): void {
  void describe('values that cross [#json-accepted]', () => {
    void it('passes every kind of lossless JSON as an argument unchanged', async () => {
      const recorder = recordCalls(() => null)
      const result = await runProgram(runtime(), {
        program: `await tools.record(${RICH_SOURCE})`,
        bindings: [{ global: 'tools', functions: { record: recorder.fn } }],
      })
      assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
      assertJsonEqual(recorder.calls[0]?.[0], RICH_VALUE)
    })

    void it('passes every kind of lossless JSON as a resolution unchanged', async () => {
      const reply = recordCalls(() => RICH_VALUE)
      const result = await runProgram(runtime(), {
        program: `const got = await tools.reply({})\nreturn JSON.stringify(got) === ${JSON.stringify(RICH_SOURCE)}`,
        bindings: [{ global: 'tools', functions: { reply: reply.fn } }],
      })
      assertValue(result, true)
    })

    void it('returns every kind of lossless JSON as the completion value unchanged', async () => {
      assertValue(await runProgram(runtime(), { program: `return ${RICH_SOURCE}`, bindings: [] }), RICH_VALUE)
    })

    void it('accepts null-prototype objects', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: 'const bare = Object.create(null)\nbare.a = 1\nreturn [bare, await tools.echo(bare)]',
        bindings: [namespace],
      })
      assertValue(result, [{ a: 1 }, { a: 1 }])
      assertJsonEqual(echo.calls[0]?.[0], { a: 1 })
    })

    void it('copies shared references that form no cycle', async () => {
      const { namespace } = echoTools()
      const result = await runProgram(runtime(), {
        program: 'const shared = { a: 1 }\nreturn [shared, shared, await tools.echo([shared, shared])]',
        bindings: [namespace],
      })
      assertValue(result, [{ a: 1 }, { a: 1 }, [{ a: 1 }, { a: 1 }]])
    })

    void it(`passes a value nested ${DEPTH} levels deep as an argument [#json-depth]`, async () => {
      const recorder = recordCalls(() => null)
      const result = await runProgram(runtime(), {
        program: `await tools.record(${BUILD_DEEP_SOURCE})`,
        bindings: [{ global: 'tools', functions: { record: recorder.fn } }],
      })
      assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
      assertDeepValue(recorder.calls[0]?.[0])
    })

    void it(`passes a value nested ${DEPTH} levels deep as a resolution [#json-depth]`, async () => {
      const reply = recordCalls(() => buildDeepValue())
      const result = await runProgram(runtime(), {
        program: `const measure = ${MEASURE_DEEP_SOURCE}\nreturn measure(await tools.reply({}))`,
        bindings: [{ global: 'tools', functions: { reply: reply.fn } }],
      })
      assertValue(result, [DEPTH, 'leaf'])
    })

    void it(`returns a value nested ${DEPTH} levels deep as the completion value [#json-depth]`, async () => {
      const result = await runProgram(runtime(), { program: `return ${BUILD_DEEP_SOURCE}`, bindings: [] })
      assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
      assertDeepValue(result.value)
    })
  })
}

function describeReading(runtime: () => CodeRuntime): void {
  void describe('reading values [#json-reading]', () => {
    void it('runs a getter of an argument once', async () => {
      const recorder = recordCalls(() => null)
      const result = await runProgram(runtime(), {
        program: programLines(
          'let reads = 0',
          'await tools.record({ get first() { reads += 1; return reads }, get second() { return reads } })',
          'return reads',
        ),
        bindings: [{ global: 'tools', functions: { record: recorder.fn } }],
      })
      assertValue(result, 1)
      assertJsonEqual(recorder.calls[0]?.[0], { first: 1, second: 1 })
    })

    void it('runs a getter of the completion value once', async () => {
      const result = await runProgram(runtime(), {
        program: 'let reads = 0\nreturn { get first() { reads += 1; return reads }, get second() { return reads } }',
        bindings: [],
      })
      assertValue(result, { first: 1, second: 1 })
    })

    void it('does not call toJSON of an argument, and refuses it', async () => {
      const { namespace, echo } = echoTools()
      const result = await runProgram(runtime(), {
        program: programLines(
          'let toJsonCalls = 0',
          'let rejected = false',
          'try { await tools.echo({ a: 1, toJSON() { toJsonCalls += 1; return { a: 2 } } }) } catch { rejected = true }',
          'return { rejected, toJsonCalls }',
        ),
        bindings: [namespace],
      })
      assertValue(result, { rejected: true, toJsonCalls: 0 })
      assert.equal(echo.calls.length, 0)
    })

    void it('keeps a literal __proto__ key of the completion value as an own key', async () => {
      const result = await runProgram(runtime(), {
        program: `return JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')`,
        bindings: [],
      })
      assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
      const value = result.value as Record<string, unknown>
      assert.ok(Object.hasOwn(value, '__proto__'), 'the value has an own __proto__ key')
      assert.deepEqual(toPlainDescriptorValue(value, '__proto__'), { polluted: true })
      assert.equal(value['a'], 1)
      assert.equal((value as { polluted?: unknown }).polluted, undefined, 'the key did not become the prototype')
    })

    void it('keeps a literal __proto__ key of an argument as an own key', async () => {
      const recorder = recordCalls(() => null)
      await runProgram(runtime(), {
        program: `await tools.record(JSON.parse('{"__proto__": {"polluted": true}}'))`,
        bindings: [{ global: 'tools', functions: { record: recorder.fn } }],
      })
      const received = recorder.calls[0]?.[0] as Record<string, unknown>
      assert.ok(Object.hasOwn(received, '__proto__'), 'the host received an own __proto__ key')
      assert.deepEqual(toPlainDescriptorValue(received, '__proto__'), { polluted: true })
      assert.equal((received as { polluted?: unknown }).polluted, undefined, 'the key did not become the prototype')
    })

    void it('keeps a literal __proto__ key of a resolution as an own key', async () => {
      const reply = recordCalls(() => JSON.parse('{"__proto__": {"polluted": true}}') as CodeJsonValue)
      const result = await runProgram(runtime(), {
        program: programLines(
          'const got = await tools.reply({})',
          'return [Object.hasOwn(got, "__proto__"), Object.getOwnPropertyDescriptor(got, "__proto__")?.value?.polluted === true, got.polluted === undefined, ({}).polluted === undefined]',
        ),
        bindings: [{ global: 'tools', functions: { reply: reply.fn } }],
      })
      assertValue(result, [true, true, true, true])
    })
  })
}

function toPlainDescriptorValue(value: object, key: string): unknown {
  return JSON.parse(JSON.stringify(Object.getOwnPropertyDescriptor(value, key)?.value)) as unknown
}

/** Registers the checks of CONTRACT section #lossless-json. */
export function describeLosslessJson(target: ConformanceTarget): void {
  void describe(`${target.name}: lossless JSON across every boundary [#lossless-json]`, () => {
    const runtime = useRuntime(target)
    describeRefusals(runtime)
    describeAccepted(runtime)
    describeReading(runtime)
  })
}
