import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createProgramLocator, PROGRAM_WRAPPER_HEAD, wrapProgram } from './program-positions.js'

describe('program positions', () => {
  const code = 'const a = 1\n  return  tools.x({\n    b: 2 })'
  const wrapped = wrapProgram(code)
  const locator = createProgramLocator(code)

  it('maps offsets of the wrapped text to the line and column the model wrote', () => {
    assert.deepEqual(locator.locate(wrapped.indexOf('tools')), { line: 2, column: 11 })
    assert.deepEqual(locator.locate(PROGRAM_WRAPPER_HEAD.length), { line: 1, column: 1 })
  })

  it('points the wrapper head and tail at the program, never past its last line', () => {
    assert.deepEqual(locator.locate(0), { line: 1, column: 1 })
    assert.deepEqual(locator.locate(wrapped.length), { line: 3, column: 12 })
  })

  it('shows the offending text on one line, cut to about 80 characters', () => {
    assert.equal(locator.excerpt(wrapped.indexOf('tools'), 'tools.x({\n    b: 2 })'.length), 'tools.x({ b: 2 })')
    const long = `return ${'x'.repeat(200)}`
    const longLocator = createProgramLocator(long)
    const excerpt = longLocator.excerpt(PROGRAM_WRAPPER_HEAD.length, long.length)
    assert.equal(excerpt.length, 80)
    assert.ok(excerpt.endsWith('...'))
  })
})
