// The type check's policy on the real corpus SDK (109 tools of five servers): mode `calls`
// refuses a program only for what certainly fails at run time, and each category is shown both
// ways, refused and allowed. The runtime is never reached here: `check` does not run anything.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  CodeModeError,
  createCodeMode,
  formatProgramDiagnostics,
  type CodeMode,
  type JsonSchema,
  type ProgramCheck,
  type ProgramDiagnosticCategory,
  type TypeCheckMode,
} from '@code-runtime/code-mode'
import { compileArgumentCheck } from '../src/run/argument-validation.js'
import { readFullCorpus } from './corpus.js'

const unusedRuntime = { run: () => Promise.reject(new Error('check() must not run the program')) }

function corpusCodeMode(typeCheck?: TypeCheckMode): CodeMode {
  const tools = readFullCorpus().map(tool => ({ ...tool, execute: () => Promise.resolve(null) }))
  return createCodeMode(
    typeCheck === undefined ? { tools, runtime: unusedRuntime } : { tools, runtime: unusedRuntime, typeCheck },
  )
}

const calls = corpusCodeMode()
const strict = corpusCodeMode('strict')

function describeCheck(check: ProgramCheck): string {
  return formatProgramDiagnostics([...check.errors, ...check.hints])
}

/** Programs `calls` refuses, each for one certain failure; the diagnostic's category and place. */
const REFUSED: readonly {
  name: string
  program: string
  category: ProgramDiagnosticCategory
  line: number
  column: number
  suggestion?: string
  runtimeArgs?: { tool: string; args: unknown }
}[] = [
  {
    name: 'a misspelled member',
    program: "const a = 1\nawait tools.read_text_fil({ path: '/a' })",
    category: 'unknown-member',
    line: 2,
    column: 13,
    suggestion: 'read_text_file',
  },
  {
    name: 'a misspelled member in a callback',
    program: "await Promise.all(['/a'].map((path) => tools.raed_text_file({ path })))",
    category: 'unknown-member',
    line: 1,
    column: 46,
    suggestion: 'read_text_file',
  },
  {
    name: 'a missing required field',
    program: 'await tools.read_text_file({})',
    category: 'missing-field',
    line: 1,
    column: 28,
    runtimeArgs: { tool: 'read_text_file', args: {} },
  },
  {
    name: 'a required field spelled wrong',
    program: "await tools.read_text_file({ pth: 'notes.txt' })",
    category: 'missing-field',
    line: 1,
    column: 30,
    suggestion: 'path',
    runtimeArgs: { tool: 'read_text_file', args: { pth: 'notes.txt' } },
  },
  {
    name: 'a missing field of an array item ($ref)',
    program: "await tools.create_relations({ relations: [{ from: 'a', to: 'b' }] })",
    category: 'missing-field',
    line: 1,
    column: 44,
    runtimeArgs: { tool: 'create_relations', args: { relations: [{ from: 'a', to: 'b' }] } },
  },
  {
    name: 'a missing field of a nested object',
    program: "await tools.update_address({ customerId: 'c', address: { street: 's', city: 'c' } })",
    category: 'missing-field',
    line: 1,
    column: 47,
    runtimeArgs: { tool: 'update_address', args: { customerId: 'c', address: { street: 's', city: 'c' } } },
  },
  {
    name: 'a field a closed schema refuses',
    program:
      "await tools.update_address({ customerId: 'c', address: { street: 's', city: 'c', country: 'DE', zip: '1' } })",
    category: 'unknown-field',
    line: 1,
    column: 97,
    runtimeArgs: {
      tool: 'update_address',
      args: { customerId: 'c', address: { street: 's', city: 'c', country: 'DE', zip: '1' } },
    },
  },
  {
    name: 'a string for a number',
    program: "await tools.get_sum({ a: 'one', b: 2 })",
    category: 'wrong-type',
    line: 1,
    column: 23,
    runtimeArgs: { tool: 'get-sum', args: { a: 'one', b: 2 } },
  },
  {
    name: 'a value outside an enum',
    program: "await tools.get_structured_content({ location: 'Paris' })",
    category: 'wrong-type',
    line: 1,
    column: 38,
    runtimeArgs: { tool: 'get-structured-content', args: { location: 'Paris' } },
  },
  {
    name: 'a wrong type inside an array item',
    program: "await tools.create_relations({ relations: [{ from: 'a', to: 1, relationType: 'knows' }] })",
    category: 'wrong-type',
    line: 1,
    column: 57,
    runtimeArgs: { tool: 'create_relations', args: { relations: [{ from: 'a', to: 1, relationType: 'knows' }] } },
  },
  {
    name: 'a number variable for a string',
    program: 'const path = 42\nawait tools.read_text_file({ path })',
    category: 'wrong-type',
    line: 2,
    column: 30,
    runtimeArgs: { tool: 'read_text_file', args: { path: 42 } },
  },
  { name: 'an unclosed parenthesis', program: 'const a = 1\nreturn (a', category: 'syntax', line: 2, column: 10 },
  { name: 'an enum (not erasable)', program: "enum Color { Red }\nreturn 'x'", category: 'syntax', line: 1, column: 6 },
  {
    name: 'await in a callback that is not async',
    program: "['a'].forEach((path) => { await tools.read_text_file({ path }) })",
    category: 'syntax',
    line: 1,
    column: 27,
  },
]

