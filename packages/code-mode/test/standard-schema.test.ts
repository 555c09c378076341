/**
 * Tools whose schemas are Zod 4 (a real `zod`, through Standard JSON Schema) beside tools written
 * in JSON Schema: the same SDK text for the same shapes, the tool's own validator checking (and
 * transforming) the program's arguments, and every schema Code Mode cannot read refused by name.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { z } from 'zod'
import {
  CodeModeError,
  createCodeMode,
  emitSdk,
  foreignToolSchema,
  type CodeModeTool,
  type ToolSchema,
} from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

/** The same tool twice: each shape a model meets, once in Zod and once in JSON Schema by hand. */
function weatherTools(schemas: { input: ToolSchema; output: ToolSchema }): CodeModeTool[] {
  return [
    {
      name: 'get-weather',
      description: 'Current weather.',
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      execute: async () => ({}),
    },
  ]
}

const zodInput = z.object({
  city: z.string().describe('City name, e.g. Berlin'),
  days: z.number().int().min(1).max(7).optional().describe('How many days ahead'),
  units: z.enum(['metric', 'imperial']).optional(),
  tags: z.array(z.string()).optional(),
  at: z.object({ lat: z.number(), lon: z.number() }).optional(),
  note: z.string().nullable().optional(),
})
const jsonInput = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Berlin' },
    days: { type: 'integer', minimum: 1, maximum: 7, description: 'How many days ahead' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    tags: { type: 'array', items: { type: 'string' } },
    at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['city'],
}
const zodOutput = z.object({ celsius: z.number(), sky: z.enum(['clear', 'cloudy', 'rain']), station: z.number().int() })
const jsonOutput = {
  type: 'object',
  properties: {
    celsius: { type: 'number' },
    sky: { type: 'string', enum: ['clear', 'cloudy', 'rain'] },
    station: { type: 'integer' },
  },
  required: ['celsius', 'sky', 'station'],
  additionalProperties: false,
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

describe('Zod and JSON Schema tools', () => {
  it('give the same SDK text for the same shapes', () => {
    const fromZod = emitSdk(weatherTools({ input: zodInput, output: zodOutput }))
    const fromJson = emitSdk(weatherTools({ input: jsonInput, output: jsonOutput }))
    assert.equal(fromZod.text, fromJson.text)
    // Not `unknown`: every field is typed, with its description and bounds.
    assert.match(
      fromZod.declarations,
      /\/\*\* City name, e\.g\. Berlin \*\/\n {4}city: string\n {4}\/\*\* How many days ahead @integer @minimum 1 @maximum 7 \*\/\n {4}days\?: number\n/,
    )
    assert.match(
      fromZod.declarations,
      /note\?: string \| null\n {2}\}\): Promise<\{\n {4}celsius: number\n {4}sky: "clear" \| "cloudy" \| "rain"\n/,
    )
  })

  it('keeps a property named __proto__, or after another Object.prototype member, in the SDK text', () => {
    const input = z.object(
      Object.fromEntries(['__proto__', 'constructor', 'toString'].map(name => [name, z.number().optional()])),
    )
    const { declarations } = emitSdk([{ name: 'pick', inputSchema: input }])
    assert.match(declarations, /\{ __proto__\?: number; constructor\?: number; toString\?: number \}/)
  })

  it('reads the input a Zod schema accepts, not what it outputs: defaulted fields stay optional', () => {
    const sdk = emitSdk([
      { name: 'page', inputSchema: z.object({ size: z.number().default(10) }), execute: async () => null },
    ] as CodeModeTool[])
    assert.match(sdk.declarations, /page\(args\?: \{ \/\*\* @default 10 \*\/ size\?: number \}\)/)
  })

  it('refuses what it cannot read, naming the tool and what to do', () => {
    // A library schema without a JSON Schema export (Zod 3 has none): never silently `unknown`.
    const noExport = { '~standard': { version: 1, vendor: 'zod', validate: (value: unknown) => ({ value }) } }
    let error = refusal(() => emitSdk([{ name: 'old-zod', inputSchema: noExport as unknown as ToolSchema }]))
    assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
    assert.equal(error.field, 'tools[0].inputSchema')
    assert.match(error.message, /tool "old-zod"/)
    assert.match(error.message, /upgrade zod/)

    // A part JSON cannot carry: the library's own reason is in the message.
    error = refusal(() => emitSdk([{ name: 'when', inputSchema: z.object({ at: z.date() }) }]))
    assert.match(
      error.message,
      /tool "when"\) is a zod schema that cannot be read: its conversion to JSON Schema failed \(.*Date/,
    )

    // Another library's wrapper (the AI SDK's jsonSchema() shape), or a map of properties.
    error = refusal(() =>
      emitSdk([{ name: 'wrapped', inputSchema: { jsonSchema: { type: 'object' }, validate: () => ({}) } }]),
    )
    assert.match(error.message, /pass its `\.jsonSchema`, or use @code-runtime\/ai-sdk/)
    error = refusal(() => emitSdk([{ name: 'map', inputSchema: { city: { type: 'string' } } }]))
    assert.match(error.message, /none of its keys \(city\) is a JSON Schema keyword/)

    // A class instance or a function is no JSON Schema either, for the input or the output.
    error = refusal(() => emitSdk([{ name: 'f', inputSchema: {}, outputSchema: (() => 1) as unknown as ToolSchema }]))
    assert.equal(error.field, 'tools[0].outputSchema')
    error = refusal(() => emitSdk([{ name: 'd', inputSchema: new Date() as unknown as ToolSchema }]))
    assert.equal(error.field, 'tools[0].inputSchema')
  })

  it('accepts an empty schema and any object carrying a JSON Schema keyword', () => {
    assert.doesNotThrow(() =>
      emitSdk([
        { name: 'a', inputSchema: {} },
        { name: 'b', inputSchema: { $ref: '#/$defs/X', $defs: { X: { type: 'object' } } } },
      ]),
    )
    assert.doesNotThrow(() =>
      emitSdk([{ name: 'c', inputSchema: Object.assign(Object.create(null) as object, { type: 'object' }) }]),
    )
  })
})

