import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '../sdk/sdk-emitter.js'
import { createCheckerService, sessionFileName } from './checker-service.js'
import { KEPT_NAMES_PER_FILE, KeptNames, MAX_KEPT_TYPE_CHARS, MAX_SESSION_TYPE_CHARS } from './kept-names.js'
import { createProgramChecker } from './program-checker.js'
import { loadTypeScript } from './typescript-loader.js'

/** `count` names `prefix0`, `prefix1`... all of type `type`. */
function namesOfType(prefix: string, count: number, type: string): Map<string, string> {
  return new Map(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, type]))
}

describe('the names a session keeps, as the checker types them', () => {
  const tools = [
    {
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      outputSchema: { type: 'number' },
    },
  ]
  const options = {
    declarations: emitSdk(tools).declarations,
    namespace: 'tools',
    schemas: new Map(tools.map(tool => [tool.name, tool.inputSchema])),
  }

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
      a: 'number',
      c: 'number',
      d: 'number',
      rest: '{ e: string; }',
      s: 'any',
      n: 'any',
      v: 'any',
      f: 'any',
      g: 'any',
      C: 'any',
      inBlock: 'any',
      i: 'any',
      sum: 'number',
    })
  })

  it('types only a const from its declaration: a name a run can assign again is any', async () => {
    const checker = await createProgramChecker(options)
    const { kept } = checker.checkInSession(
      'const fixed = 1\nlet moving = 1\nfunction f(x: number): string { return String(x) }',
      'calls',
      new KeptNames(),
    )
    assert.deepEqual(Object.fromEntries(kept), { fixed: 'number', moving: 'any', f: 'any' })
  })

  it('demotes to any a kept name a later program assigns, in any form, and every kept name when it runs text as code', async () => {
    const checker = await createProgramChecker(options)
    const session = new KeptNames()
    session.merge(
      new Map([
        ['a', 'number'],
        ['b', 'number'],
        ['c', 'number'],
        ['d', 'number'],
        ['e', 'number'],
        ['f', 'number'],
        ['untouched', 'number'],
      ]),
    )
    const assigning =
      'a = 2; b += 1; c++; [d] = [1]; ({ e } = { e: 1 }); function later() { for (f of [1]) {} }; const read = untouched + 1'
    const { kept } = checker.checkInSession(assigning, 'calls', session)
    assert.deepEqual(Object.fromEntries(kept), {
      later: 'any',
      read: 'number',
      a: 'any',
      b: 'any',
      c: 'any',
      d: 'any',
      e: 'any',
      f: 'any',
    })
    const dynamic = checker.checkInSession('eval("untouched = \'text\'")', 'calls', session)
    assert.equal(dynamic.kept.get('untouched'), 'any')
  })

  it('refuses no call with a kept name a later run assigned another type', async () => {
    const checker = await createProgramChecker({
      declarations: emitSdk([
        { name: 'x', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
      ]).declarations,
      namespace: 'tools',
      schemas: new Map([['x', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }]]),
    })
    for (const declaration of ['var n = 5', 'const n = 5']) {
      const session = new KeptNames()
      for (const program of [declaration, 'n = String(n)']) {
        const { check, kept } = checker.checkInSession(program, 'calls', session)
        assert.equal(check.refused, false, program)
        session.merge(kept)
      }
      const { check } = checker.checkInSession('return await tools.x({ a: n })', 'calls', session)
      assert.deepEqual(check.errors, [], declaration)
    }
  })

  it('declares kept names for the next check, demoting to any what does not resolve and dropping what clashes with a global', async () => {
    const checker = await createProgramChecker(options)
    const session = new KeptNames()
    const first = checker.checkInSession(
      'interface Row { id: number }\nconst rows: Row[] = []\nconst huge = ' +
        JSON.stringify(Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`field${index}`, index]))) +
        '\nconst ok = [1]',
      'strict',
      session,
    )
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
    session.merge(
      new Map([
        ['x', 'number'],
        ['y', 'string'],
      ]),
    )
    session.merge(new Map([['x', 'string[]']]))
    assert.deepEqual(session.entries(), [
      ['x', 'string[]'],
      ['y', 'string'],
    ])
    assert.deepEqual(session.declarationFiles(), ['declare let x: string[];\ndeclare let y: string;'])
    session.clear()
    assert.equal(session.size, 0)
    assert.deepEqual(session.declarationFiles(), [])
  })

  it('parses what earlier runs kept once: a run that keeps one more name re-reads one small file, not every name', async () => {
    const typescript = await loadTypeScript()
    const { service, setSessionDeclarations } = createCheckerService(typescript, '')
    const session = new KeptNames()
    session.merge(namesOfType('v', 3 * KEPT_NAMES_PER_FILE + 5, 'number'))
    setSessionDeclarations(session.declarationFiles())
    const before = new Set(service.getProgram()?.getSourceFiles())
    session.merge(new Map([['more', 'string']]))
    setSessionDeclarations(session.declarationFiles())
    const sessionFiles =
      service
        .getProgram()
        ?.getSourceFiles()
        .filter(file => file.fileName.startsWith(sessionFileName(0).replace(/0\.d\.ts$/, ''))) ?? []
    const reread = sessionFiles.filter(file => !before.has(file))
    assert.equal(sessionFiles.length, 4)
    assert.deepEqual(
      reread.map(file => file.statements.length),
      [6],
      'only the last file, with its six names, is parsed again',
    )
  })

  it('checks a long session like a short one: faulty declarations in any file are demoted, the rest keep their types', async () => {
    const checker = await createProgramChecker(options)
    const session = new KeptNames()
    session.merge(namesOfType('n', 2 * KEPT_NAMES_PER_FILE, 'number'))
    session.merge(
      new Map([
        ['console', 'number'],
        ['rows', 'Row[]'],
        ['label', 'string'],
      ]),
    )
    session.merge(namesOfType('m', KEPT_NAMES_PER_FILE, 'boolean'))
    const check = checker.checkInSession(
      'const sum: number = n0 + n127; const flag: boolean = m3; rows[0]!.anything; console.log(label.length)',
      'strict',
      session,
    )
    assert.deepEqual(check.check, { refused: false, errors: [], hints: [] })
    session.merge(check.kept)
    assert.equal(checker.checkInSession('const wrong: string = n5 + sum', 'strict', session).check.refused, true)
  })

  it('bounds the type text a session keeps: past MAX_SESSION_TYPE_CHARS, newly kept names are any', () => {
    const session = new KeptNames()
    const longType = `{ ${'field: number; '.repeat(Math.floor(MAX_KEPT_TYPE_CHARS / 16) - 1)}}`
    const count = Math.ceil(MAX_SESSION_TYPE_CHARS / longType.length) + 50
    session.merge(namesOfType('big', count, longType))
    const typeChars = session.entries().reduce((sum, [, type]) => sum + type.length, 0)
    assert.ok(typeChars <= MAX_SESSION_TYPE_CHARS, `${typeChars} characters of types kept`)
    assert.equal(session.entries()[0]?.[1], longType)
    assert.equal(session.entries().at(-1)?.[1], 'any')
    assert.equal(session.size, count)
  })
})
