/**
 * What codeModeTool refuses (naming the tool and what to do) and what it leaves out of the SDK:
 * tools a program cannot run are refused, tools that need a person are left for the Agent.
 */
import './offline.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ToolsInput } from '@mastra/core/agent'
import type { StandardSchemaWithJSON } from '@mastra/core/schema'
import { createTool, webSearchTool } from '@mastra/core/tools'
import { tool as aiSdkTool } from 'ai'
import { z } from 'zod'
import { CodeModeError } from '@code-runtime/code-mode'
import { codeModeTool, type CodeModeToolOptions } from '@code-runtime/mastra'
import { startRuntime } from './support.js'

function refusal(action: () => unknown): CodeModeError {
  try {
    action()
  } catch (error) {
    assert.ok(CodeModeError.is(error), String(error))
    return error
  }
  assert.fail('expected a refusal')
}

const lookup = createTool({
  id: 'lookup',
  description: 'Looks a word up.',
  inputSchema: z.object({ word: z.string() }),
  execute: async () => 'found',
})

describe('codeModeTool refusals', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })
  const refuseTools = (tools: ToolsInput): CodeModeError =>
    refusal(() => codeModeTool({ tools, runtime: started.runtime }))

  it('refuses an AI SDK tool by name, with the way to make it a Mastra tool', () => {
    // Mastra 1.71 types AI SDK tools with its own copy of older AI SDK types; the installed ai 7 tool is the same at run time.
    const weather = aiSdkTool({
      description: 'Weather.',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => 'sunny',
    }) as unknown as ToolsInput[string]
    const error = refuseTools({ lookup, weather })
    assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
    assert.equal(error.field, 'tools.weather')
    assert.match(
      error.message,
      /tools\.weather is an AI SDK tool; .*createTool\(\) from @mastra\/core\/tools.*beside run_code/,
    )
  })

  it("refuses provider tools, which the model's provider runs", () => {
    // The shape of the AI SDK's provider tools (openai.tools.webSearch() and the like); no provider package is installed here.
    const providerTool = {
      type: 'provider',
      id: 'openai.web_search',
      args: {},
      inputSchema: {},
    } as unknown as ToolsInput[string]
    let error = refuseTools({ search: providerTool })
    assert.equal(error.field, 'tools.search')
    assert.match(error.message, /tools\.search is a provider-defined tool \(openai\.web_search\).*beside run_code/)
    // Mastra's own placeholder for the provider's web search is refused too.
    error = refuseTools({ web: webSearchTool })
    assert.match(error.message, /tools\.web is not a Mastra tool: .*webSearchTool/)
  })

  it('refuses a Mastra tool without execute (a client-side tool)', () => {
    const pickColor = createTool({
      id: 'pick-color',
      description: 'The user picks a color in the app.',
      inputSchema: z.object({ palette: z.array(z.string()) }),
    })
    const error = refuseTools({ pickColor })
    assert.equal(error.field, 'tools.pickColor')
    assert.match(error.message, /tools\.pickColor has no execute function.*beside run_code/)
  })

  it('refuses a schema that has no JSON Schema form, naming the tool', () => {
    // A validator library whose JSON Schema export fails, as libraries do for types JSON cannot carry.
    const schema: StandardSchemaWithJSON = {
      '~standard': {
        version: 1,
        vendor: 'some-library',
        validate: value => ({ value }),
        jsonSchema: {
          input: () => {
            throw new Error('cannot represent a BigInt')
          },
          output: () => {
            throw new Error('cannot represent a BigInt')
          },
        },
      },
    }
    const count = createTool({ id: 'count', description: 'Counts.', inputSchema: schema, execute: async () => 1 })
    const error = refuseTools({ count })
    assert.equal(error.field, 'tools.count.inputSchema')
    assert.match(error.message, /tools\.count\.inputSchema cannot be read as JSON Schema \(cannot represent a BigInt\)/)
  })

  it('refuses tools that are not a record as Agent takes them, and values that are not tools', () => {
    let error = refusal(() => codeModeTool({ tools: [lookup] as unknown as ToolsInput, runtime: started.runtime }))
    assert.equal(error.field, 'tools')
    assert.match(error.message, /tools must be a record of Mastra tools, as Agent takes them/)
    error = refuseTools({ lookup: 'lookup' as unknown as ToolsInput[string] })
    assert.match(error.message, /tools\.lookup must be a Mastra tool made with createTool\(\)/)
  })

  it('refuses unknown options, suggesting the close one', () => {
    const options = { tools: { lookup }, runtime: started.runtime, maxParalel: 2 } as unknown as CodeModeToolOptions
    const error = refusal(() => codeModeTool(options))
    assert.equal(error.code, 'CODE_MODE_INVALID_OPTIONS')
    assert.match(error.message, /unknown field "maxParalel" \(did you mean "maxParallel"\?\)/)
    assert.equal(refusal(() => codeModeTool({ tools: { lookup }, runtime: started.runtime, id: '' })).field, 'id')
    // Code Mode's own options are checked by Code Mode.
    assert.equal(
      refusal(() => codeModeTool({ tools: { lookup }, runtime: started.runtime, maxParallel: 0 })).code,
      'CODE_MODE_INVALID_OPTIONS',
    )
  })
})

describe('tools that need a person', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('leaves tools needing approval, or suspending for an answer, out of the SDK', () => {
    const refund = createTool({
      id: 'refund',
      description: 'Refunds an order.',
      requireApproval: true,
      execute: async () => 'refunded',
    })
    const bigRefund = createTool({
      id: 'big-refund',
      description: 'Refunds, asking above 100.',
      inputSchema: z.object({ cents: z.number() }),
      requireApproval: ({ cents }) => cents > 10_000,
      execute: async () => 'refunded',
    })
    const confirm = createTool({
      id: 'confirm',
      description: 'Asks the user to confirm.',
      suspendSchema: z.object({ question: z.string() }),
      resumeSchema: z.object({ yes: z.boolean() }),
      execute: async () => 'ok',
    })
    const runCode = codeModeTool({ tools: { lookup, refund, bigRefund, confirm }, runtime: started.runtime })
    assert.match(runCode.description, /lookup\(args: \{ word: string \}\)/)
    for (const name of ['refund', 'bigRefund', 'confirm'])
      assert.doesNotMatch(runCode.description, new RegExp(`\\b${name}\\(`))
  })

  it('is a Mastra tool with the id run_code, or the id given', () => {
    assert.equal(codeModeTool({ tools: { lookup }, runtime: started.runtime }).id, 'run_code')
    assert.equal(codeModeTool({ tools: { lookup }, runtime: started.runtime, id: 'run_shop_code' }).id, 'run_shop_code')
  })
})