describe('a Zod tool inside a run', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  const received: unknown[] = []
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const tools: CodeModeTool[] = [
    {
      name: 'search',
      description: 'Searches notes.',
      inputSchema: z.object({
        query: z
          .string()
          .min(2)
          .transform(query => query.trim()),
        limit: z.number().int().positive().default(5),
      }),
      execute: async args => {
        received.push(args)
        return { hits: 1 }
      },
    },
  ]

  it('gives the tool what its validator produced: transforms and defaults applied', async () => {
    received.length = 0
    const codeMode = createCodeMode({ tools, runtime: started.runtime })
    const output = await codeMode.run("return await tools.search({ query: '  cats  ' })")
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(received, [{ query: 'cats', limit: 5 }])
  })

  it("refuses arguments the tool's own validator refuses, before the tool runs, in the model's words", async () => {
    received.length = 0
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off' })
    const output = await codeMode.run(
      "try { await tools.search({ query: 'x', limit: -1 }) } catch (error) { return [error.name, error.toolName, error.message] }",
    )
    assert.equal(output.isError, false, output.text)
    const [name, toolName, message] = output.structured.result as string[]
    assert.equal(name, 'ToolCallError')
    assert.equal(toolName, 'search')
    assert.match(message ?? '', /^tools\.search: args\.query: .*2.* \(and 1 more problem\)\.$/)
    assert.deepEqual(received, [])
  })

  it('checks a program against the Zod schema before it runs', async () => {
    received.length = 0
    const codeMode = createCodeMode({ tools, runtime: started.runtime })
    const output = await codeMode.run('await tools.search({ limit: 2 })')
    assert.equal(output.isError, true)
    assert.equal(output.structured.error?.kind, 'refused')
    assert.match(output.text, /query/)
    assert.deepEqual(received, [])
  })

  it('reports a validator that throws as the refusal of that call, and the run goes on', async () => {
    const throwing: CodeModeTool[] = [
      {
        name: 'odd',
        inputSchema: z.object({ n: z.number() }).refine(() => {
          throw new Error('validator broke')
        }),
        execute: async () => 'ran',
      },
    ]
    const codeMode = createCodeMode({ tools: throwing, runtime: started.runtime })
    const output = await codeMode.run('try { return await tools.odd({ n: 1 }) } catch (error) { return error.message }')
    assert.equal(output.structured.result, "tools.odd: args were refused by the tool's validator (validator broke).")
  })
})

describe('a framework schema through foreignToolSchema', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const jsonSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }

  it('writes the SDK from its JSON Schema, as for the same schema given plainly', () => {
    const wrapped = emitSdk([
      { name: 'weather', inputSchema: foreignToolSchema({ vendor: 'some-framework', jsonSchema }) },
    ])
    assert.equal(wrapped.text, emitSdk([{ name: 'weather', inputSchema: jsonSchema }]).text)
  })

  it("checks arguments with the framework's check, its value what the tool gets and its issues what the program sees", async () => {
    const received: unknown[] = []
    const tools: CodeModeTool[] = [
      {
        name: 'weather',
        inputSchema: foreignToolSchema({
          vendor: 'some-framework',
          jsonSchema,
          validate: value => {
            const city = (value as { city?: unknown }).city
            return typeof city === 'string' && city !== ''
              ? { value: { city: city.toUpperCase() } }
              : { issues: [{ message: 'must name a city', path: ['city'] }] }
          },
        }),
        execute: async args => (received.push(args), 'sunny'),
      },
    ]
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off' })
    const output = await codeMode.run(
      "const a = await tools.weather({ city: 'oslo' })\ntry { await tools.weather({ city: '' }) } catch (error) { return [a, error.message] }",
    )
    assert.deepEqual(output.structured.result, ['sunny', 'tools.weather: args.city: must name a city.'])
    assert.deepEqual(received, [{ city: 'OSLO' }])
  })

  it('falls back to the JSON Schema check without a framework check', async () => {
    const tools: CodeModeTool[] = [
      {
        name: 'weather',
        inputSchema: foreignToolSchema({ vendor: 'some-framework', jsonSchema }),
        execute: async () => 'sunny',
      },
    ]
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off' })
    const output = await codeMode.run('try { await tools.weather({}) } catch (error) { return error.message }')
    assert.equal(output.structured.result, 'tools.weather: args.city is required.')
  })
})
