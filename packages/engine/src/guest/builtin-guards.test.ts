import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { types } from 'node:util'
import type { installBuiltinGuards } from './builtin-guards.js'
import { compileContextScript } from './context-script.js'

const guardsScript = compileContextScript<typeof installBuiltinGuards>('code-runtime:guards')

/** A fresh context, guarded with a small limit (32) unless `guarded` is false. */
function contextWith(guarded: boolean): (code: string) => unknown {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
  if (guarded) {
    const install = guardsScript.runIn(context)
    install({ isProxy: value => types.isProxy(value) }, { maxArrayLength: 32 })
  }
  // JSON of this realm: the context's own JSON.parse is one of the guarded built-ins.
  return code => JSON.parse(JSON.stringify(vm.runInContext(code, context)) ?? 'null') as unknown
}

/** The name of what `expression` throws, or 'none'. */
const nameOfError = (expression: string): string =>
  `(() => { try { ${expression}; return 'none' } catch (error) { return error.constructor.name } })()`

/**
 * `call` on `subject`, a proxy over a 40-long array-like with holes, and the list of every
 * operation it made on it: two realms must agree on the result, the operations and their order.
 */
const traced = (call: string): string => `(() => {
  const log = []
  const target = { length: 40, 0: 'a', 2: 'b', 37: 'y', 39: 'z' }
  const trap = (name) => (...args) => { log.push(name + ':' + String(args[1])); return Reflect[name](...args) }
  const subject = new Proxy(target, { get: trap('get'), has: trap('has'), set: trap('set'), deleteProperty: trap('deleteProperty'), defineProperty: trap('defineProperty') })
  const result = ${call}
  return [result === subject ? 'the receiver' : result, log, target]
})()`

/** What a guarded call threw, or 'ok'. */
const outcomeOf = (expression: string): string =>
  `(() => { try { ${expression}; return 'ok' } catch (error) { return error instanceof RangeError ? 'RangeError' : String(error) } })()`

