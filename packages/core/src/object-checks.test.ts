import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { isObjectRecord, isPlainObject, unescapeJsonPointerSegment } from '@code-runtime/core/internal'

void describe('isObjectRecord', () => {
  void it('takes any object but an array', () => {
    for (const value of [{}, Object.create(null), new Map(), new Date(0), new (class Point {})()])
      assert.equal(isObjectRecord(value), true)
    for (const value of [null, undefined, [], [1], 'text', 1, () => 1]) assert.equal(isObjectRecord(value), false)
  })
})

void describe('isPlainObject', () => {
  void it('takes object literals and null-prototype objects, of this realm and another', () => {
    for (const value of [
      {},
      { a: 1 },
      Object.create(null),
      vm.runInNewContext('({ a: 1 })'),
      vm.runInNewContext('Object.create(null)'),
    ]) {
      assert.equal(isPlainObject(value), true)
    }
  })

  void it('refuses Maps, Dates, class instances and arrays, of this realm and another', () => {
    for (const value of [
      new Map(),
      new Date(0),
      new (class Point {})(),
      [],
      vm.runInNewContext('[]'),
      vm.runInNewContext('new Map()'),
      null,
    ]) {
      assert.equal(isPlainObject(value), false)
    }
  })
})

void describe('unescapeJsonPointerSegment', () => {
  void it('undoes ~1 before ~0, so ~01 names "~1" (RFC 6901 section 4)', () => {
    assert.equal(unescapeJsonPointerSegment('a~1b'), 'a/b')
    assert.equal(unescapeJsonPointerSegment('m~0n'), 'm~n')
    assert.equal(unescapeJsonPointerSegment('~01'), '~1')
    assert.equal(unescapeJsonPointerSegment('plain'), 'plain')
  })
})
