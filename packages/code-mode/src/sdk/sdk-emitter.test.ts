import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeModeError } from '../errors.js'
import { emitSdk } from './sdk-emitter.js'
import type { CodeModeTool, CodeModeToolDescription } from '../tools/tool-definition.js'

const objectOf = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
})

const TOOLS: CodeModeToolDescription[] = [
  {
    name: 'read-file',
    description: 'Read a file.\nReturns its text.',
    inputSchema: objectOf({ path: { type: 'string' } }, ['path']),
    outputSchema: objectOf({ content: { type: 'string' } }, ['content']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'write_file',
    description: 'Write a file.',
    inputSchema: objectOf({ path: { type: 'string' }, text: { type: 'string' } }, ['path', 'text']),
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
  { name: 'list', description: 'List entries.', inputSchema: objectOf({ limit: { type: 'integer' } }) },
  { name: 'ping', inputSchema: { type: 'object', properties: {} } },
]

function assertCode(action: () => unknown, code: string, ...fragments: string[]): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(CodeModeError.is(error), `expected a CodeModeError, got ${String(error)}`)
    assert.equal(error.code, code)
    for (const fragment of fragments) assert.ok(error.message.includes(fragment), `${error.message} lacks ${fragment}`)
    return true
  })
}

describe('emitSdk', () => {
  it('declares one async method per tool, sorted by member name', () => {
    const { declarations } = emitSdk(TOOLS)
    const methods = [...declarations.matchAll(/^ {2}(\w+)\(/gm)].map(match => match[1])
    assert.deepEqual(methods, ['list', 'ping', 'read_file', 'write_file'])
    assert.ok(declarations.includes('declare const tools: {\n'))
  })

  it('gives the same text whatever the order of the tools', () => {
    const expected = emitSdk(TOOLS).text
    assert.equal(emitSdk([...TOOLS].reverse()).text, expected)
    assert.equal(emitSdk([...TOOLS.slice(2), ...TOOLS.slice(0, 2)]).text, expected)
  })

  it('keeps the full description and names the tool when its member differs', () => {
    const { declarations } = emitSdk(TOOLS)
    assert.ok(
      declarations.includes(
        '  /**\n   * Read a file.\n   * Returns its text.\n   * @tool read-file @readOnly\n   */\n  read_file(',
      ),
      declarations,
    )
    assert.ok(declarations.includes('/** Write a file. @destructive @needsApproval */\n  write_file('), declarations)
  })

  it('types the result from outputSchema, else as unknown', () => {
    const { declarations } = emitSdk(TOOLS)
    assert.ok(declarations.includes('read_file(args: { path: string }): Promise<{ content: string }>'), declarations)
    assert.ok(declarations.includes('write_file(args: { path: string; text: string }): Promise<unknown>'), declarations)
  })

  it('lets the program leave out arguments that are all optional, and takes none when none are declared', () => {
    const { declarations } = emitSdk(TOOLS)
    assert.ok(declarations.includes('list(args?: { /** @integer */ limit?: number }): Promise<unknown>'), declarations)
    assert.ok(declarations.includes('  ping(): Promise<unknown>'), declarations)
  })

  it('declares the error class with its toolName', () => {
    const { declarations } = emitSdk(TOOLS)
    assert.ok(declarations.includes('declare class ToolCallError extends Error { readonly toolName: string }'))
  })

  it('returns the member of each tool by tool name', () => {
    const { memberNames } = emitSdk(TOOLS)
    assert.deepEqual(
      [...memberNames],
      [
        ['list', 'list'],
        ['ping', 'ping'],
        ['read-file', 'read_file'],
        ['write_file', 'write_file'],
      ],
    )
  })

  it('puts the instructions before the declarations in a code fence', () => {
    const sdk = emitSdk(TOOLS)
    assert.equal(sdk.text, `${sdk.instructions}\n\n\`\`\`ts\n${sdk.declarations}\`\`\`\n`)
    for (const fragment of [
      'async function',
      'erasable',
      'await tools.',
      'ToolCallError',
      'toolName',
      'Promise.all',
      'only what you need next',
    ]) {
      assert.ok(sdk.instructions.includes(fragment), `instructions lack ${fragment}`)
    }
  })

  it('fences the declarations with more backticks than any description holds', () => {
    const sdk = emitSdk([
      { name: 'run', description: 'Example:\n````ts\nawait x()\n````\nThen ``` again.', inputSchema: {} },
    ])
    assert.ok(sdk.text.endsWith(`\n\n\`\`\`\`\`ts\n${sdk.declarations}\`\`\`\`\`\n`), sdk.text)
  })

  it('uses the namespace and error class names it is given', () => {
    const sdk = emitSdk(TOOLS, { namespace: 'api', errorClassName: 'ApiError' })
    assert.ok(sdk.declarations.includes('declare const api: {'))
    assert.ok(sdk.declarations.includes('declare class ApiError extends Error { readonly toolName: string }'))
    assert.ok(sdk.instructions.includes('await api.name(args)'))
    assert.ok(!sdk.text.includes('tools.'))
  })

  it('shares a shape that several tools repeat, under a name they have in common', () => {
    const entity = {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The name of the entity' },
        kind: { type: 'string', description: 'The kind of the entity' },
      },
      required: ['name', 'kind'],
    }
    const tools = ['create', 'delete', 'open'].map(verb => ({
      name: `${verb}_entities`,
      inputSchema: objectOf({ entities: { type: 'array', items: entity }, [`${verb}Reason`]: { type: 'string' } }, [
        'entities',
      ]),
    }))
    const { declarations } = emitSdk(tools)
    assert.ok(declarations.includes('type Entity = {\n  /** The name of the entity */\n  name: string\n'), declarations)
    assert.equal(declarations.match(/The name of the entity/g)?.length, 1)
    assert.ok(
      declarations.includes('create_entities(args: { entities: Entity[]; createReason?: string })'),
      declarations,
    )
    // Whole argument objects that repeat are shared too, named by the words their tools share.
    const same = emitSdk(
      ['create', 'delete', 'open'].map(verb => ({
        name: `${verb}_entities`,
        inputSchema: objectOf({ entities: { type: 'array', items: entity } }),
      })),
    )
    assert.ok(same.declarations.includes('  delete_entities(args?: EntitiesArgs): Promise<unknown>'), same.declarations)
  })

  it('merges equal $defs of different tools and keeps different ones apart', () => {
    const point = { type: 'object', properties: { x: { type: 'number' } } }
    const other = { type: 'object', properties: { lat: { type: 'number' } } }
    const withDefs = (name: string, definition: unknown): CodeModeToolDescription => ({
      name,
      inputSchema: { type: 'object', properties: { at: { $ref: '#/$defs/Point' } }, $defs: { Point: definition } },
    })
    const { declarations } = emitSdk([withDefs('a', point), withDefs('b', point), withDefs('c', other)])
    assert.ok(declarations.includes('type Point = { x?: number }'))
    assert.ok(declarations.includes('type Point2 = { lat?: number }'))
    assert.ok(
      declarations.includes('  a(args?: { at?: Point })') && declarations.includes('  b(args?: { at?: Point })'),
    )
    assert.ok(declarations.includes('  c(args?: { at?: Point2 })'))
  })

  it('accepts full tools with execute', () => {
    const tool: CodeModeTool = {
      name: 'echo',
      inputSchema: objectOf({ text: { type: 'string' } }, ['text']),
      execute: async args => args,
    }
    assert.ok(emitSdk([tool]).declarations.includes('echo(args: { text: string }): Promise<unknown>'))
  })

  it('refuses duplicate tool names', () => {
    assertCode(() => emitSdk([...TOOLS, { name: 'list', inputSchema: {} }]), 'CODE_MODE_DUPLICATE_TOOL_NAME', '"list"')
  })

  it('refuses malformed tool definitions, naming the field', () => {
    assertCode(() => emitSdk([{ name: '', inputSchema: {} }]), 'CODE_MODE_INVALID_TOOL', 'tools[0].name')
    assertCode(
      () => emitSdk([{ name: 'x', inputSchema: 'string' } as unknown as CodeModeToolDescription]),
      'CODE_MODE_INVALID_TOOL',
      'tools[0].inputSchema',
    )
    assertCode(
      () =>
        emitSdk([
          { name: 'x', inputSchema: {}, annotations: { readOnlyHint: 'yes' } } as unknown as CodeModeToolDescription,
        ]),
      'CODE_MODE_INVALID_TOOL',
      'tools[0].annotations.readOnlyHint',
    )
    assertCode(() => emitSdk('tools' as unknown as CodeModeToolDescription[]), 'CODE_MODE_INVALID_TOOL', 'tools')
  })

  it('refuses global names the runtime would refuse or the standard library already has', () => {
    assertCode(() => emitSdk(TOOLS, { namespace: 'my-tools' }), 'CODE_MODE_INVALID_OPTIONS', 'namespace')
    assertCode(() => emitSdk(TOOLS, { namespace: 'class' }), 'CODE_MODE_INVALID_OPTIONS', 'reserved word')
    assertCode(() => emitSdk(TOOLS, { namespace: 'console' }), 'CODE_MODE_INVALID_OPTIONS', 'namespace')
    assertCode(() => emitSdk(TOOLS, { errorClassName: 'Error' }), 'CODE_MODE_INVALID_OPTIONS', 'errorClassName')
    assertCode(
      () => emitSdk(TOOLS, { namespace: 'tools', errorClassName: 'tools' }),
      'CODE_MODE_INVALID_OPTIONS',
      'must differ',
    )
    assertCode(
      () => emitSdk(TOOLS, { nameSpace: 'x' } as unknown as { namespace: string }),
      'CODE_MODE_INVALID_OPTIONS',
      'unknown field "nameSpace" (did you mean "namespace"?)',
      'known fields are namespace, errorClassName',
    )
  })
})
