/**
 * Mastra tools' schemas in the SDK: Zod and JSON Schema (both of which createTool takes) give the
 * same text for the same shapes, both are checked by Mastra's own validator, and a tool without
 * schemas is typed as Mastra offers it.
 */
import './offline.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { PublicSchema } from '@mastra/core/schema'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { codeModeTool } from '@code-runtime/mastra'
import { runCodeOutputs, scriptedAgent, startRuntime } from './support.js'

const zodInput = z.object({
  city: z.string().describe('City name, e.g. Berlin'),
  days: z.number().int().min(1).max(7).optional().describe('How many days ahead'),
  units: z.enum(['metric', 'imperial']).optional(),
  tags: z.array(z.string()).optional(),
  at: z.object({ lat: z.number(), lon: z.number() }).optional(),
  note: z.string().nullable().optional(),
})
// What Mastra's own export of zodInput says: objects closed (Mastra closes them for the model).
const jsonInput: PublicSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Berlin' },
    days: { type: 'integer', minimum: 1, maximum: 7, description: 'How many days ahead' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
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
const zodOutput = z.object({ celsius: z.number(), sky: z.enum(['clear', 'cloudy', 'rain']) })
const jsonOutput: PublicSchema = {
  type: 'object',
  properties: { celsius: { type: 'number' }, sky: { type: 'string', enum: ['clear', 'cloudy', 'rain'] } },
  required: ['celsius', 'sky'],
  additionalProperties: false,
}

describe('Mastra tool schemas in the SDK', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('give the same SDK text for the same shapes in Zod and in JSON Schema', () => {
    const fromZod = createTool({
      id: 'forecast',
      description: 'Forecast.',
      inputSchema: zodInput,
      outputSchema: zodOutput,
      execute: async () => ({ celsius: 1, sky: 'clear' as const }),
    })
    const fromJson = createTool({
      id: 'forecast',
      description: 'Forecast.',
      inputSchema: jsonInput,
      outputSchema: jsonOutput,
      execute: async () => ({ celsius: 1, sky: 'clear' }),
    })
    const zodText = codeModeTool({ tools: { forecast: fromZod }, runtime: started.runtime }).description
    const jsonText = codeModeTool({ tools: { forecast: fromJson }, runtime: started.runtime }).description
    assert.equal(zodText, jsonText)
    // Typed field by field, never `unknown`.
    assert.match(
      zodText,
      /\/\*\* City name, e\.g\. Berlin \*\/\n {4}city: string\n {4}\/\*\* How many days ahead @integer @minimum 1 @maximum 7 \*\/\n {4}days\?: number\n/,
    )
    assert.match(zodText, /\}\): Promise<\{ celsius: number; sky: "clear" \| "cloudy" \| "rain" \}>/)
  })

  it("checks JSON Schema arguments with Mastra's own validator, before the tool runs", async () => {
    let ran = 0
    const convert = createTool({
      id: 'convert',
      description: 'C to F.',
      inputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      execute: async () => (ran++, 0),
    })
    const { agent } = scriptedAgent(
      { run_code: codeModeTool({ tools: { convert }, runtime: started.runtime, typeCheck: 'off' }) },
      ["try { return await tools.convert({ celsius: 'hot' }) } catch (error) { return error.message }"],
    )
    const [output] = runCodeOutputs(await agent.generate('go'))
    assert.match(String(output?.structured.result), /^tools\.convert: args\.celsius: must be number\.$/)
    assert.equal(ran, 0)
  })

  it('types a tool without schemas as Mastra offers it: no arguments, an unknown result', () => {
    const ping = createTool({ id: 'ping', description: 'Pings.', execute: async () => 'pong' })
    const text = codeModeTool({ tools: { ping }, runtime: started.runtime }).description
    assert.match(text, /\/\*\* Pings\. \*\/\n {2}ping\(\): Promise<unknown>/)
  })

  it("carries Mastra's MCP annotations: a read-only tool is marked @readOnly", () => {
    const read = createTool({
      id: 'read',
      description: 'Reads.',
      mcp: { annotations: { readOnlyHint: true } },
      execute: async () => 'text',
    })
    assert.match(
      codeModeTool({ tools: { read }, runtime: started.runtime }).description,
      /\/\*\* Reads\. @readOnly \*\//,
    )
  })
})
