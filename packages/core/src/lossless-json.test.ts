import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from './errors.js'
import {
  formatLosslessJsonRefusal,
  isLosslessJson,
  safeLosslessJsonText,
  safeSnapshotLosslessJson,
  snapshotLosslessJson,
  type LosslessJsonRefusal,
} from './lossless-json.js'
import type { CodeJsonValue } from './types.js'

/** Snapshots `value`, asserts it was accepted and that the copy serialises like the original. */
function assertAccepted(value: unknown): CodeJsonValue {
  const result = safeSnapshotLosslessJson(value)
  assert.ok(result.ok, result.ok ? '' : `refused: ${result.error.path} ${result.error.reason}`)
  assert.equal(JSON.stringify(result.value), JSON.stringify(value))
  assert.equal(isLosslessJson(value), true)
  // The one-walk text agrees with the copy on every accepted value.
  assert.deepEqual(safeLosslessJsonText(value), { ok: true, value: JSON.stringify(result.value) })
  return result.value
}

/** Snapshots `value`, asserts it was refused and returns the refusal. */
function assertRefused(value: unknown, path?: string, reasonFragment?: string): LosslessJsonRefusal {
  const result = safeSnapshotLosslessJson(value)
  assert.ok(!result.ok, 'expected a refusal')
  if (path !== undefined) assert.equal(result.error.path, path)
  if (reasonFragment !== undefined) {
    assert.ok(
      result.error.reason.includes(reasonFragment),
      `reason ${JSON.stringify(result.error.reason)} lacks ${JSON.stringify(reasonFragment)}`,
    )
  }
  assert.equal(isLosslessJson(value), false)
  // ...and refuses every refused one with the same path and reason.
  assert.deepEqual(safeLosslessJsonText(value), { ok: false, error: result.error })
  return result.error
}

/** Builds `depth` levels of `[[...[leaf]...]]` or `{a:{a:...leaf}}` without recursion. */
function nest(depth: number, kind: 'array' | 'object', leaf: unknown): unknown {
  let value: unknown = leaf
  for (let level = 0; level < depth; level++) value = kind === 'array' ? [value] : { a: value }
  return value
}

/** Counts the levels of a nested value built by {@link nest} and returns the leaf. */
function unnest(value: unknown, kind: 'array' | 'object'): { depth: number; leaf: unknown } {
  let depth = 0
  let current = value
  while (typeof current === 'object' && current !== null) {
    current = kind === 'array' ? (current as unknown[])[0] : (current as { a: unknown }).a
    depth++
  }
  return { depth, leaf: current }
}

void describe('lossless JSON: accepted values [#json-accepted]', () => {
  void it('accepts null, booleans and finite numbers', () => {
    for (const value of [
      null,
      true,
      false,
      0,
      1,
      -1,
      1.5,
      -2.25,
      1e300,
      -1e-300,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ]) {
      assert.equal(assertAccepted(value), value)
    }
  })

  void it('accepts any string, lone surrogates and control characters included', () => {
    for (const value of ['', 'text', '€', '😀', '\ud800', 'a\udc00b', '\u0000\u001f', '"\\', 'x'.repeat(100_000)]) {
      assert.equal(assertAccepted(value), value)
    }
  })

  void it('accepts dense plain arrays and plain objects, nested', () => {
    const value = { list: [1, 'two', null, true, [], {}], nested: { deeper: { deepest: [[[]]] } }, '': 0, 'a b': -3 }
    const copy = assertAccepted(value)
    assert.deepEqual(copy, value)
    assert.notEqual(copy, value)
  })

  void it('accepts null-prototype objects and returns a plain copy', () => {
    const value = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [2] })
    const copy = assertAccepted(value) as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(copy), Object.prototype)
    assert.deepEqual(copy, { a: 1, b: [2] })
  })

  void it('accepts frozen and sealed values', () => {
    assertAccepted(Object.freeze({ a: Object.freeze([1, 2]) }))
    assertAccepted(Object.seal({ a: Object.seal([1]) }))
  })

  void it('accepts numeric-looking keys and keeps their values', () => {
    const copy = assertAccepted({ 2: 'b', 1: 'a', x: 'c' }) as Record<string, unknown>
    assert.deepEqual(Object.keys(copy), ['1', '2', 'x'])
  })

  void it('accepts own enumerable getters and copies what they return', () => {
    const copy = assertAccepted({
      get computed() {
        return [1, 2]
      },
    }) as Record<string, unknown>
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, 'computed'), {
      value: [1, 2],
      writable: true,
      enumerable: true,
      configurable: true,
    })
  })

  void it('copies a shared non-cyclic reference once per place it appears', () => {
    const shared = { x: 1, list: [1, 2] }
    const value = { a: shared, b: shared, c: [shared, shared] }
    const copy = assertAccepted(value) as { a: unknown; b: unknown; c: unknown[] }
    assert.notEqual(copy.a, shared)
    assert.notEqual(copy.a, copy.b)
    assert.notEqual(copy.c[0], copy.c[1])
    assert.deepEqual(copy.a, shared)
    assert.deepEqual(copy.b, shared)
    assert.deepEqual(copy.c, [shared, shared])
  })

  void it('returns a copy that later changes to the source do not reach', () => {
    const value = { list: [1] }
    const copy = snapshotLosslessJson(value) as { list: number[] }
    value.list.push(2)
    assert.deepEqual(copy.list, [1])
  })
})

