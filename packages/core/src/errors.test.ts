import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError, describeValue } from './errors.js'

void describe('CodeRuntimeError', () => {
  void it('carries its code, name, details and cause', () => {
    const cause = new Error('underlying')
    const error = new CodeRuntimeError('CODE_RUNTIME_INVALID_CONFIG', 'Invalid config.', {
      field: 'computeMs', value: -5, rule: 'must be positive', cause,
    })
    assert.equal(error.code, 'CODE_RUNTIME_INVALID_CONFIG')
    assert.equal(error.name, 'CodeRuntimeError')
    assert.equal(error.message, 'Invalid config.')
    assert.equal(error.field, 'computeMs')
    assert.equal(error.value, -5)
    assert.equal(error.rule, 'must be positive')
    assert.equal(error.cause, cause)
    assert.ok(error instanceof Error)
  })

  void it('leaves cause absent when none is given', () => {
    const error = new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')
    assert.equal(Object.hasOwn(error, 'cause'), false)
    assert.equal(error.field, undefined)
  })

  void it('is recognised by its brand', () => {
    assert.equal(CodeRuntimeError.is(new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')), true)
  })

  void it('does not recognise other values', () => {
    for (const value of [new Error('x'), { code: 'CODE_RUNTIME_DISPOSED' }, null, undefined, 'CodeRuntimeError', 1]) {
      assert.equal(CodeRuntimeError.is(value), false)
    }
  })

  void it('does not throw for a value whose brand lookup throws', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('trap') } })
    assert.equal(CodeRuntimeError.is(hostile), false)
  })
})

void describe('describeValue', () => {
  void it('shows primitives unambiguously', () => {
    assert.equal(describeValue('text'), '"text"')
    assert.equal(describeValue(''), '""')
    assert.equal(describeValue(-5), '-5')
    assert.equal(describeValue(-0), '-0')
    assert.equal(describeValue(Number.NaN), 'NaN')
    assert.equal(describeValue(true), 'true')
    assert.equal(describeValue(5n), '5n')
    assert.equal(describeValue(null), 'null')
    assert.equal(describeValue(undefined), 'undefined')
    assert.equal(describeValue(Symbol('s')), 'symbol')
    assert.equal(describeValue(() => 1), 'function')
  })

  void it('shortens long strings', () => {
    const shown = describeValue('x'.repeat(1_000))
    assert.ok(shown.length < 70)
    assert.ok(shown.endsWith('..."'))
  })

  void it('names objects and arrays without reading them', () => {
    let reads = 0
    const watched = new Proxy({}, { get: () => { reads++; return undefined }, ownKeys: () => { reads++; return [] } })
    assert.equal(describeValue([1]), 'an array')
    assert.equal(describeValue({ a: 1 }), 'an object')
    assert.equal(describeValue(watched), 'an object')
    assert.equal(reads, 0)
  })
})
