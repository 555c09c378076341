import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '../sdk/sdk-emitter.js'
import { blankHtmlLikeComments, MAX_HTML_LIKE_COMMENTS } from './html-like-comments.js'
import { createProgramChecker } from './program-checker.js'
import { loadTypeScript } from './typescript-loader.js'

describe('HTML-like comments (Annex B), as the checker reads them', () => {
  const tools = [
    { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
  ]
  const options = {
    declarations: emitSdk(tools).declarations,
    namespace: 'tools',
    schemas: new Map(tools.map(tool => [tool.name, tool.inputSchema])),
  }

  it('turns each one in code into a // comment of the same length', async () => {
    const typescript = await loadTypeScript()
    const cases: readonly (readonly [string, string])[] = [
      ['<!-- note\nreturn 1', '//-- note\nreturn 1'],
      ['const x = 42\n--> note\nreturn x', 'const x = 42\n//> note\nreturn x'],
      ['x\n  /* a */ /*\n*/ /* b */ --> c', 'x\n  /* a */ /*\n*/ /* b */ //> c'],
      ['return 5 <!-- a\n<!-- b', 'return 5 //-- a\n//-- b'],
      ['const t = `${1 <!-- x\n}`', 'const t = `${1 //-- x\n}`'],
    ]
    for (const [text, blanked] of cases) assert.equal(blankHtmlLikeComments(typescript, text), blanked, text)
  })

  it('leaves the same characters alone in strings, templates, regular expressions, comments and mid-line', async () => {
    const typescript = await loadTypeScript()
    for (const text of [
      'const s = "<!--"',
      'const t = `a\n--> b`',
      'return /<!--/.test(s) && /-->/.test(s)',
      '// <!-- -->\n/* <!--\n--> */',
      'let a = 3; return a-->0',
      'x /* a */ --> y',
      'a <<!-- b',
    ]) {
      assert.equal(blankHtmlLikeComments(typescript, text), text, text)
    }
  })

  it('gives up past its limit', async () => {
    const typescript = await loadTypeScript()
    assert.equal(
      blankHtmlLikeComments(typescript, '<!--\n'.repeat(MAX_HTML_LIKE_COMMENTS)),
      '//--\n'.repeat(MAX_HTML_LIKE_COMMENTS),
    )
    assert.equal(blankHtmlLikeComments(typescript, '<!--\n'.repeat(MAX_HTML_LIKE_COMMENTS + 1)), undefined)
  })

  it('refuses no program for them, and still refuses what follows them', async () => {
    const checker = await createProgramChecker(options)
    assert.deepEqual(checker.check('<!-- note\nreturn 41 + 1', 'calls'), { refused: false, errors: [], hints: [] })
    assert.deepEqual(checker.check('const x = 42\n--> note\nreturn x', 'strict'), {
      refused: false,
      errors: [],
      hints: [],
    })
    const wrong = checker.check('<!-- note\nreturn await tools.add({ a: "1" })', 'calls')
    assert.equal(wrong.errors[0]?.category, 'wrong-type')
    assert.equal(wrong.errors[0]?.line, 2)
    // Past the limit nothing is refused: the runtime decides.
    assert.equal(
      checker.check(`${'<!--\n'.repeat(MAX_HTML_LIKE_COMMENTS + 1)}return await tools.add({ a: "1" })`, 'calls')
        .refused,
      false,
    )
  })
})

describe('syntax the runtime reads and TypeScript does not', () => {
  const options = { declarations: emitSdk([]).declarations, namespace: 'tools', schemas: new Map() }

  it('refuses no program for a name letter newer than TypeScript’s Unicode tables', async () => {
    const checker = await createProgramChecker(options)
    // U+1E5D0 (Ol Onal, Unicode 16): an identifier letter to the runtime, an invalid character to TypeScript 5.9.
    assert.equal(checker.check('var \u{1E5D0} = 1; return \u{1E5D0}', 'calls').refused, false)
    assert.equal(checker.check('var a = 1 \\; return a', 'calls').refused, true)
  })
})
