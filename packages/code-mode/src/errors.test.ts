import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { CodeRuntimeError, CodeRuntimeFamilyError } from '@code-runtime/core'
import { CodeModeError } from './errors.js'

const BRAND = Symbol.for('code-runtime.error')

describe('CodeModeError.is', () => {
  it('answers false, never throws, for a value whose brand lookup throws or runs a getter', () => {
    const throwingProxy = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap')
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('trap')
        },
      },
    )
    const throwingGetter = Object.defineProperty({}, BRAND, {
      get: () => {
        throw new Error('getter')
      },
    })
    const answeringGetter = Object.defineProperty({}, BRAND, { get: () => 'code-mode' })
    assert.equal(CodeModeError.is(throwingProxy), false)
    assert.equal(CodeModeError.is(throwingGetter), false)
    assert.equal(CodeModeError.is(answeringGetter), false)
  })

  it('recognises its own errors and nothing else, not even other families of the project', () => {
    const error = new CodeModeError('CODE_MODE_INVALID_OPTIONS', 'bad')
    assert.equal(CodeModeError.is(error), true)
    assert.equal(error.family, 'code-mode')
    assert.equal(CodeRuntimeFamilyError.is(error), true)
    assert.equal(CodeRuntimeError.is(error), false)
    assert.equal(CodeModeError.is(new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')), false)
    assert.equal(CodeModeError.is(new Error('bad')), false)
    assert.equal(CodeModeError.is(null), false)
    assert.equal(CodeModeError.is('CODE_MODE_INVALID_OPTIONS'), false)
  })

  it('recognises a branded error of another realm', () => {
    const foreign = vm.runInNewContext(
      `Object.defineProperty(new Error('x'), Symbol.for('code-runtime.error'), { value: 'code-mode' })`,
    ) as unknown
    assert.equal(foreign instanceof Error, false)
    assert.equal(CodeModeError.is(foreign), true)
  })

  it('recognises an error of a second copy of the module, where instanceof fails', async () => {
    const copy = (await import(new URL('./errors.js?copy', import.meta.url).href)) as {
      CodeModeError: typeof CodeModeError
    }
    const theirs = new copy.CodeModeError('CODE_MODE_INVALID_TOOL', 'bad tool')
    assert.equal(theirs instanceof CodeModeError, false)
    assert.equal(CodeModeError.is(theirs), true)
    assert.equal(copy.CodeModeError.is(new CodeModeError('CODE_MODE_INVALID_TOOL', 'bad tool')), true)
  })
})
