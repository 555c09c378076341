/**
 * How a LangChain tool's schema becomes its SDK declaration: Zod 4, Zod 3 and JSON Schema tools of
 * the same shape give the same SDK text, and what Code Mode cannot read or run is refused at
 * `codeModeTool()`, naming the tool and what to do.
 */
import { startRuntime } from './langchain-test-env.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeModeError } from '@code-runtime/code-mode'
import type { StartedCodeRuntime } from '@code-runtime/core'
import type { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool } from '@code-runtime/langchain'
import { DynamicStructuredTool, tool, type ClientTool } from '@langchain/core/tools'
import type { JSONSchema } from '@langchain/core/utils/json_schema'
import type { InteropZodType } from '@langchain/core/utils/types'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'

const zod4Input = z.object({
  city: z.string().describe('City name, e.g. Berlin'),
  days: z.number().int().min(1).max(7).optional().describe('How many days ahead'),
  units: z.enum(['metric', 'imperial']).default('metric'),
  tags: z.array(z.string()).optional(),
  at: z.object({ lat: z.number(), lon: z.number() }).optional(),
  note: z.string().nullable().optional(),
})
const zod3Input = z3.object({
  city: z3.string().describe('City name, e.g. Berlin'),
  days: z3.number().int().min(1).max(7).optional().describe('How many days ahead'),
  units: z3.enum(['metric', 'imperial']).default('metric'),
  tags: z3.array(z3.string()).optional(),
  at: z3.object({ lat: z3.number(), lon: z3.number() }).optional(),
  note: z3.string().nullable().optional(),
})
const jsonInput: JSONSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Berlin' },
    days: { type: 'integer', minimum: 1, maximum: 7, description: 'How many days ahead' },
    units: { type: 'string', enum: ['metric', 'imperial'], default: 'metric' },
    tags: { type: 'array', items: { type: 'string' } },
    at: {
      type: 'object',
      properties: { lat: { type: 'number' }, lon: { type: 'number' } },
      required: ['lat', 'lon'],
      additionalProperties: false,
    },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['city'],
  additionalProperties: false,
}

function forecast(schema: InteropZodType | JSONSchema): ClientTool {
  return new DynamicStructuredTool({
    name: 'forecast',
    description: 'The weather ahead.',
    schema,
    func: async () => 'sunny',
  })
}

function refusal(action: () => unknown): CodeModeError {
  try {
    action()
  } catch (error) {
    assert.ok(CodeModeError.is(error), String(error))
    return error
  }
  assert.fail('expected a refusal')
}

describe('LangChain tool schemas in the SDK', () => {
  let started: StartedCodeRuntime<WorkerThreadCodeRuntime>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('gives Zod 4, Zod 3 and JSON Schema tools of the same shape the same SDK text', () => {
    // LangChain's Zod 3 types do not hold under exactOptionalPropertyTypes (our tsconfig): the cast is for the compiler only.
    const [fromZod4, fromZod3, fromJson] = [zod4Input, zod3Input as unknown as InteropZodType, jsonInput].map(
      schema => codeModeTool({ tools: [forecast(schema)], runtime: started.runtime }).description,
    )
    assert.equal(fromZod4, fromJson)
    assert.equal(fromZod3, fromJson)
    // Typed field by field, defaults optional (the input side), never `unknown`.
    assert.match(
      fromJson ?? '',
      /\/\*\* City name, e\.g\. Berlin \*\/\n {4}city: string\n {4}\/\*\* How many days ahead @integer @minimum 1 @maximum 7 \*\/\n {4}days\?: number\n/,
    )
    assert.match(fromJson ?? '', /\/\*\* @default "metric" \*\/\n {4}units\?: "metric" \| "imperial"/)
    assert.match(fromJson ?? '', /note\?: string \| null/)
  })

  it('keeps every tool: LangChain tools carry no approval flag, so none is left out of the SDK', () => {
    const tools = ['read_file', 'delete_file'].map(name =>
      tool(async () => 'ok', { name, description: `${name}.`, schema: z.object({ path: z.string() }) }),
    )
    const runCode = codeModeTool({ tools, runtime: started.runtime })
    assert.deepEqual([...runCode.codeMode.sdk.memberNames.keys()], ['delete_file', 'read_file'])
  })

  it('refuses a tool definition without a function (StructuredToolParams), naming it', () => {
    const definition = { name: 'lookup', description: 'Client-side lookup.', schema: z.object({ id: z.string() }) }
    const error = refusal(() =>
      codeModeTool({ tools: [definition as unknown as ClientTool], runtime: started.runtime }),
    )
    assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
    assert.equal(error.field, 'tools[0]')
    assert.match(error.message, /"lookup"/)
    assert.match(error.message, /without a function/)
    assert.match(error.message, /beside run_code/)
  })

  it('refuses provider tools and OpenAI-style tool definitions, naming them', () => {
    const hosted = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }
    let error = refusal(() => codeModeTool({ tools: [hosted as unknown as ClientTool], runtime: started.runtime }))
    assert.match(error.message, /tools\[0\] \("web_search"\) is a provider tool/)
    const definition = {
      type: 'function',
      function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
    }
    error = refusal(() => codeModeTool({ tools: [definition as unknown as ClientTool], runtime: started.runtime }))
    assert.match(error.message, /\("get_time"\)/)
    assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
  })

  it('refuses a Zod schema LangChain cannot write as JSON Schema, with the reason', () => {
    const when = tool(async () => 'ok', { name: 'when', description: 'Dates.', schema: z.object({ at: z.date() }) })
    const error = refusal(() => codeModeTool({ tools: [when], runtime: started.runtime }))
    assert.equal(error.field, 'tools[0].schema')
    assert.match(error.message, /tool "when"/)
    assert.match(error.message, /Date cannot be represented in JSON Schema/)
  })

  it('refuses a schema that is neither Zod nor JSON Schema, naming the tool', () => {
    const mapOfProperties = { city: { type: 'string' } } as unknown as JSONSchema
    let error = refusal(() => codeModeTool({ tools: [forecast(mapOfProperties)], runtime: started.runtime }))
    assert.match(error.message, /tools\[0\]\.schema \(tool "forecast"\) is not a JSON Schema/)
    const otherLibrary = {
      '~standard': { version: 1, vendor: 'valibot', validate: (value: unknown) => ({ value }) },
    } as unknown as JSONSchema
    error = refusal(() => codeModeTool({ tools: [forecast(otherLibrary)], runtime: started.runtime }))
    assert.match(error.message, /Standard Schema that is not Zod/)
  })

  it('refuses a value that is not a tool, and two tools with one name', () => {
    let error = refusal(() =>
      codeModeTool({ tools: [(() => 'hi') as unknown as ClientTool], runtime: started.runtime }),
    )
    assert.match(error.message, /is not a LangChain tool/)
    const twice = [1, 2].map(() => tool(async () => 1, { name: 'same', description: 'Same.', schema: z.object({}) }))
    error = refusal(() => codeModeTool({ tools: twice, runtime: started.runtime }))
    assert.equal(error.code, 'CODE_MODE_DUPLICATE_TOOL_NAME')
  })
})