void describe('lossless JSON: refused primitives [#json-refused]', () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ['undefined', undefined, 'undefined'],
    ['a function', () => 1, 'function'],
    ['a class', class Point {}, 'function'],
    ['a symbol', Symbol('s'), 'symbol'],
    ['a BigInt', 10n, 'BigInt'],
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['-0', -0, '-0'],
  ]
  for (const [name, value, reason] of cases) {
    void it(`refuses ${name} at the root`, () => {
      assertRefused(value, 'value', reason)
    })
    void it(`refuses ${name} nested in an object`, () => {
      assertRefused({ a: [0, { b: value }] }, 'value.a[1].b', reason)
    })
    void it(`refuses ${name} nested in an array`, () => {
      assertRefused([1, [value]], 'value[1][0]', reason)
    })
  }
})

void describe('lossless JSON: refused objects [#json-refused]', () => {
  class Point {
    x = 1
    y = 2
  }
  class List extends Array<number> {}
  const fakeObjectPrototype = { constructor: Object }
  const nullFakeObjectPrototype = Object.assign(Object.create(null) as object, { constructor: Object })
  const fakeArrayPrototype = Object.assign([] as unknown[], { constructor: Array })

  const cases: ReadonlyArray<readonly [string, () => unknown, string]> = [
    ['a Date', () => new Date(0), 'Date'],
    ['a Map', () => new Map([['a', 1]]), 'Map'],
    ['a Set', () => new Set([1]), 'Set'],
    ['a WeakMap', () => new WeakMap(), 'WeakMap'],
    ['a RegExp', () => /x/g, 'RegExp'],
    ['a Uint8Array', () => new Uint8Array([1, 2]), 'typed array'],
    ['a Float64Array', () => new Float64Array(2), 'typed array'],
    ['an ArrayBuffer', () => new ArrayBuffer(8), 'ArrayBuffer'],
    ['a DataView', () => new DataView(new ArrayBuffer(8)), 'class'],
    ['a Promise', () => Promise.resolve(1), 'Promise'],
    ['an Error', () => new Error('boom'), 'Error'],
    ['a boxed string', () => new String('s'), 'boxed primitive'],
    ['a boxed number', () => new Number(1), 'boxed primitive'],
    ['a class instance', () => new Point(), 'class'],
    ['an array subclass', () => List.from([1, 2]), 'custom prototype'],
    ['an object with a custom prototype', () => Object.create({ inherited: 1 }) as object, 'custom prototype'],
    [
      'an object with a spoofed prototype whose constructor is Object',
      () => Object.create(fakeObjectPrototype) as object,
      'custom prototype',
    ],
    [
      'an object with a null-prototype fake of Object.prototype',
      () => Object.create(nullFakeObjectPrototype) as object,
      'custom prototype',
    ],
    [
      'an array with a spoofed Array prototype',
      () => Object.setPrototypeOf([1], fakeArrayPrototype) as unknown,
      'custom prototype',
    ],
    ['an array with a null prototype', () => Object.setPrototypeOf([1], null) as unknown, 'custom prototype'],
    [
      'an object whose prototype is an array',
      () => Object.setPrototypeOf({}, Array.prototype) as unknown,
      'custom prototype',
    ],
    [
      'an arguments object',
      () =>
        (function (..._rest: unknown[]) {
          // eslint-disable-next-line prefer-rest-params -- the arguments object itself is the case
          return arguments
        })(1, 2),
      'hidden',
    ],
    ['a Proxy of an object', () => new Proxy({ a: 1 }, {}), 'Proxy'],
    ['a Proxy of an array', () => new Proxy([1], {}), 'Proxy'],
    [
      'a revoked Proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {})
        revoke()
        return proxy
      },
      'Proxy',
    ],
  ]
  for (const [name, make, reason] of cases) {
    void it(`refuses ${name}`, () => {
      assertRefused(make(), 'value', reason)
      assertRefused({ nested: [make()] }, 'value.nested[0]', reason)
    })
  }

  void it('refuses a sparse array', () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    assertRefused([1, , 3], 'value', 'sparse')
    assertRefused(new Array(3), 'value', 'sparse')
    const grown = [1]
    grown.length = 2
    assertRefused({ list: grown }, 'value.list', 'sparse')
  })

  void it('refuses a sparse array whose extra property hides the hole from a key count', () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    const holey = Object.assign([1, , 3], { extra: 1 })
    assertRefused(holey, 'value')
  })

  void it('refuses arrays with extra, hidden or symbol-keyed properties', () => {
    assertRefused(Object.assign([1], { extra: 1 }), 'value', 'extra properties')
    assertRefused(Object.defineProperty([1], 'hidden', { value: 1, enumerable: false }), 'value', 'extra properties')
    assertRefused(Object.assign([1], { [Symbol('s')]: 1 }), 'value', 'extra properties')
  })

  void it('refuses objects with hidden or symbol-keyed properties', () => {
    assertRefused(Object.defineProperty({ a: 1 }, 'hidden', { value: 1, enumerable: false }), 'value', 'hidden')
    assertRefused({ a: 1, [Symbol('s')]: 1 }, 'value', 'symbol-keyed')
    assertRefused({ a: { [Symbol.iterator]: 1 } }, 'value.a', 'symbol-keyed')
    // Names and symbols are counted apart: a hidden symbol, a hidden name beside index-like keys,
    // and either on a null-prototype object are each refused on their own.
    assertRefused(
      Object.defineProperty({ a: 1 }, Symbol('s'), { value: 1, enumerable: false }),
      'value',
      'symbol-keyed',
    )
    assertRefused(
      Object.defineProperty({ 0: 'x', 1: 'y' }, 'hidden', { value: 1, enumerable: false }),
      'value',
      'hidden',
    )
    const bare = Object.create(null) as Record<string | symbol, unknown>
    bare['a'] = 1
    bare[Symbol('s')] = 1
    assertRefused({ list: [bare] }, 'value.list[0]', 'symbol-keyed')
  })

  void it('refuses a cycle, naming where it closes', () => {
    const object: Record<string, unknown> = { a: 1 }
    object['self'] = object
    assertRefused(object, 'value.self', 'cycle')
    const list: unknown[] = [1]
    list.push([list])
    assertRefused(list, 'value[1][0]', 'cycle')
    const deep = nest(50, 'object', null) as Record<string, unknown>
    let last = deep
    while (typeof last['a'] === 'object' && last['a'] !== null) last = last['a'] as Record<string, unknown>
    last['a'] = deep
    assertRefused(deep, undefined, 'cycle')
  })

  void it('never runs a trap of a Proxy', () => {
    let traps = 0
    const handler = new Proxy(
      {},
      {
        get: () => {
          traps++
          return undefined
        },
      },
    )
    assertRefused({ a: new Proxy({ b: 1 }, handler as ProxyHandler<object>) }, 'value.a', 'Proxy')
    assertRefused(new Proxy([], handler as ProxyHandler<object>), 'value', 'Proxy')
    assert.equal(traps, 0)
  })

  void it('never runs a trap of a Proxy used as a prototype', () => {
    let traps = 0
    const handler = new Proxy(
      {},
      {
        get: () => {
          traps++
          return undefined
        },
      },
    )
    const prototype = new Proxy(Object.prototype, handler as ProxyHandler<object>)
    assertRefused({ a: Object.create(prototype) as object }, 'value.a', 'custom prototype')
    assertRefused(
      Object.setPrototypeOf([1], new Proxy(Array.prototype, handler as ProxyHandler<object>)) as unknown,
      'value',
      'custom prototype',
    )
    assert.equal(traps, 0)
  })
})