/** Programs `calls` lets run: lazy, loosely typed or beyond what the checker can follow. */
const ALLOWED: readonly { name: string; program: string; hints: boolean }[] = [
  {
    name: 'lazy code: untyped arrays, implicit any parameters, unused names',
    hints: false,
    program: [
      'const results = []',
      "for (const path of ['/a', '/b']) results.push(await tools.read_text_file({ path }))",
      'function total(list, key) { return list.reduce((sum, item) => sum + item[key].length, 0) }',
      'const unused = 3',
      "return total(results, 'content')",
    ].join('\n'),
  },
  {
    name: 'any from JSON.parse as a field value',
    hints: false,
    program: 'const input = JSON.parse(\'{"a": 1}\')\nreturn await tools.get_sum({ a: input.a, b: 2 })',
  },
  {
    name: 'any inside an array item',
    hints: false,
    program:
      "const to = JSON.parse('\"b\"')\nawait tools.create_relations({ relations: [{ from: 'a', to, relationType: 'knows' }] })",
  },
  {
    name: 'an unknown tool output passed on',
    hints: true,
    program: 'const image = await tools.get_tiny_image()\nawait tools.get_sum({ a: image, b: 1 })',
  },
  {
    name: 'an unknown tool output read loosely',
    hints: true,
    program: 'const image = await tools.get_tiny_image()\nreturn image.content',
  },
  {
    name: 'narrowing the checker cannot follow',
    hints: true,
    program: [
      'let size: number | undefined',
      "['x'].forEach(() => { size = 1 })",
      'const counts = new Map<string, number>([["a", 1]])',
      "await tools.get_sum({ a: size, b: counts.get('a') })",
    ].join('\n'),
  },
  {
    name: 'missing fields a spread may supply',
    hints: false,
    program: "const base = JSON.parse('{}')\nawait tools.read_text_file({ ...base })",
  },
  {
    name: 'an extra field where the schema allows extras',
    hints: true,
    program: "await tools.read_text_file({ path: '/a', encoding: 'utf8' })",
  },
  {
    name: 'a member tested before it is called',
    hints: true,
    program: 'if (typeof tools.read_text_fil === "function") await tools.read_text_fil({ path: "/a" })',
  },
  {
    name: 'a member the program adds to the namespace object',
    hints: true,
    program: 'Object.assign(tools, { twice: async (n: number) => n * 2 })\nreturn await tools.twice(2)',
  },
  { name: 'an optional call of a missing member', hints: true, program: "await tools.read_text_fil?.({ path: '/a' })" },
  {
    name: 'a local that shadows the namespace',
    hints: false,
    program: 'const tools = { nmae: async () => 1 }\nreturn await tools.nmae()',
  },
  {
    name: 'implicit any in an index by a string',
    hints: false,
    program: "const totals = { a: 1 }\nconst key: string = 'a'\nreturn totals[key]",
  },
  {
    name: 'a field value the program asserts a type for',
    hints: true,
    program: "const a = JSON.parse('1')\nawait tools.get_sum({ a: a as string, b: 2 })",
  },
  {
    name: "syntax only strict mode or TypeScript's regular expression check refuses",
    hints: true,
    program: "const dash = /[a\\-z]|]/.test('-')\nreturn ['\\08', dash, /\\p{L}/v.test('a')]",
  },
  { name: 'a type error away from tool calls', hints: true, program: "const n: number = 'one' as string\nreturn n" },
  {
    name: 'only the runtime globals',
    hints: false,
    program: [
      "const url = new URL('https://example.com/a?b=1')",
      "const bytes = new TextEncoder().encode(url.searchParams.get('b') ?? '')",
      'const copy = structuredClone({ id: crypto.randomUUID(), text: new TextDecoder().decode(bytes) })',
      'await new Promise((resolve) => setTimeout(resolve, 1))',
      "process.stdout.write(btoa('x') + atob('eA==') + '\\n')",
      'console.table([copy])',
      'return copy.text',
    ].join('\n'),
  },
  {
    name: 'ES2023 built-ins every supported Node has',
    hints: false,
    program:
      'const sorted = [3, 1, 2].toSorted()\nreturn [sorted.findLast((n) => n < 3), sorted.with(0, 9), sorted.toReversed()]',
  },
]

