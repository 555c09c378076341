import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '../sdk-emitter.js'
import { KeptNames, MAX_KEPT_TYPE_CHARS } from './kept-names.js'
import { createProgramChecker } from './program-checker.js'

describe('the names a session keeps, as the checker types them', () => {
  const tools = [{ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, outputSchema: { type: 'number' } }]
  const options = { declarations: emitSdk(tools).declarations, namespace: 'tools', schemas: new Map(tools.map((tool) => [tool.name, tool.inputSchema])) }

  it('finds every top-level declaration and every var outside nested functions, and nothing else', async () => {
    const checker = await createProgramChecker(options)
    const program = [
      'const { a, b: [c, , d = 1], ...rest } = { a: 1, b: [2, 3, 4] as [number, number, number], e: "x" }',
      'let s = "text", n = 5',
      'var v',
      'function f(x: number): string { var inner = 1; return String(x + inner) }',
      'async function* g() { yield 1 }',
      'class C {}',
      'if (n > 1) { var inBlock = true; let notKept = 1 }',
      'for (var i = 0; i < 2; i++) {}',
      'for (const notKeptEither of [1]) {}',
      'const undefined = 1, tools = 2',
      'const sum = await globalThis.tools.add({ a: 1 })',
    ].join('\n')
    const { check, kept } = checker.checkInSession(program, 'calls', new KeptNames())
    assert.equal(check.refused, false)
    assert.deepEqual(Object.fromEntries(kept), {
      a: 'number', c: 'number', d: 'number', rest: '{ e: string; }', s: 'string', n: 'number', v: 'any',
      f: '(x: number) => string', g: '() => AsyncGenerator<number, void, unknown>', C: 'any', inBlock: 'boolean', i: 'number', sum: 'number',
    })
  })

  it('declares kept names for the next check, demoting to any what does not resolve and dropping what clashes with a global', async () => {
    const checker = await createProgramChecker(options)
    const session = new KeptNames()
    const first = checker.checkInSession('interface Row { id: number }\nconst rows: Row[] = []\nconst huge = ' + JSON.stringify(Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`field${index}`, index]))) + '\nlet ok = [1]', 'strict', session)
    assert.equal(first.kept.get('rows'), 'Row[]')
    assert.equal(first.kept.get('huge'), 'any', `over ${MAX_KEPT_TYPE_CHARS} characters`)
    session.merge(first.kept)
    session.merge(new Map([['console', 'number']]))
    const second = checker.checkInSession('rows[0]!.anything; ok.push(1); console.log(ok)', 'strict', session)
    assert.deepEqual(second.check, { refused: false, errors: [], hints: [] })
    const wrong = checker.checkInSession('ok.push("a")', 'strict', session)
    assert.equal(wrong.check.refused, true)
    // The same program outside the session does not know the names.
    assert.match(checker.check('ok.push(1)', 'strict').errors[0]?.message ?? '', /Cannot find name 'ok'/)
  })

  it('keeps the newest type of a name declared again, and forgets all on clear', () => {
    const session = new KeptNames()
    session.merge(new Map([['x', 'number'], ['y', 'string']]))
    session.merge(new Map([['x', 'string[]']]))
    assert.deepEqual(session.entries(), [['y', 'string'], ['x', 'string[]']])
    assert.equal(session.declarations(), 'declare let y: string;\ndeclare let x: string[];')
    session.clear()
    assert.equal(session.size, 0)
    assert.equal(session.declarations(), '')
  })
})
