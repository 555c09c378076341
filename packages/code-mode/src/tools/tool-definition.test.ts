import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeModeError } from '../errors.js'
import { parseToolDescriptions } from './tool-definition.js'

describe('parseToolDescriptions', () => {
  it('keeps only the descriptive fields, frozen', () => {
    const execute = async (): Promise<unknown> => null
    const [tool] = parseToolDescriptions([
      {
        name: 'search',
        description: 'Search.',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'string' },
        annotations: { title: 'Search', readOnlyHint: true, unknownHint: 1 },
        concurrencySafe: true,
        execute,
        extra: 1,
      },
    ])
    assert.deepEqual(tool, {
      name: 'search',
      description: 'Search.',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'string' },
      annotations: { title: 'Search', readOnlyHint: true },
      concurrencySafe: true,
    })
    assert.ok(Object.isFrozen(tool) && Object.isFrozen(tool?.annotations))
  })

  it('leaves absent optional fields absent rather than undefined', () => {
    const [tool] = parseToolDescriptions([{ name: 'ping', inputSchema: {} }])
    assert.deepEqual(Object.keys(tool ?? {}), ['name', 'inputSchema'])
  })

  it('refuses each malformed field with its path', () => {
    const cases: Array<[unknown, string]> = [
      [[null], 'tools[0]'],
      [[{ name: 5, inputSchema: {} }], 'tools[0].name'],
      [[{ name: 'a', description: 5, inputSchema: {} }], 'tools[0].description'],
      [[{ name: 'a', inputSchema: [] }], 'tools[0].inputSchema'],
      [[{ name: 'a', inputSchema: {}, outputSchema: true }], 'tools[0].outputSchema'],
      [[{ name: 'a', inputSchema: {}, concurrencySafe: 'yes' }], 'tools[0].concurrencySafe'],
      [[{ name: 'a', inputSchema: {}, annotations: { title: 1 } }], 'tools[0].annotations.title'],
    ]
    for (const [tools, field] of cases) {
      assert.throws(
        () => parseToolDescriptions(tools),
        (error: unknown) => {
          assert.ok(CodeModeError.is(error))
          assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
          assert.equal(error.field, field)
          return true
        },
      )
    }
  })

  it('words a refusal as every config refusal: the path, the rule, then the value received', () => {
    assert.throws(
      () =>
        parseToolDescriptions([
          { name: 'a', inputSchema: {} },
          { name: 5, inputSchema: {} },
        ]),
      { message: 'Invalid tool: tools[1].name must be a non-empty string, got 5.' },
    )
    assert.throws(() => parseToolDescriptions('search'), {
      message: 'Invalid tool: tools must be an array of tool definitions, got "search".',
    })
  })
})
