import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { CodeRuntimeError, CodeRuntimeFamilyError, describeValue } from './errors.js'

void describe('CodeRuntimeError', () => {
  void it('carries its code, name, details and cause', () => {
    const cause = new Error('underlying')
    const error = new CodeRuntimeError('CODE_RUNTIME_INVALID_CONFIG', 'Invalid config.', {
      field: 'computeMs',
      value: -5,
      rule: 'must be positive',
      cause,
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
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap')
        },
      },
    )
    assert.equal(CodeRuntimeError.is(hostile), false)
  })
})

const BRAND = Symbol.for('code-runtime.error')

/** A plain object carrying `family` under the brand, as any package's error does. */
function brandedWith(family: unknown): object {
  return Object.defineProperty(new Error('look-alike'), BRAND, { value: family })
}

void describe('CodeRuntimeFamilyError', () => {
  void it('gives CodeRuntimeError the family core, recognised by the base and by its own is()', () => {
    const error = new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')
    assert.equal(error.family, 'core')
    assert.ok(error instanceof CodeRuntimeFamilyError)
    assert.equal(CodeRuntimeFamilyError.is(error), true)
    assert.equal(CodeRuntimeFamilyError.is(error, 'core'), true)
    assert.equal(CodeRuntimeFamilyError.is(error, 'mcp'), false)
  })

  void it("tells families apart: another package's error is in the family but not a CodeRuntimeError", () => {
    const fromMcp = brandedWith('mcp')
    assert.equal(CodeRuntimeFamilyError.is(fromMcp), true)
    assert.equal(CodeRuntimeFamilyError.is(fromMcp, 'mcp'), true)
    assert.equal(CodeRuntimeError.is(fromMcp), false)
  })

  void it('recognises an error of another realm by its brand, where instanceof fails', () => {
    const foreign = vm.runInNewContext(`
      const error = new Error('from another realm')
      Object.defineProperty(error, Symbol.for('code-runtime.error'), { value: 'core' })
      error
    `) as unknown
    assert.equal(foreign instanceof Error, false)
    assert.equal(CodeRuntimeError.is(foreign), true)
    assert.equal(CodeRuntimeFamilyError.is(foreign, 'core'), true)
  })

  void it('recognises an error made by a second copy of the module, and the copy recognises ours', async () => {
    const copy = (await import(new URL('./errors.js?copy', import.meta.url).href)) as {
      CodeRuntimeError: typeof CodeRuntimeError
    }
    assert.notEqual(copy.CodeRuntimeError, CodeRuntimeError)
    const theirs = new copy.CodeRuntimeError('CODE_RUNTIME_UNAVAILABLE', 'Unavailable.')
    assert.equal(theirs instanceof CodeRuntimeFamilyError, false)
    assert.equal(CodeRuntimeError.is(theirs), true)
    assert.equal(CodeRuntimeFamilyError.is(theirs), true)
    assert.equal(copy.CodeRuntimeError.is(new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')), true)
  })

  void it('answers false, never throws and runs no getter, for hostile values', () => {
    let getterRuns = 0
    const getter = Object.defineProperty({}, BRAND, {
      get: () => {
        getterRuns++
        return 'core'
      },
    })
    const throwingGetter = Object.defineProperty({}, BRAND, {
      get: () => {
        throw new Error('getter')
      },
    })
    const trap = (): never => {
      throw new Error('trap')
    }
    const throwingProxy = new Proxy({}, { get: trap, getOwnPropertyDescriptor: trap, has: trap, getPrototypeOf: trap })
    // A Proxy may claim a configurable brand it does not have; a frozen one it cannot fake.
    const lyingProxy = new Proxy(
      {},
      { getOwnPropertyDescriptor: () => ({ value: 'core', configurable: true, writable: false, enumerable: false }) },
    )
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const writable = Object.defineProperty({}, BRAND, { value: 'core', writable: true })
    for (const value of [
      getter,
      throwingGetter,
      throwingProxy,
      lyingProxy,
      revoked.proxy,
      writable,
      brandedWith(true),
      brandedWith(1),
    ]) {
      assert.equal(CodeRuntimeFamilyError.is(value), false)
      assert.equal(CodeRuntimeError.is(value), false)
    }
    assert.equal(getterRuns, 0)
  })

  void it('recognises a Proxy around one of our errors, which carries the real brand', () => {
    const wrapped = new Proxy(new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.'), {})
    assert.equal(CodeRuntimeError.is(wrapped), true)
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
    assert.equal(
      describeValue(() => 1),
      'function',
    )
  })

  void it('shortens long strings', () => {
    const shown = describeValue('x'.repeat(1_000))
    assert.ok(shown.length < 70)
    assert.ok(shown.endsWith('..."'))
  })

  void it('names objects and arrays without reading them', () => {
    let reads = 0
    const watched = new Proxy(
      {},
      {
        get: () => {
          reads++
          return undefined
        },
        ownKeys: () => {
          reads++
          return []
        },
      },
    )
    assert.equal(describeValue([1]), 'an array')
    assert.equal(describeValue({ a: 1 }), 'an object')
    assert.equal(describeValue(watched), 'an object')
    assert.equal(reads, 0)
  })
})