void describe('lossless JSON: reading [#json-reading]', () => {
  void it('runs each getter exactly once', () => {
    let objectReads = 0
    let arrayReads = 0
    const list = [0]
    Object.defineProperty(list, 0, {
      get: () => {
        arrayReads++
        return 'element'
      },
      enumerable: true,
    })
    const value = {
      get counted() {
        objectReads++
        return { list }
      },
    }
    const copy = snapshotLosslessJson(value)
    assert.deepEqual(copy, { counted: { list: ['element'] } })
    assert.equal(objectReads, 1)
    assert.equal(arrayReads, 1)
  })

  void it('refuses a value whose getter throws, naming the property', () => {
    const value = {
      a: [
        {
          get b(): number {
            throw new Error('no')
          },
        },
      ],
    }
    assertRefused(value, 'value.a[0].b', 'getter that threw')
  })

  void it('refuses a getter that deletes a later key instead of reading past it', () => {
    const value: Record<string, unknown> = {
      get first() {
        delete value['second']
        return 1
      },
      second: 2,
    }
    const result = safeSnapshotLosslessJson(value)
    assert.ok(!result.ok)
    assert.equal(result.error.path, 'value.second')
  })

  void it('never calls toJSON', () => {
    let calls = 0
    const toJSON = (): string => {
      calls++
      return 'replaced'
    }
    assertRefused({ a: 1, toJSON }, 'value.toJSON', 'function')
    assertRefused(Object.defineProperty({ a: 1 }, 'toJSON', { value: toJSON, enumerable: false }), 'value', 'hidden')
    assertRefused(Object.assign(new Date(0), { toJSON }), 'value', 'Date')
    assertAccepted({ toJSON: 'just a string' })
    assert.equal(calls, 0)
  })

  void it('keeps a literal own __proto__ key as an ordinary key of the copy', () => {
    const parsed = JSON.parse('{"__proto__": 1, "nested": {"__proto__": {"polluted": true}}}') as unknown
    const copy = snapshotLosslessJson(parsed) as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(copy), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__'), {
      value: 1,
      writable: true,
      enumerable: true,
      configurable: true,
    })
    const nested = copy['nested'] as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(nested), Object.prototype)
    assert.ok(Object.hasOwn(nested, '__proto__'))
    assert.equal((nested as { polluted?: unknown }).polluted, undefined)
    assert.equal(JSON.stringify(copy), '{"__proto__":1,"nested":{"__proto__":{"polluted":true}}}')
  })
})

