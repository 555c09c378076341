/**
 * What codeModeTool takes from the SDK's tools: function tools become the SDK text (Zod and
 * JSON Schema alike); tools Code Mode cannot run are refused by name with what to do; tools that
 * may need approval are left out; options pass through to Code Mode (sessions included).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { computerTool, hostedMcpTool, RunContext, tool, webSearchTool, type Computer, type Tool } from '@openai/agents'
import { z } from 'zod'
import { CodeModeError } from '@code-runtime/code-mode'
import { codeModeTool } from '@code-runtime/openai-agents'
import { runProgram, startRuntime } from './agents-runtime.js'

async function refusal(attempt: Promise<unknown>): Promise<CodeModeError> {
  try {
    await attempt
  } catch (error) {
    assert.ok(CodeModeError.is(error), String(error))
    return error
  }
  assert.fail('expected a refusal')
}

describe("codeModeTool reading the SDK's tools", () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const execute = async (): Promise<string> => 'ok'
  const plain = tool({ name: 'plain', description: 'A plain tool.', parameters: z.object({}), execute })

  it('gives the same SDK text for a Zod tool and a JSON Schema tool of the same shape', async () => {
    const fromZod = tool({
      name: 'get_weather',
      description: 'Current weather.',
      parameters: z.object({
        city: z.string().describe('City name, e.g. Berlin'),
        days: z.number().optional(),
        units: z.enum(['metric', 'imperial']),
        at: z.object({ lat: z.number(), lon: z.number() }),
        tags: z.array(z.string()),
      }),
      execute,
    })
    const fromJson = tool({
      name: 'get_weather',
      description: 'Current weather.',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name, e.g. Berlin' },
          days: { type: 'number' },
          units: { type: 'string', enum: ['metric', 'imperial'] },
          at: {
            type: 'object',
            properties: { lat: { type: 'number' }, lon: { type: 'number' } },
            required: ['lat', 'lon'],
            additionalProperties: false,
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['city', 'units', 'at', 'tags'],
        additionalProperties: false,
      },
      execute,
    })
    const zodText = (await codeModeTool({ tools: [fromZod], runtime: started.runtime })).description
    const jsonText = (await codeModeTool({ tools: [fromJson], runtime: started.runtime })).description
    assert.equal(zodText, jsonText)
    // Strict tools make an optional field required-or-null: the SDK text says what the tool takes.
    assert.match(zodText, /\/\*\* City name, e\.g\. Berlin \*\/\n {4}city: string\n {4}days: number \| null\n/)
    assert.match(zodText, /units: "metric" \| "imperial"/)
  })

  it('refuses tools that are not function tools, naming each and what to do', async () => {
    const computer = { environment: 'browser', dimensions: [800, 600] } as unknown as Computer
    const cases: [Tool, RegExp][] = [
      [webSearchTool(), /"web_search" is a hosted tool/],
      [
        hostedMcpTool({ serverLabel: 'docs', serverUrl: 'https://example.invalid/mcp' }),
        /"hosted_mcp" is a hosted tool/,
      ],
      [computerTool({ computer }), /"computer_use_preview" is a computer tool/],
    ]
    for (const [refused, message] of cases) {
      const error = await refusal(codeModeTool({ tools: [plain, refused], runtime: started.runtime }))
      assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
      assert.equal(error.field, 'tools[1]')
      assert.match(error.message, message)
      assert.match(error.message, /give it to the Agent beside run_code/)
    }
  })

  it('refuses a function tool whose guardrails or timeout result a program would lose', async () => {
    const guarded = tool({
      name: 'guarded',
      description: 'Guarded.',
      parameters: z.object({}),
      inputGuardrails: [{ name: 'no_secrets', run: async () => ({ behavior: { type: 'allow' } }) }],
      execute,
    })
    let error = await refusal(codeModeTool({ tools: [guarded], runtime: started.runtime }))
    assert.match(error.message, /"guarded" has tool guardrails/)
    const timed = tool({ name: 'timed', description: 'Timed.', parameters: z.object({}), timeoutMs: 1000, execute })
    error = await refusal(codeModeTool({ tools: [timed], runtime: started.runtime }))
    assert.match(
      error.message,
      /"timed" has timeoutMs with timeoutBehavior 'error_as_result'.*set timeoutBehavior: 'raise_exception'/,
    )
  })

  it('leaves out tools that may need approval, and keeps those that never do', async () => {
    const always = tool({
      name: 'delete_file',
      description: 'Deletes.',
      parameters: z.object({ path: z.string() }),
      needsApproval: true,
      execute,
    })
    const policy = tool({
      name: 'send_mail',
      description: 'Sends.',
      parameters: z.object({ to: z.string() }),
      needsApproval: async (_context, { to }) => !to.endsWith('@example.com'),
      execute,
    })
    const answersYes = tool({
      name: 'pay',
      description: 'Pays.',
      parameters: z.object({}),
      needsApproval: async () => true,
      execute,
    })
    const never = tool({
      name: 'read_file',
      description: 'Reads.',
      parameters: z.object({ path: z.string() }),
      needsApproval: false,
      execute,
    })
    const runCode = await codeModeTool({ tools: [always, policy, answersYes, never, plain], runtime: started.runtime })
    for (const left of ['delete_file', 'send_mail', 'pay']) assert.doesNotMatch(runCode.description, new RegExp(left))
    assert.match(runCode.description, /read_file\(args: \{ path: string \}\)/)
    assert.match(runCode.description, /plain\(\)/)
    // run_code itself never asks for approval: the left-out tools go beside it, with their own.
    assert.equal(await runCode.needsApproval(new RunContext(), { code: '', description: '' }, undefined), false)
  })

  it('refuses duplicate names and unknown options, and takes another name', async () => {
    let error = await refusal(codeModeTool({ tools: [plain, plain], runtime: started.runtime }))
    assert.equal(error.code, 'CODE_MODE_DUPLICATE_TOOL_NAME')
    error = await refusal(
      codeModeTool({ tools: [plain], runtime: started.runtime, maxParalel: 2 } as Parameters<typeof codeModeTool>[0]),
    )
    assert.equal(error.code, 'CODE_MODE_INVALID_OPTIONS')
    assert.match(error.message, /maxParalel is not an option/)
    error = await refusal(codeModeTool({ tools: [plain], runtime: started.runtime, maxParallel: 0 }))
    assert.equal(error.code, 'CODE_MODE_INVALID_OPTIONS')
    const renamed = await codeModeTool({
      tools: [plain],
      runtime: started.runtime,
      name: 'execute_typescript',
      namespace: 'api',
    })
    assert.equal(renamed.name, 'execute_typescript')
    assert.match(renamed.description, /declare const api: \{/)
  })

  it('keeps variables between runs with a session, and forgets them on reset', async () => {
    const runCode = await codeModeTool({ tools: [plain], runtime: started.runtime, session: true })
    // The SDK's strict mode makes the optional reset required-or-null, and drops the null.
    const parameters = runCode.parameters as { required: string[]; properties: Record<string, unknown> }
    assert.deepEqual([...parameters.required].sort(), ['code', 'description', 'reset'])
    assert.match(runCode.description, /Variables persist between calls/)
    await runProgram(runCode, 'const kept = 41')
    let output = await runProgram(runCode, 'kept + 1')
    assert.equal(output.structured.result, 42)
    output = await runProgram(runCode, 'typeof kept', { reset: null })
    assert.equal(output.structured.result, 'number')
    output = await runProgram(runCode, 'typeof kept', { reset: true })
    assert.equal(output.structured.result, 'undefined')
  })
})