// Each expression is evaluated in a plain context and in a guarded one: the results must agree.
const SAME_RESULTS = [
  '[1, 2, 3, 2].indexOf(2, -2)',
  '[1, 2, 3, 2].lastIndexOf(2, -2)',
  '[1, 2, 3, 2].lastIndexOf(2, undefined)',
  '[1, 2, 3].lastIndexOf(3)',
  '[NaN].includes(NaN)',
  '[1, 2, 3].includes(1, 1)',
  'Array.prototype.indexOf.call({ length: 3, 2: "x" }, "x")',
  '[1, 2, 3, 4, 5].fill(0, -3)',
  '[1, 2, 3, 4, 5].fill(9, NaN, NaN)',
  '[1, 2, 3, 4, 5].fill(7, 1, -1)',
  'new Array(40).fill(2, 35)',
  '[1, 2, 3, 4, 5].slice(-2)',
  '[1, 2, 3, 4, 5].slice(1, { valueOf: () => 3 })',
  '(() => { const a = [1, 2, 3, 4]; const removed = a.splice(1, 2, "x"); return [a, removed] })()',
  '[1, 2, 3, 4, 5].copyWithin(0, 3)',
  '[1, 2, 3, 4, 5].copyWithin(-2, 0, 2)',
  '[1, 2, 3].toSpliced(1, 1)',
  '[1, 2, 3].with(-1, 9)',
  '[3, 1, 2].toSorted()',
  '[1, 2].concat([3], 4, { length: 2, 0: "a", 1: "b", [Symbol.isConcatSpreadable]: true })',
  '[1].concat({ length: 2 })',
  '[].concat.call("ab", [1])',
  '[1, [2, [3, [4]]]].flat()',
  '[1, [2, [3, [4]]]].flat(Infinity)',
  '[1, , [2, , 3]].flat()',
  '[1, 2].flatMap((x) => [x, [x * 10]])',
  '[[1], [2]].flat(-1)',
  'Array.from("héllo")',
  'Array.from({ length: 3 }, (_, i) => i * 2)',
  'Array.from(new Set([1, 2]))',
  'Array.from([1, 2].entries())',
  '"a,b,,c".split(",")',
  '"abc".split("")',
  '"a1b2c".split(/\\d/)',
  '"a,b,c".split(",", 2)',
  '"abc".split()',
  '"abc".split(undefined, 0)',
  '"a-b".split({ toString: () => "-" })',
  'Object.keys("ab")',
  'Object.entries("ab")',
  'Object.assign({}, "ab")',
  'Object.getOwnPropertyNames(new Uint8Array(2))',
  'Array.prototype.map.call(new Uint8Array([1, 2, 255]), (b) => b.toString(16).padStart(2, "0")).join("")',
  'Array.prototype.join.call("abc", "-")',
  '(() => { const o = { length: 2, 0: "a", 1: "b" }; return Array.prototype.reverse.call(o) === o })()',
  '(() => { const o = { length: 2, 0: 2, 1: 1 }; return Array.prototype.sort.call(o) === o })()',
  '(() => { let reads = 0; Array.prototype.indexOf.call({ get length() { reads++; return 3 } }, 1); return reads })()',
  '(() => { let calls = 0; [1, 2, 3].fill(0, { valueOf() { calls++; return 1 } }); return calls })()',
  '"aaa".replaceAll("a", "b")',
  '"a.b.c".replaceAll(".", "")',
  '"abcb".match(/b/g)',
  '"abcb".replace(/b/g, "x")',
  'JSON.parse("[1,{\\"a\\":2}]", (k, v) => typeof v === "number" ? v + 1 : v)',
  '[1, 2, 3].reduce((a, b) => a + b)',
  '[1, 2, 3].findLast((x) => x < 3)',
  'Array.prototype.unshift.call({ length: 1, 0: "a" }, "b")',
  '[..."héllo👋"]',
  'Math.max(..."1293")',
  '[...new Uint8Array([1, 2, 3])]',
  'Array.from(new Uint16Array([4, 5]).entries())',
  '[...new Int8Array(2).keys()]',
  '(() => { const seen = []; for (const c of new String("ab")) seen.push(c); return seen })()',
  'Array.from("ab"[Symbol.iterator]())',
  '(() => { try { String.prototype[Symbol.iterator].call(null) } catch (error) { return error.constructor.name } })()',
  '(() => { try { String.prototype[Symbol.iterator].call(Symbol()) } catch (error) { return error.constructor.name } })()',
  '(() => { try { Uint8Array.prototype.values.call([]) } catch (error) { return error.constructor.name } })()',
  '[String.prototype[Symbol.iterator].name, String.prototype[Symbol.iterator].length, Uint8Array.prototype.values.name, Uint8Array.prototype[Symbol.iterator] === Uint8Array.prototype.values]',
  '[Array.prototype.flat.length, Array.prototype.flatMap.length, Array.prototype.concat.length, Array.from.length, "".split.length, Array.prototype.indexOf.length, JSON.parse.length]',
]

