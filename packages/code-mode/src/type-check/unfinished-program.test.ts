import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { programNeedsMoreInput } from './unfinished-program.js'

describe('programNeedsMoreInput (a REPL line that leaves the program unfinished)', () => {
  it('is true for an input that ends too early: an open bracket, template, comment or expression', async () => {
    for (const input of [
      'const rows = [1,',
      'foo(',
      'if (ready) {',
      'const total = 1 +',
      'function f() {\n  return 1',
      '`first line',
      'const s = `a ${b',
      '/* a comment',
      'const list: Array<',
    ]) {
      assert.equal(await programNeedsMoreInput(input), true, input)
    }
  })

  it('is false for a complete program, an empty one, and one whose error sits inside it', async () => {
    for (const input of [
      '',
      '  \n',
      'const x = 1',
      'x',
      '// a comment',
      'let n: number = 1\nn + 1',
      '"open string',
      'a)',
      'enum Color { Red }',
      'x.y)',
      // Nested past what the parser can recurse: the run refuses it, the REPL does not wait for more.
      '['.repeat(200_000),
    ]) {
      assert.equal(await programNeedsMoreInput(input), false, input)
    }
  })
})
