import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeModeError } from './errors.js'

describe('CodeModeError.is', () => {
  it('answers false, never throws, for a value whose brand lookup throws', () => {
    const throwingProxy = new Proxy({}, { get: () => { throw new Error('trap') } })
    const throwingGetter = Object.defineProperty({}, Symbol.for('code-runtime.code-mode.error'), { get: () => { throw new Error('getter') } })
    assert.equal(CodeModeError.is(throwingProxy), false)
    assert.equal(CodeModeError.is(throwingGetter), false)
  })

  it('recognises its own errors and nothing else', () => {
    assert.equal(CodeModeError.is(new CodeModeError('CODE_MODE_INVALID_OPTIONS', 'bad')), true)
    assert.equal(CodeModeError.is(new Error('bad')), false)
    assert.equal(CodeModeError.is(null), false)
    assert.equal(CodeModeError.is('CODE_MODE_INVALID_OPTIONS'), false)
  })
})
