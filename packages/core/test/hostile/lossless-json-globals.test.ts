// Attack class: intrinsic tampering. Code that shares a realm with the validator replaces the
// globals and prototype methods it might call, hoping to make a bad value pass or a good value
// fail (CONTRACT section #poisoned-realm: the program cannot change the validator by mutating globals or prototypes).
// Values from another realm (a `vm` context, where programs run) must be judged the same way.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { safeSnapshotLosslessJson, type LosslessJsonSnapshot } from '@code-runtime/core/json'

const { getOwnPropertyDescriptor, defineProperty, deleteProperty } = Reflect

type Replacement = readonly [target: object, key: PropertyKey, value: unknown]

/**
 * Runs `action` with every replacement installed and restores the originals before returning,
 * even if `action` throws. Nothing else (no assertion, no test-runner code) runs in between, and
 * the helper itself uses only plain loops, since iterators are among the things replaced.
 */
function withTamperedIntrinsics<T>(replacements: readonly Replacement[], action: () => T): T {
  const count = replacements.length
  const saved: Array<PropertyDescriptor | undefined> = []
  for (let index = 0; index < count; index++) {
    const replacement = replacements[index] as Replacement
    saved[index] = getOwnPropertyDescriptor(replacement[0], replacement[1])
  }
  try {
    for (let index = 0; index < count; index++) {
      const replacement = replacements[index] as Replacement
      defineProperty(replacement[0], replacement[1], {
        value: replacement[2],
        writable: true,
        configurable: true,
        enumerable: false,
      })
    }
    return action()
  } finally {
    for (let index = count - 1; index >= 0; index--) {
      const replacement = replacements[index] as Replacement
      const descriptor = saved[index]
      if (descriptor === undefined) deleteProperty(replacement[0], replacement[1])
      else defineProperty(replacement[0], replacement[1], descriptor)
    }
  }
}

const explode = (): never => {
  throw new Error('tampered intrinsic was called')
}
const lie = (answer: unknown) => () => answer

function everyTampering(): Replacement[] {
  const fakeConstructor = function Object() {
    /* not native */
  }
  return [
    [globalThis, 'Object', fakeConstructor],
    [globalThis, 'Array', explode],
    [globalThis, 'JSON', { stringify: explode, parse: explode }],
    [globalThis, 'Reflect', { ownKeys: lie([]), getPrototypeOf: lie(null), apply: explode }],
    [globalThis, 'String', explode],
    [globalThis, 'Number', explode],
    [globalThis, 'Set', explode],
    [globalThis, 'WeakSet', explode],
    [Object, 'keys', lie([])],
    [Object, 'getPrototypeOf', lie(null)],
    [Object, 'getOwnPropertyDescriptor', lie(undefined)],
    [Object, 'defineProperty', explode],
    [Object, 'hasOwn', lie(true)],
    [Object, 'entries', lie([])],
    [Array, 'isArray', lie(false)],
    [Array.prototype, 'push', explode],
    [Array.prototype, 'pop', explode],
    [Array.prototype, 'includes', explode],
    [Array.prototype, Symbol.iterator, explode],
    [Set.prototype, 'has', lie(false)],
    [Set.prototype, 'add', explode],
    [Set.prototype, 'delete', explode],
    [WeakSet.prototype, 'has', lie(true)],
    [WeakSet.prototype, 'add', explode],
    [Function.prototype, 'toString', lie('function Object() { [native code] }')],
    [Function.prototype, 'call', explode],
    [Function.prototype, 'apply', explode],
    [Function.prototype, 'bind', explode],
    [String.prototype, 'charCodeAt', explode],
    [String.prototype, 'slice', explode],
    [RegExp.prototype, 'exec', explode],
    [RegExp.prototype, 'test', explode],
    [Number, 'isFinite', lie(true)],
    [Number, 'isNaN', lie(false)],
  ]
}

class Point {
  x = 1
}

/** A prototype that claims to be Object.prototype: its constructor prints as native `Object`. */
function spoofedPrototype(): object {
  const prototype = Object.create(null) as Record<string, unknown>
  function Object_(): void {
    /* pretends to be Object */
  }
  Object.defineProperty(Object_, 'prototype', { value: prototype, writable: false })
  Object.defineProperty(Object_, 'name', { value: 'Object' })
  prototype['constructor'] = Object_
  return prototype
}

