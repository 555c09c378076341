/**
 * How an AI SDK ToolSet becomes the SDK text: Zod (3 and 4) and `jsonSchema()` tools give the same
 * text for the same shapes, approval tools are left out, and what a program cannot call or Code
 * Mode cannot read is refused by the tool's name with what to do.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateText, jsonSchema, stepCountIs, tool, type JSONSchema7, type Tool, type ToolSet } from 'ai'
import { z } from 'zod'
import * as z3 from 'zod/v3'
import { CodeModeError, codeModeTool, toolsNeedingApproval, type CodeModeToolResult } from '@code-runtime/ai-sdk'
import { NO_TELEMETRY, scriptedModel, startRuntime } from './scripted-models.js'

// No run happens in the SDK-text tests: a runtime that is never called is enough there.
const IDLE_RUNTIME = { run: async () => assert.fail('nothing runs here') }

function descriptionOf(
  tools: ToolSet,
  options: { toolAnnotations?: Record<string, { readOnlyHint?: boolean; destructiveHint?: boolean }> } = {},
): string {
  return String(codeModeTool({ tools, runtime: IDLE_RUNTIME, ...options }).description)
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

const WEATHER_JSON_INPUT: JSONSchema7 = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Berlin' },
    days: { type: 'integer', minimum: 1, maximum: 7, description: 'How many days ahead' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
}
const WEATHER_JSON_OUTPUT: JSONSchema7 = {
  type: 'object',
  properties: { celsius: { type: 'number' }, sky: { type: 'string', enum: ['clear', 'cloudy', 'rain'] } },
  required: ['celsius', 'sky'],
}

function weather(inputSchema: Tool['inputSchema'], outputSchema: NonNullable<Tool['outputSchema']>): ToolSet {
  return {
    getWeather: tool({
      description: 'Current weather.',
      inputSchema,
      outputSchema,
      execute: async () => ({ celsius: 20, sky: 'clear' }),
    }),
  }
}

describe('the SDK text of a ToolSet', () => {
  it('is the same for a Zod tool, a Zod 3 tool and a jsonSchema() tool of the same shapes', () => {
    const fromZod = descriptionOf(
      weather(
        z.object({
          city: z.string().describe('City name, e.g. Berlin'),
          days: z.number().int().min(1).max(7).optional().describe('How many days ahead'),
          units: z.enum(['metric', 'imperial']).optional(),
          at: z.object({ lat: z.number(), lon: z.number() }).optional(),
          tags: z.array(z.string()).optional(),
        }),
        z.object({ celsius: z.number(), sky: z.enum(['clear', 'cloudy', 'rain']) }),
      ),
    )
    const fromZod3 = descriptionOf(
      weather(
        z3.object({
          city: z3.string().describe('City name, e.g. Berlin'),
          days: z3.number().int().min(1).max(7).optional().describe('How many days ahead'),
          units: z3.enum(['metric', 'imperial']).optional(),
          at: z3.object({ lat: z3.number(), lon: z3.number() }).optional(),
          tags: z3.array(z3.string()).optional(),
        }),
        z3.object({ celsius: z3.number(), sky: z3.enum(['clear', 'cloudy', 'rain']) }),
      ),
    )
    const fromJson = descriptionOf(weather(jsonSchema(WEATHER_JSON_INPUT), jsonSchema(WEATHER_JSON_OUTPUT)))
    assert.equal(fromZod, fromJson)
    assert.equal(fromZod3, fromJson)
    // Typed, not `unknown`: every field with its description and bounds, the result too.
    assert.match(fromJson, /^Run a TypeScript program that calls the tools below/)
    assert.match(fromJson, /\/\*\* How many days ahead @integer @minimum 1 @maximum 7 \*\/\n {4}days\?: number\n/)
    assert.match(fromJson, /\}\): Promise<\{ celsius: number; sky: "clear" \| "cloudy" \| "rain" \}>/)
  })

  it('reads lazy schemas and marks annotated tools @readOnly', () => {
    const text = descriptionOf(
      {
        find: tool({
          description: 'Finds notes.',
          inputSchema: jsonSchema(() => ({
            type: 'object',
            properties: { query: { type: 'string' } },
            required: ['query'],
          })),
          execute: async () => [],
        }),
      },
      { toolAnnotations: { find: { readOnlyHint: true } } },
    )
    assert.match(text, /\/\*\* Finds notes\. @readOnly \*\/\n {2}find\(args: \{ query: string \}\): Promise<unknown>/)
  })

  it('reads tools named after Object.prototype members, annotated or not, with properties of those names', () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty']
    const inputSchema = jsonSchema<Record<string, number>>({
      type: 'object',
      properties: Object.fromEntries(names.map(name => [name, { type: 'number' }])),
    })
    const tools: ToolSet = Object.fromEntries(
      names.map(name => [name, tool({ description: `The ${name} tool.`, inputSchema, execute: async () => name })]),
    )
    const text = descriptionOf(tools, { toolAnnotations: Object.fromEntries([['toString', { readOnlyHint: true }]]) })
    for (const name of names) assert.match(text, new RegExp(`The ${name} tool\\.`))
    assert.match(text, /The toString tool\. @tool toString @readOnly \*\//)
    assert.match(text, /The constructor tool\. @tool constructor \*\//)
    assert.match(
      text,
      /constructor\?: number\n {2}toString\?: number\n {2}__proto__\?: number\n {2}hasOwnProperty\?: number/,
    )
  })

  it('leaves out tools that need approval, which toolsNeedingApproval gives back to pass beside run_code', () => {
    const tools = {
      read: tool({
        description: 'Reads.',
        inputSchema: z.object({}),
        execute: async () => 'text',
        needsApproval: false,
      }),
      send: tool({
        description: 'Sends mail.',
        inputSchema: z.object({ to: z.string() }),
        execute: async () => 'sent',
        needsApproval: true,
      }),
      pay: tool({
        description: 'Pays.',
        inputSchema: z.object({ cents: z.number() }),
        execute: async () => 'paid',
        needsApproval: async ({ cents }) => cents > 100,
      }),
    }
    const text = descriptionOf(tools)
    assert.match(text, / read\(\): Promise<unknown>/)
    assert.doesNotMatch(text, /send|pay/)
    assert.deepEqual(Object.keys(toolsNeedingApproval(tools)), ['send', 'pay'])
    assert.equal(toolsNeedingApproval(tools).send, tools.send)
  })
})

describe('codeModeTool refuses', () => {
  const inputSchema = z.object({ query: z.string() })

  it('provider tools, by name, saying to pass them beside run_code', () => {
    const webSearch = {
      type: 'provider',
      id: 'openai.web_search',
      args: {},
      inputSchema,
      isProviderExecuted: true,
    } as unknown as Tool
    let error = refusal(() => codeModeTool({ tools: { web_search: webSearch }, runtime: IDLE_RUNTIME }))
    assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
    assert.equal(error.field, 'tools.web_search.type')
    assert.match(
      error.message,
      /"web_search" is a provider tool \(openai\.web_search\) that runs on the provider's side.*beside run_code/,
    )
    // A provider-defined tool run locally is refused too: its input is the provider's, the model is trained on it.
    const shell = {
      type: 'provider',
      id: 'openai.shell',
      args: {},
      inputSchema,
      isProviderExecuted: false,
      execute: async () => 'ok',
    } as unknown as Tool
    error = refusal(() => codeModeTool({ tools: { shell }, runtime: IDLE_RUNTIME }))
    assert.match(error.message, /"shell" is a provider tool \(openai\.shell\) that has a provider-defined input/)
  })

  it('tools without execute, by name', () => {
    const askUser = tool({ description: 'Asks the user.', inputSchema, outputSchema: z.string() })
    const error = refusal(() => codeModeTool({ tools: { askUser }, runtime: IDLE_RUNTIME }))
    assert.equal(error.field, 'tools.askUser.execute')
    assert.match(error.message, /"askUser" has no execute function .*beside run_code/)
  })

  it('descriptions that depend on the context', () => {
    const dynamicDescription = tool({ description: () => 'Depends.', inputSchema, execute: async () => 1 })
    const error = refusal(() => codeModeTool({ tools: { dynamicDescription }, runtime: IDLE_RUNTIME }))
    assert.match(error.message, /"dynamicDescription" has a description that depends on the context/)
  })

  it('schemas it cannot read or write as JSON Schema, naming the tool and what to do', () => {
    const cases: [string, unknown, RegExp][] = [
      [
        'plain',
        { type: 'object', properties: {} },
        /"plain" has an inputSchema that the AI SDK cannot read .*wrap JSON Schema in jsonSchema\(\)/,
      ],
      [
        'when',
        z.object({ at: z.date() }),
        /"when" has an inputSchema that cannot be written as JSON Schema \(Date cannot be represented in JSON Schema\)/,
      ],
      [
        'later',
        jsonSchema(Promise.resolve({ type: 'object' as const })),
        /"later" has an inputSchema that gives its JSON Schema as a promise: .*resolve it first/,
      ],
      [
        'noExport',
        { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }) } },
        /"noExport" has an inputSchema that cannot be written as JSON Schema \(Standard schema vendor 'acme' does not support JSON Schema conversion\.\)/,
      ],
    ]
    for (const [name, schema, message] of cases) {
      const error = refusal(() =>
        codeModeTool({
          tools: { [name]: { inputSchema: schema, execute: async () => 1 } as unknown as Tool },
          runtime: IDLE_RUNTIME,
        }),
      )
      assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
      assert.equal(error.field, `tools.${name}.inputSchema`)
      assert.match(error.message, message)
    }
    const error = refusal(() =>
      codeModeTool({
        tools: {
          out: tool({
            inputSchema,
            outputSchema: z.object({ at: z.date() }),
            execute: async () => ({ at: new Date() }),
          }),
        },
        runtime: IDLE_RUNTIME,
      }),
    )
    assert.equal(error.field, 'tools.out.outputSchema')
  })

  it('unknown options and annotations of tools it does not run', () => {
    const tools = {
      find: tool({ inputSchema, execute: async () => 1 }),
      send: tool({ inputSchema, execute: async () => 1, needsApproval: true }),
    }
    let error = refusal(() =>
      codeModeTool({ tools, runtime: IDLE_RUNTIME, maxParalel: 2 } as unknown as Parameters<typeof codeModeTool>[0]),
    )
    assert.equal(error.code, 'CODE_MODE_INVALID_OPTIONS')
    assert.match(error.message, /unknown option "maxParalel"; the options are .*maxParallel/)
    error = refusal(() =>
      codeModeTool({ tools, runtime: IDLE_RUNTIME, toolAnnotations: { send: { readOnlyHint: true } } }),
    )
    assert.match(
      error.message,
      /toolAnnotations\.send annotates a tool that needs approval, so it is not in the SDK; annotate one of: find\./,
    )
    error = refusal(() =>
      codeModeTool({ tools, runtime: IDLE_RUNTIME, toolAnnotations: { fnd: { readOnlyHint: true } } as never }),
    )
    assert.match(error.message, /toolAnnotations\.fnd annotates a tool that is not in tools/)
  })
})

describe('arguments checked by the tool schema', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  async function runProgram(tools: ToolSet, program: string): Promise<CodeModeToolResult> {
    const runCode = codeModeTool({ tools, runtime: started.runtime, typeCheck: 'off' })
    const result = await generateText({
      model: scriptedModel([program]),
      prompt: 'Run it.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(2),
      telemetry: NO_TELEMETRY,
    })
    const output = result.steps[0]?.staticToolResults[0]?.output
    assert.equal(output?.state, 'done')
    return output
  }

  it("by the jsonSchema() tool's own validate: its message reaches the program, and the tool never runs", async () => {
    let ran = 0
    const tools = {
      book: tool({
        inputSchema: jsonSchema<{ city: string }>(
          { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          {
            validate: value =>
              (value as { city?: unknown }).city === 'Paris'
                ? { success: true, value: { city: 'PARIS' } }
                : { success: false, error: new Error('we only fly to Paris') },
          },
        ),
        execute: async input => {
          ran++
          return input.city
        },
      }),
    }
    const output = await runProgram(
      tools,
      "const ok = await tools.book({ city: 'Paris' })\ntry { await tools.book({ city: 'Rome' }) } catch (error) { return [ok, error.message] }",
    )
    assert.deepEqual(output.result, ['PARIS', 'tools.book: args: we only fly to Paris.'])
    assert.equal(ran, 1)
  })

  it('against its JSON Schema when a jsonSchema() tool has no validate', async () => {
    const tools = {
      book: tool({
        inputSchema: jsonSchema<{ city: string }>({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        }),
        execute: async input => input.city,
      }),
    }
    const output = await runProgram(
      tools,
      'try { await tools.book({ city: 5 }) } catch (error) { return error.message }',
    )
    assert.match(String(output.result), /^tools\.book: args\.city .*string/)
  })

  it('by a Zod 3 schema, with the path of the first problem', async () => {
    const tools = {
      book: tool({
        inputSchema: z3.object({ trip: z3.object({ nights: z3.number().int().positive() }) }),
        execute: async () => 'booked',
      }),
    }
    const output = await runProgram(
      tools,
      'try { await tools.book({ trip: { nights: -2 } }) } catch (error) { return error.message }',
    )
    assert.equal(output.result, 'tools.book: args.trip.nights: Number must be greater than 0.')
  })
})
