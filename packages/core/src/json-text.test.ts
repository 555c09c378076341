import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { stringifyJsonValue } from './json-text.js'
import type { CodeJsonValue } from './types.js'

/** `[[[...0...]]]` nested `depth` levels, built without recursion. */
function nestedArrays(depth: number): CodeJsonValue {
  let value: CodeJsonValue = 0
  for (let level = 0; level < depth; level++) value = [value]
  return value
}

/** `{"k":{"k":...{"k":"end"}}}` with a sibling at every level, `depth` levels. */
function nestedObjects(depth: number): CodeJsonValue {
  let value: CodeJsonValue = 'end'
  for (let level = 0; level < depth; level++) value = { before: level, k: value, after: [true, null] }
  return value
}

void describe('stringifyJsonValue', () => {
  void it('gives the native text for every JSON kind', () => {
    const values: CodeJsonValue[] = [
      null,
      true,
      false,
      0,
      -1.5,
      1e21,
      5e-324,
      '',
      'a"b\\c\n\u0001',
      '\ud800 lone',
      '€😀',
      [],
      {},
      [1, [2, [3]], {}],
      { a: { b: [] }, '': 1, __proto__: 'kept' } as unknown as CodeJsonValue,
    ]
    for (const value of values) assert.equal(stringifyJsonValue(value), JSON.stringify(value))
  })

  void it('keeps a literal own __proto__ key', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"y":2}') as CodeJsonValue
    assert.equal(stringifyJsonValue(value), '{"__proto__":{"x":1},"y":2}')
  })

  // The native serializer throws on this thread well before 100 000 levels; the text must not change.
  for (const depth of [10_000, 100_000, 1_000_000]) {
    void it(`writes arrays nested ${depth} levels deep`, () => {
      const value = nestedArrays(depth)
      if (depth >= 100_000) assert.throws(() => JSON.stringify(value), RangeError)
      assert.equal(stringifyJsonValue(value), `${'['.repeat(depth)}0${']'.repeat(depth)}`)
    })
  }

  void it('writes objects nested 100 000 levels deep, siblings before and after the nested key', () => {
    const depth = 100_000
    const text = stringifyJsonValue(nestedObjects(depth))
    // The outermost level is the last one built.
    const opening: string[] = []
    for (let level = depth - 1; level >= 0; level--) opening.push(`{"before":${level},"k":`)
    const expected = `${opening.join('')}"end"${',"after":[true,null]}'.repeat(depth)}`
    assert.equal(text, expected)
  })
})