void describe('lossless JSON: depth [#json-depth]', () => {
  for (const depth of [3_000, 100_000]) {
    for (const kind of ['array', 'object'] as const) {
      void it(`copies ${depth} levels of nested ${kind}s without overflowing the stack`, () => {
        const value = nest(depth, kind, 'leaf')
        const result = safeSnapshotLosslessJson(value)
        assert.ok(result.ok)
        assert.notEqual(result.value, value)
        assert.deepEqual(unnest(result.value, kind), { depth, leaf: 'leaf' })
      })

      void it(`refuses a bad leaf under ${depth} levels of nested ${kind}s with a short path`, () => {
        const refusal = assertRefused(nest(depth, kind, Number.NaN), undefined, 'NaN')
        const step = kind === 'array' ? '[0]' : '.a'
        assert.ok(refusal.path.startsWith(`value${step.repeat(12)}`))
        assert.ok(refusal.path.endsWith(step.repeat(12)))
        assert.ok(refusal.path.includes(`...(${depth - 24} more levels)...`))
        assert.ok(refusal.path.length < 120)
      })
    }
  }
})

void describe('lossless JSON: refusal reports', () => {
  void it('names the path with dots for identifiers and brackets otherwise', () => {
    assertRefused({ a: [0, { b: undefined }] }, 'value.a[1].b')
    assertRefused({ 'a b': { 'x-y': [undefined] } }, 'value["a b"]["x-y"][0]')
    assertRefused({ $id: { _k9: undefined } }, 'value.$id._k9')
    assertRefused({ '9': undefined }, 'value["9"]')
  })

  void it('shows every step of a path up to 24 levels deep', () => {
    assertRefused(nest(24, 'array', undefined), `value${'[0]'.repeat(24)}`)
    assertRefused(nest(25, 'array', undefined), `value${'[0]'.repeat(12)}...(1 more level)...${'[0]'.repeat(12)}`)
  })

  void it('names the array itself when it has a hole', () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    const holey = Object.assign([1, , 3], { extra: 1 })
    assertRefused({ a: { b: holey } }, 'value.a.b', 'sparse')
  })

  void it('uses the root label it is given', () => {
    const result = safeSnapshotLosslessJson({ filters: [1, 2, new Map()] }, { rootLabel: 'args' })
    assert.ok(!result.ok)
    assert.deepEqual(result.error, { path: 'args.filters[2]', reason: 'is a Map' })
    assert.equal(formatLosslessJsonRefusal(result.error).startsWith('args.filters[2] is a Map; '), true)
  })

  void it('throws CODE_RUNTIME_NOT_LOSSLESS_JSON from snapshotLosslessJson with the path and reason', () => {
    let caught: unknown
    try {
      snapshotLosslessJson({ when: new Date(0) }, { rootLabel: 'result' })
    } catch (error) {
      caught = error
    }
    assert.ok(CodeRuntimeError.is(caught))
    assert.equal(caught.code, 'CODE_RUNTIME_NOT_LOSSLESS_JSON')
    assert.equal(caught.field, 'result.when')
    assert.ok(caught.rule?.includes('Date'))
    assert.ok(caught.message.includes('result.when is a Date'))
    assert.ok(caught.message.includes('toISOString'))
  })

  void it('formats a refusal as one sentence that says what to pass instead', () => {
    const message = formatLosslessJsonRefusal({ path: 'value.a', reason: 'is a Set' })
    assert.ok(message.startsWith('value.a is a Set; '))
    assert.ok(message.includes('plain arrays and objects'))
    assert.ok(message.endsWith('.'))
  })
})