describe('type check, mode calls, on the corpus SDK', () => {
  for (const { name, program, category, line, column, suggestion } of REFUSED) {
    it(`refuses ${name}`, async () => {
      const check = await calls.check(program)
      assert.equal(check.refused, true, describeCheck(check))
      const error = check.errors[0]
      assert.ok(error !== undefined)
      assert.deepEqual(
        { category: error.category, line: error.line, column: error.column },
        { category, line, column },
        describeCheck(check),
      )
      assert.equal(error.suggestion, suggestion)
    })
  }

  it('refuses only arguments the runtime validator refuses too', () => {
    const corpus = readFullCorpus()
    for (const { name, runtimeArgs } of REFUSED) {
      if (runtimeArgs === undefined) continue
      const tool = corpus.find(candidate => candidate.name === runtimeArgs.tool)
      assert.ok(tool !== undefined, runtimeArgs.tool)
      assert.notEqual(compileArgumentCheck(tool.inputSchema as JsonSchema)?.(runtimeArgs.args), undefined, name)
    }
  })

  for (const { name, program, hints } of ALLOWED) {
    it(`lets run ${name}`, async () => {
      const check = await calls.check(program)
      assert.equal(check.refused, false, describeCheck(check))
      assert.deepEqual(check.errors, [])
      assert.equal(check.hints.length > 0, hints, describeCheck(check))
      assert.ok(check.hints.every(hint => hint.category === 'other'))
    })
  }

  it('gives each diagnostic the offending text and a message that reads without the SDK', async () => {
    const check = await calls.check("const a = 1\nawait tools.read_text_fil({ path: '/a' })")
    assert.equal(
      formatProgramDiagnostics(check.errors),
      [
        "line 2, column 13: Property 'read_text_fil' does not exist on type 'typeof tools'. Did you mean 'read_text_file'?",
        '    read_text_fil',
      ].join('\n'),
    )
  })

  it('points a syntax error at the end of the program at its last line', async () => {
    const check = await calls.check('const a = [1,\n  2')
    assert.equal(check.refused, true)
    assert.deepEqual(
      check.errors.map(error => [error.category, error.line]),
      [['syntax', 2]],
    )
  })
})

describe('type check of long programs', () => {
  it('reports the first 50 diagnostics of a program full of errors, in order', async () => {
    const check = await strict.check('const a = 1\n'.repeat(5_000))
    assert.equal(check.errors.length, 50)
    assert.deepEqual(
      check.errors.slice(0, 2).map(error => error.line),
      [1, 2],
    )
  })
})

describe('type check modes', () => {
  it('strict refuses every type error, with its category', async () => {
    const check = await strict.check("const n: number = 'one' as string\nawait tools.read_text_fil({ path: '/a' })")
    assert.equal(check.refused, true)
    assert.deepEqual(
      check.errors.map(error => error.category),
      ['other', 'unknown-member'],
    )
    assert.deepEqual(check.hints, [])
  })

  it('strict passes a program without errors', async () => {
    assert.deepEqual(await strict.check("return (await tools.read_text_file({ path: '/a' })).content"), {
      refused: false,
      errors: [],
      hints: [],
    })
  })

  it('off checks nothing, not even syntax', async () => {
    assert.deepEqual(await corpusCodeMode('off').check('return ('), { refused: false, errors: [], hints: [] })
  })

  it('knows the namespace and error class by the names the Code Mode gives them', async () => {
    const tools = [
      {
        name: 'add',
        inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
        execute: () => Promise.resolve(1),
      },
    ]
    const api = createCodeMode({ tools, runtime: unusedRuntime, namespace: 'api', errorClassName: 'ApiError' })
    const refused = await api.check('await api.adds({ a: 1 })')
    assert.deepEqual(
      refused.errors.map(error => [error.category, error.suggestion]),
      [['unknown-member', 'add']],
    )
    assert.match(refused.errors[0]?.message ?? '', /typeof api/)
    const fine = await api.check(
      'try { return await api.add({ a: 1 }) } catch (error) { if (error instanceof ApiError) return error.toolName }',
    )
    assert.deepEqual(fine, { refused: false, errors: [], hints: [] })
  })

  it('refuses an unknown mode as an invalid option', () => {
    const tools = [{ name: 'a', inputSchema: {}, execute: () => Promise.resolve(null) }]
    assert.throws(
      () => createCodeMode({ tools, runtime: unusedRuntime, typeCheck: 'loose' as TypeCheckMode }),
      (error: unknown) =>
        CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS' && error.message.includes('typeCheck'),
    )
  })
})
