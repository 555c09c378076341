// The emitted SDK must be valid TypeScript under `tsc --strict --noEmit --lib es2022`, and
// programs written against it must type-check when right and fail when wrong.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '@code-runtime/code-mode'
import { CORPUS_SERVERS, readCorpus, readFullCorpus } from './corpus.js'
import { typeCheck } from './type-check.js'

/** What the runtime gives every program besides the SDK. */
const PROGRAM_GLOBALS = 'declare const console: { log(...values: unknown[]): void }\n'

/** Wraps a program body the way the runtime runs it: as the body of an async function. */
function asProgram(body: string): string {
  return `${PROGRAM_GLOBALS}async function program() {\n${body}\n}\nvoid program\n`
}

const fullSdk = emitSdk(readFullCorpus())

describe('SDK type check', () => {
  it('passes tsc --strict for the full corpus', () => {
    assert.deepEqual(typeCheck({ 'sdk.ts': fullSdk.declarations }), [])
  })

  it('passes tsc --strict for each corpus file alone', () => {
    for (const server of CORPUS_SERVERS) {
      assert.deepEqual(typeCheck({ 'sdk.ts': emitSdk(readCorpus(server)).declarations }), [], server)
    }
  })

  it('declares every member as an async function', () => {
    const checks = [...fullSdk.memberNames.values()]
      .map(member => `void (tools.${member} satisfies (...args: never[]) => Promise<unknown>)`)
      .join('\n')
    assert.deepEqual(typeCheck({ 'sdk.ts': fullSdk.declarations, 'members.ts': asProgram(checks) }), [])
  })

  it('type-checks a program that uses the SDK as intended', () => {
    const program = asProgram(`
      const file = await tools.read_text_file({ path: '/data/notes.md', head: 20 })
      const firstLine: string = file.content.split('\\n')[0] ?? ''
      const graph = await tools.read_graph()
      const names: string[] = graph.entities.map((entity) => entity.name)
      await tools.create_relations({ relations: [{ from: 'a', to: 'b', relationType: 'knows' }] })
      const [sum, env] = await Promise.all([tools.get_sum({ a: 1, b: 2 }), tools.get_env()])
      const weather = await tools.get_structured_content({ location: 'Chicago' })
      const celsius: number = weather.temperature
      const thought = await tools.sequentialthinking({ thought: 'x', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3 })
      const tree = await tools.get_tree({ path: '/' })
      const childNames = (tree.root.children ?? []).map((child) => child.name + child.kind)
      await tools.create_order({ customerId: 'c1', items: [{ sku: 's', quantity: 2, price: { amount: '9.50' } }], shipTo: { street: 'Main 1', city: 'X', country: 'DE' } })
      await tools.store_json({ key: 'k', value: { nested: [1, 'two', null, { deep: true }] } })
      await tools.filter_records({ and: [{ field: 'a', equals: 1 }, { not: { field: 'b', equals: 'x' } }] })
      await tools.emit_event({ event: { type: 'scroll', deltaY: 10 } })
      await tools.patch_user({ id: 'u', nickname: null, manager: null })
      await tools.set_labels({ target: 't', labels: { env: 'prod' } })
      await tools.u641c_u7d22({ 查询: '文档' })
      const distance = await tools.geo_distance({ from: [52.5, 13.4], to: [48.1, 11.6] })
      try {
        await tools.delete_({ id: 'x' })
      } catch (error) {
        if (error instanceof ToolCallError) console.log(error.toolName, error.message)
      }
      return { firstLine, names, sum, env, celsius, thought: thought.nextThoughtNeeded, childNames, meters: distance.meters }
    `)
    assert.deepEqual(typeCheck({ 'sdk.ts': fullSdk.declarations, 'program.ts': program }), [])
  })

  // Injection through tool metadata: text from an upstream server must stay text, never become
  // declarations the program (or a model reading the SDK) could take for real.
  it('keeps hostile names, descriptions and values inside their comments and strings', () => {
    const injection = '*/ declare const evil: number; /*'
    const sdk = emitSdk([
      {
        name: `x${injection}`,
        description: `${injection}\n${injection}`,
        inputSchema: {
          type: 'object',
          properties: {
            [injection]: {
              type: 'string',
              description: injection,
              default: injection,
              pattern: injection,
              format: injection,
            },
            choice: { enum: [injection, '"; declare const evil: number; "'] },
            ref: { $ref: `https://example.com/${injection}` },
            pattern: { type: 'object', patternProperties: { [injection]: { type: 'string' } } },
            named: { $ref: `#/$defs/${injection.replace(/~/g, '~0').replace(/\//g, '~1')}` },
          },
          $defs: { [injection]: { type: 'string' } },
        },
      },
    ])
    assert.ok(sdk.declarations.includes('type DeclareConstEvilNumber = string'), sdk.declarations)
    const program = asProgram('return evil')
    const diagnostics = typeCheck({ 'sdk.ts': sdk.declarations, 'program.ts': program })
    assert.equal(diagnostics.length, 1, diagnostics.join('\n'))
    assert.ok(diagnostics[0]?.includes("Cannot find name 'evil'"), diagnostics[0])
  })

  it('rejects programs that call tools wrongly', () => {
    const mistakes = [
      'await tools.get_sum({ a: "one", b: 2 })',
      'await tools.read_text_file({})',
      'await tools.get_structured_content({ location: "Paris" })',
      'await tools.emit_event({ event: { type: "scroll", x: 1 } })',
      'await tools.geo_distance({ from: [1], to: [1, 2] })',
      'await tools.no_such_tool({})',
      'const text: number = (await tools.read_text_file({ path: "a" })).content',
    ]
    for (const mistake of mistakes) {
      const diagnostics = typeCheck({ 'sdk.ts': fullSdk.declarations, 'program.ts': asProgram(mistake) })
      assert.ok(diagnostics.length > 0, `expected an error for ${mistake}`)
      assert.ok(
        diagnostics.every(diagnostic => diagnostic.startsWith('program.ts:')),
        diagnostics.join('\n'),
      )
    }
  })
})
