import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_NESTING_DEPTH, MAX_PROGRAM_CHARS, programBoundsProblem } from './program-bounds.js'

describe('programBoundsProblem (what may reach the type stripper)', () => {
  it('refuses a program longer than MAX_PROGRAM_CHARS, naming the limit', () => {
    const problem = programBoundsProblem('x'.repeat(MAX_PROGRAM_CHARS + 1))
    assert.match(problem?.message ?? '', new RegExp(`limit is ${MAX_PROGRAM_CHARS}`))
    assert.equal(programBoundsProblem('x'.repeat(MAX_PROGRAM_CHARS)), undefined)
  })

  it('refuses nesting past MAX_NESTING_DEPTH in every construct that recurses, naming the limit', () => {
    const past = MAX_NESTING_DEPTH + 1
    for (const program of [
      '{'.repeat(past),
      `x = ${'('.repeat(past)}1`,
      `x = ${'`${'.repeat(past)}`,
      'if (1) '.repeat(past),
      'if (1)\n'.repeat(past),
      `x = ${'!'.repeat(past)}1`,
      `x = ${'- '.repeat(past)}1`,
      'a =\n'.repeat(past),
      `f = ${'() => '.repeat(past)}1`,
      `let x: ${'A<'.repeat(past)}B`,
      `x = ${'new '.repeat(past)}A`,
      Array.from({ length: past }, (_, index) => `l${index}:`).join('\n'),
    ]) {
      const problem = programBoundsProblem(program)
      assert.ok(problem?.message.includes(`the limit is ${MAX_NESTING_DEPTH}`), program.slice(0, 20))
    }
  })

  it('lets real programs through: long flat code, deep data short of the bound, brackets in strings, comments, templates and regular expressions', () => {
    for (const program of [
      Array.from({ length: 5000 }, (_, index) => `const v${index} = ${index} + 1 - -2`).join('\n'),
      `return ${JSON.stringify(Array.from({ length: 3000 }, (_, index) => ({ a: index, b: [index, { c: 'x(' }] })))}`,
      `const s = '${'('.repeat(1000)}'\nconst t = "${'{'.repeat(1000)}"\n// ${'['.repeat(1000)}\n/* ${'{'.repeat(1000)} */`,
      `const r = /[(]{3}\\(/g\nconst u = \`${'('.repeat(1000)} \${1 + 1}\`\nreturn ${'('.repeat(100)}1${')'.repeat(100)}`,
      Array.from({ length: 2000 }, () => 'total += 1').join('\n'),
      Array.from({ length: 2000 }, () => 'if (a) b = 1\nelse c = 2').join('\n'),
    ]) {
      assert.equal(programBoundsProblem(program), undefined, program.slice(0, 40))
    }
  })
})
