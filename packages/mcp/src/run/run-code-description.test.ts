import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RUN_CODE_SESSION_SENTENCE } from '@code-runtime/code-mode'
import { presentTools } from './run-code-description.js'
import { buildToolCatalog } from '../upstream/tool-catalog.js'
import type { UpstreamServer } from '../upstream/upstream-clients.js'

/** A phrase of each rule for writing a program; the model should read each exactly once. */
const PROGRAM_RULES = [
  'body of an async function',
  'erasable syntax only',
  'await tools.name(args)',
  'throws ToolCallError',
  'Promise.all',
  'console.log',
]

function occurrences(text: string, phrase: string): number {
  return text.split(phrase).length - 1
}

// What the catalog reads of a server; the connection itself plays no part in the description.
function connectedServer(name: string, toolNames: readonly string[]): UpstreamServer {
  const tools = toolNames.map(tool => ({ name: tool, description: `Does ${tool}.`, inputSchema: { type: 'object' } }))
  return { name, tools, failure: undefined, isConnecting: false, config: { exclude: [] } } as unknown as UpstreamServer
}

describe('run_code description', () => {
  const catalog = buildToolCatalog([connectedServer('files', ['read', 'write']), connectedServer('memory', ['recall'])])

  it('states each rule for writing a program once, with the SDK in full', () => {
    const presentation = presentTools(catalog, 1_000_000)
    assert.equal(presentation.mode, 'full')
    assert.match(presentation.runCodeDescription, /files_read\(/)
    for (const rule of PROGRAM_RULES) assert.equal(occurrences(presentation.runCodeDescription, rule), 1, rule)
  })

  it('states each rule once with an index instead of the SDK, and says where the declarations are', () => {
    const presentation = presentTools(catalog, 10)
    assert.equal(presentation.mode, 'index')
    assert.match(presentation.runCodeDescription, /^- memory_recall: Does recall\.$/m)
    assert.match(presentation.runCodeDescription, /call get_tool_types with the members/)
    for (const rule of PROGRAM_RULES) assert.equal(occurrences(presentation.runCodeDescription, rule), 1, rule)
  })

  it('says in one sentence that variables persist, only when runs keep them, in both modes', () => {
    for (const maxSdkChars of [1_000_000, 10]) {
      assert.equal(
        occurrences(
          presentTools(catalog, maxSdkChars, { session: true }).runCodeDescription,
          RUN_CODE_SESSION_SENTENCE,
        ),
        1,
      )
      assert.equal(occurrences(presentTools(catalog, maxSdkChars).runCodeDescription, 'persist'), 0)
    }
  })
})
