import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { retiredTypeStrippers, stripTypes } from './type-stripper.js'
import { transformProgram } from './transform.js'

// Past the bounds of program-bounds.ts on purpose: what reaches amaro directly when a construct
// escapes the pre-scan. Each of these breaks amaro's WebAssembly instance.
const BREAKING_TEXTS = [
  ['2 000 nested blocks', `${'{'.repeat(2000)}var deep = 9${'}'.repeat(2000)}`],
  ['3 000 chained if statements', `${'if (1) '.repeat(3000)};`],
  ['8 000 negations', `x = ${'!'.repeat(8000)}1`],
] as const

describe('stripTypes (one amaro instance, replaced when it breaks)', () => {
  for (const [label, text] of BREAKING_TEXTS) {
    it(`reports ${label} as a broken stripper, and the next text strips as usual`, () => {
      const retired = retiredTypeStrippers()
      assert.deepEqual(stripTypes(text), { ok: false, error: { broke: true } })
      assert.equal(retiredTypeStrippers(), retired + 1)
      assert.deepEqual(stripTypes('let n: number = 1'), { ok: true, value: 'let n         = 1' })
      assert.equal(transformProgram('const two: number = 2\nreturn two').ok, true)
    })
  }

  it("passes amaro's own syntax errors on without replacing the instance", () => {
    const retired = retiredTypeStrippers()
    const result = stripTypes('let x = ')
    assert.equal(result.ok, false)
    assert.equal(!result.ok && result.error.broke, false)
    assert.equal(retiredTypeStrippers(), retired)
  })
})