void describe('lossless JSON against tampered intrinsics [#poisoned-realm]', () => {
  void it('still copies good values and refuses bad ones after globals and prototype methods are replaced', () => {
    let counted = 0
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic['self'] = cyclic
    const shared = { s: 1 }
    const spoofed = Object.create(spoofedPrototype()) as object
    const inputs: Record<string, unknown> = {
      good: { a: [1, { b: 2 }], 'x-y': 'z', '': null, nested: { deeper: [true, false, 'text', -1.5] } },
      shared: { left: shared, right: shared },
      proto: JSON.parse('{"__proto__": {"polluted": 1}}') as unknown,
      getter: {
        get once() {
          counted++
          return 1
        },
      },
      deep: Array.from({ length: 2_000 }).reduce<unknown>(inner => [inner], 'leaf'),
      cycle: cyclic,
      map: { m: new Map() },
      instance: { p: new Point() },
      spoofed: { s: spoofed },
      nan: { n: Number.NaN },
      negativeZero: [-0],
      // eslint-disable-next-line no-sparse-arrays -- the hole is the point
      sparse: [1, , 3],
      hidden: Object.defineProperty({}, 'h', { value: 1, enumerable: false }),
      symbolKey: { [Symbol('k')]: 1 },
      extraKey: Object.assign([1], { extra: true }),
      undefinedLeaf: { u: undefined },
      proxy: { p: new Proxy({}, {}) },
    }
    const names = Object.keys(inputs)
    const results = withTamperedIntrinsics(everyTampering(), () => {
      const output: Record<string, LosslessJsonSnapshot> = {}
      for (let index = 0; index < names.length; index++) {
        const name = names[index] as string
        output[name] = safeSnapshotLosslessJson(inputs[name])
      }
      return output
    })

    const good = results['good']
    assert.ok(good?.ok)
    assert.deepEqual(good.value, inputs['good'])
    const sharedCopy = results['shared']
    assert.ok(sharedCopy?.ok)
    assert.deepEqual(sharedCopy.value, { left: { s: 1 }, right: { s: 1 } })
    const protoCopy = results['proto']
    assert.ok(protoCopy?.ok)
    assert.ok(Object.hasOwn(protoCopy.value as object, '__proto__'))
    assert.equal(Object.getPrototypeOf(protoCopy.value), Object.prototype)
    assert.ok(results['getter']?.ok)
    assert.equal(counted, 1)
    assert.ok(results['deep']?.ok)

    const expectedRefusals: Record<string, readonly [string, string]> = {
      cycle: ['value.self', 'cycle'],
      map: ['value.m', 'Map'],
      instance: ['value.p', 'class'],
      spoofed: ['value.s', 'custom prototype'],
      nan: ['value.n', 'NaN'],
      negativeZero: ['value[0]', '-0'],
      sparse: ['value', 'sparse'],
      hidden: ['value', 'hidden'],
      symbolKey: ['value', 'symbol-keyed'],
      extraKey: ['value', 'extra properties'],
      undefinedLeaf: ['value.u', 'undefined'],
      proxy: ['value.p', 'Proxy'],
    }
    for (const [name, [path, reason]] of Object.entries(expectedRefusals)) {
      const result = results[name]
      assert.ok(result !== undefined && !result.ok, `${name} was accepted`)
      assert.equal(result.error.path, path, name)
      assert.ok(result.error.reason.includes(reason), `${name}: ${result.error.reason}`)
    }
  })

  void it('refuses a prototype whose constructor is a non-native function named Object', () => {
    // The spoof holds even without tampering: its constructor's source is not native code.
    const result = safeSnapshotLosslessJson(Object.create(spoofedPrototype()))
    assert.ok(!result.ok)
    assert.ok(result.error.reason.includes('custom prototype'))
  })

  void it('refuses a prototype whose constructor is a bound native Object', () => {
    const prototype = Object.create(null) as Record<string, unknown>
    const bound = Object.bind(null)
    Object.defineProperty(bound, 'prototype', { value: prototype, writable: false })
    prototype['constructor'] = bound
    const result = safeSnapshotLosslessJson({ a: Object.create(prototype) })
    assert.ok(!result.ok)
    assert.equal(result.error.path, 'value.a')
  })
})

void describe('lossless JSON across realms [#json-accepted]', () => {
  void it('accepts plain objects and arrays from another realm and copies them into this one', () => {
    const value = vm.runInNewContext('({ a: [1, { b: 2 }], n: Object.create(null) })') as Record<string, unknown>
    assert.notEqual(Object.getPrototypeOf(value), Object.prototype)
    const result = safeSnapshotLosslessJson(value)
    assert.ok(result.ok)
    assert.deepEqual(result.value, { a: [1, { b: 2 }], n: {} })
    const copy = result.value as { a: unknown[] }
    assert.equal(Object.getPrototypeOf(copy), Object.prototype)
    assert.equal(Object.getPrototypeOf(copy.a), Array.prototype)
  })

  void it('accepts values from a realm whose program replaced its own globals', () => {
    const value = vm.runInNewContext(`
      const value = { a: [1, { b: 2 }] }
      Object.keys = () => []
      Array.isArray = () => false
      Array.prototype.push = () => { throw new Error('no') }
      Object.prototype.polluted = 1
      globalThis.Object = null
      globalThis.JSON = null
      globalThis.Reflect = null
      value
    `) as unknown
    const result = safeSnapshotLosslessJson(value)
    assert.ok(result.ok)
    assert.equal(JSON.stringify(result.value), '{"a":[1,{"b":2}]}')
  })

  void it('refuses non-plain values from another realm', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['new Map()', 'Map'],
      ['new Date(0)', 'Date'],
      ['new (class Point { x = 1 })()', 'class'],
      ['class List extends Array {}; List.from([1])', 'custom prototype'],
      ['[1, , 3]', 'sparse'],
      ['const p = Object.create(null); p.constructor = Object; Object.create(p)', 'custom prototype'],
      ['Object.create({ constructor: Object })', 'custom prototype'],
      ['new Proxy({}, {})', 'Proxy'],
      ['const o = { a: 1 }; o.self = o; o', 'cycle'],
      ['({ n: NaN })', 'NaN'],
      ['({ f() {} })', 'function'],
    ]
    for (const [source, reason] of cases) {
      const result = safeSnapshotLosslessJson(vm.runInNewContext(source))
      assert.ok(!result.ok, `${source} was accepted`)
      assert.ok(result.error.reason.includes(reason), `${source}: ${result.error.reason}`)
    }
  })

  void it('reads each property of a value from another realm once', () => {
    const context = vm.createContext({})
    const value = vm.runInContext(
      'globalThis.reads = 0; ({ get x() { globalThis.reads++; return [1] } })',
      context,
    ) as unknown
    const result = safeSnapshotLosslessJson(value)
    assert.ok(result.ok)
    assert.deepEqual(result.value, { x: [1] })
    assert.equal(vm.runInContext('reads', context), 1)
  })
})