describe('builtin guards', () => {
  it('leave every result within the limit as the plain built-ins give it', () => {
    const plain = contextWith(false)
    const guarded = contextWith(true)
    for (const expression of SAME_RESULTS) assert.deepEqual(guarded(expression), plain(expression), expression)
  })

  // Sizes as the spec computes them: relative indexes, NaN as 0, an absent end as the length.
  it('refuse a walk or an array longer than the limit, sized as the spec does', () => {
    const guarded = contextWith(true)
    const cases: [string, string][] = [
      ['new Array(33).fill(0)', 'RangeError'],
      ['new Array(33).fill(0, 1)', 'ok'],
      ['new Array(100).fill(0, NaN)', 'RangeError'],
      ['new Array(100).fill(0, -32)', 'ok'],
      ['new Array(100).fill(0, -33)', 'RangeError'],
      ['new Array(100).fill(0, 0, NaN)', 'ok'],
      ['new Array(100).fill(0, { valueOf: () => NaN })', 'RangeError'],
      ['new Array(100).fill(0, 50, -18)', 'ok'],
      ['Array.prototype.indexOf.call({ length: 1e9 }, 1, -32)', 'ok'],
      ['Array.prototype.lastIndexOf.call({ length: 1e9 }, 1, 31)', 'ok'],
      ['Array.prototype.includes.call({ length: 0 }, 1, { valueOf() { throw new Error("not read") } })', 'ok'],
      ['Array.prototype.slice.call({ length: 1e9 }, -5)', 'ok'],
      ['Array.prototype.slice.call({ length: 1e9 })', 'RangeError'],
      ['Array.prototype.copyWithin.call({ length: 1e9 }, 0, -3)', 'ok'],
      ['Array.prototype.splice.call({ length: 1e9 }, -2, 1)', 'ok'],
      ['Array.prototype.join.call({ length: 33 })', 'RangeError'],
      ['Array.prototype.map.call({ length: 33 }, () => {})', 'RangeError'],
      ['Array.prototype.unshift.call({ length: 1e9 })', 'ok'],
      ['Array.prototype.toSpliced.call({ length: 31 }, 0, 0, 1, 2)', 'RangeError'],
      ['[].concat(new Array(20), { length: 1e9 })', 'ok'],
      ['Array.from({ length: 33 })', 'RangeError'],
      ['Array.from("a".repeat(33))', 'RangeError'],
      ['Array.from({ length: 1e9, [Symbol.iterator]: function* () { yield 1 } })', 'ok'],
      ['"a".repeat(40).split("")', 'RangeError'],
      ['"a".repeat(40).split("", 5)', 'ok'],
      ['"a,".repeat(40).split(",")', 'RangeError'],
      ['"a".repeat(40).split(",")', 'ok'],
      ['"a".repeat(40).split(/(?:)/)', 'RangeError'],
      ['"a".repeat(40).split(/(?:)/, 3)', 'ok'],
      ['Object.keys("ab")', 'ok'],
      ['Object.keys("abc")', 'RangeError'],
      ['Object.values(new String("abc"))', 'RangeError'],
      ['Object.entries(new Uint8Array(3))', 'RangeError'],
      ['Reflect.ownKeys(new String("abc"))', 'RangeError'],
      ['"a".repeat(40).match(/a/g)', 'RangeError'],
      ['"a".repeat(40).replace(/a/g, "")', 'RangeError'],
      ['"a".repeat(40).replaceAll("a", "")', 'RangeError'],
      ['"a".repeat(40).replaceAll("b", "")', 'ok'],
      ['JSON.parse("[" + "0,".repeat(40) + "0]")', 'RangeError'],
      ['[..."a".repeat(33)]', 'RangeError'],
      ['[..."a".repeat(32)]', 'ok'],
      ['Math.max(..."1".repeat(33))', 'RangeError'],
      ['for (const c of "a".repeat(33)) {}', 'RangeError'],
      ['Array.from(new String("a".repeat(33)))', 'RangeError'],
      ['"a".repeat(33)[Symbol.iterator]()', 'RangeError'],
      ['[...new Uint8Array(33)]', 'RangeError'],
      ['[...new Uint8Array(32)]', 'ok'],
      ['Array.from(new Uint8Array(33))', 'RangeError'],
      ['new Float64Array(33).entries()', 'RangeError'],
      ['new Uint8Array(33).keys()', 'RangeError'],
      ['new Uint8Array(33).subarray(1).values()', 'ok'],
      ['[new Array(20).fill(1), new Array(20).fill(1)].flat()', 'RangeError'],
      ['[new Array(40)].flat()', 'ok'],
    ]
    for (const [expression, expected] of cases) assert.equal(guarded(outcomeOf(expression)), expected, expression)
  })

  // Past the limit a search or a callback walker is the spec's own loop: an answer found early is
  // exact, and the rest is the program's time, which the compute budget stops.
  it('walk past the limit as the spec does when the method can stop early', () => {
    const plain = contextWith(false)
    const guarded = contextWith(true)
    const expressions = [
      'Array.prototype.indexOf.call({ length: 2 ** 53 - 1, 3: "x" }, "x")',
      'Array.prototype.indexOf.call({ length: 40, 35: "x" }, "x", -10)',
      'Array.prototype.indexOf.call({ length: 40, 35: "x" }, "y")',
      'Array.prototype.indexOf.call({ length: 40 }, undefined)',
      'Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1, [2 ** 53 - 2]: "x" }, "x")',
      'Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1, 5: "x" }, "x", 10)',
      'Array.prototype.lastIndexOf.call({ length: 40, 5: "x" }, "x", -36)',
      'Array.prototype.lastIndexOf.call({ length: 40, 5: "x" }, "x", -Infinity)',
      'Array.prototype.includes.call({ length: 2 ** 53 - 1, 2: NaN }, NaN)',
      'Array.prototype.includes.call({ length: 40 }, undefined)',
      'Array.prototype.some.call({ length: 2 ** 53 - 1, 0: 1 }, (x) => x === 1)',
      'Array.prototype.every.call({ length: 2 ** 53 - 1, 0: 1 }, (x) => x !== 1)',
      '(() => { const seen = []; Array.prototype.forEach.call({ length: 40, 3: "a", 39: "b" }, (x, i) => seen.push([x, i])); return seen })()',
      'Array.prototype.reduce.call({ length: 40, 3: 1, 39: 2 }, (a, b) => a + b)',
      'Array.prototype.reduceRight.call({ length: 40, 3: "a", 39: "b" }, (a, b) => a + b, "")',
      '(() => { try { Array.prototype.some.call({ length: 40 }) } catch (error) { return error.constructor.name } })()',
      '(() => { try { Array.prototype.reduce.call({ length: 40 }, () => 0) } catch (error) { return error.constructor.name } })()',
      'new Array(40).indexOf(undefined)',
      '(() => { const a = new Array(40); a[38] = 7; return [a.indexOf(7), a.lastIndexOf(7), a.includes(7), a.some((x) => x === 7)] })()',
      // The methods that move or copy elements, past the limit: the same operations in the same order.
      traced('Array.prototype.reverse.call(subject)'),
      traced('Array.prototype.splice.call(subject, 1, 2, "x")'),
      traced('Array.prototype.splice.call(subject, 3)'),
      traced('Array.prototype.unshift.call(subject, "u", "v")'),
      traced('Array.prototype.concat.call(subject, subject, 1)'),
      '(() => { class Listing extends Array {} const list = new Listing(); for (let i = 0; i < 40; i++) list.push(i); const cut = list.splice(2, 3); return [cut instanceof Listing, cut, list.length] })()',
      '(() => { const a = []; for (let i = 0; i < 40; i++) a.push(i); return [a.reverse()[0], a.unshift(-1), a[0], a.splice(0, 35).length, a] })()',
      '[].concat(new Array(20), new Array(13), [1]).length',
      'Object.keys([].concat(new Array(20), [1, 2], new Array(13), [3]))',
      'Array.prototype.toSpliced.call({ length: 2 ** 53 - 1, [2 ** 53 - 3]: "a", [2 ** 53 - 2]: "b" }, 0, 2 ** 53 - 3)',
      nameOfError('Array.prototype.toSpliced.call({ length: 2 ** 53 - 1 }, 0, 0, 1)'),
      nameOfError('Array.prototype.splice.call({ length: 2 ** 53 - 1 }, 0, 0, 1)'),
      nameOfError('Array.prototype.unshift.call({ length: 2 ** 53 - 1 }, 1)'),
      nameOfError('[1].concat({ length: 2 ** 53 - 1, [Symbol.isConcatSpreadable]: true })'),
      // What the spec reads first, and the length it keeps, whatever the arguments' conversions do.
      nameOfError('Array.prototype.sort.call({ get length() { throw new Error("length read first") } }, null)'),
      nameOfError('Array.prototype.toSorted.call({ get length() { throw new Error("length read first") } }, 1)'),
      '(() => { const log = []; const a = []; Object.defineProperty(a, "constructor", { get() { log.push("constructor"); return Array } }); Object.defineProperty(a, Symbol.isConcatSpreadable, { get() { log.push("spreadable") } }); a.concat(1); return log })()',
      '(() => { const a = []; for (let i = 0; i < 30; i++) a.push(i); a.copyWithin(0, { valueOf() { a.length = 5; return 25 } }); return [a.length, Object.keys(a)] })()',
      '(() => { const bytes = new Uint8Array([1, 2, 3]); let same = true; Array.prototype.every.call(bytes, (_, __, seen) => (same = same && seen === bytes)); return same })()',
    ]
    for (const expression of expressions) assert.deepEqual(guarded(expression), plain(expression), expression)
  })

  it('name the built-in, the size and the limit in the refusal', () => {
    const guarded = contextWith(true)
    assert.equal(
      guarded('try { Array.prototype.slice.call({ length: 2 ** 53 - 1 }) } catch (error) { error.message }'),
      'Array.prototype.slice over 9007199254740991 elements refused: this sandbox allows at most 32 in one built-in call. Work on smaller arrays and strings, or loop over the indexes yourself.',
    )
  })

  // A second read of the length (by the native method) must see what the guard checked.
  it('pin a length that would answer differently when read again', () => {
    const guarded = contextWith(true)
    const cases: [string, string][] = [
      ['let n = 0; Array.prototype.indexOf.call({ get length() { return n++ === 0 ? 1 : 1e9 } }, 1)', 'ok'],
      [
        "let n = 0; new Proxy([], { get: (t, k) => k === 'length' ? (n++ === 0 ? 0 : 1e9) : Reflect.get(t, k) }).includes(1)",
        'ok',
      ],
      ['const a = [1]; a.fill(0, { valueOf() { a.length = 1e9; return 0 } })', 'ok'],
      ['let n = 0; [].concat({ length: 1e9, get [Symbol.isConcatSpreadable]() { return n++ > 0 } })', 'ok'],
      ['const a = [1]; a.concat({ get [Symbol.isConcatSpreadable]() { a.length = 1e9; return false } })', 'ok'],
      [
        'let n = 0; Array.from({ length: 1e9, get [Symbol.iterator]() { return n++ === 0 ? function* () {} : undefined } })',
        'ok',
      ],
    ]
    for (const [program, expected] of cases) assert.equal(guarded(outcomeOf(program)), expected, program)
  })

  it('read nothing a program planted on Array.prototype or Object.prototype', () => {
    const guarded = contextWith(true)
    guarded(`
      Object.defineProperty(Array.prototype, '1', { get() { throw new Error('planted getter ran') }, set() { throw new Error('planted setter ran') }, configurable: true })
      Object.defineProperty(Object.prototype, 'lazy', { get() { return true }, configurable: true })
      Object.defineProperty(Object.prototype, 'has', { value: () => false, configurable: true })
      Object.defineProperty(Object.prototype, 'value', { get() { return 1 }, configurable: true })`)
    assert.equal(guarded(outcomeOf('[5].indexOf(5)')), 'ok')
    assert.equal(guarded(outcomeOf('[5].concat([6], [7])')), 'ok')
    assert.equal(guarded(outcomeOf('Array.prototype.slice.call({ get length() { return 40 } })')), 'RangeError')
    assert.equal(guarded('Array.prototype.includes.call({ get length() { return 3 }, 2: "x" }, "x")'), true)
  })
})
