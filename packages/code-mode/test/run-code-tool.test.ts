import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createCodeMode, CodeModeError, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

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

const add: CodeModeTool = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  outputSchema: { type: 'number' },
  annotations: { readOnlyHint: true },
  execute: async args => (args as { a: number; b: number }).a + (args as { a: number; b: number }).b,
}

describe('run_code tool', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ computeMs: 300 })
  })
  after(() => started.dispose())

  it('is a plain object whose schema requires code and description, and whose description states each rule once', () => {
    const { tool, sdk } = createCodeMode({ tools: [add], runtime: started.runtime })
    assert.equal(tool.name, 'run_code')
    assert.deepEqual(tool.inputSchema.required, ['code', 'description'])
    assert.match(tool.description, /add\(args: \{/)
    assert.ok(tool.description.includes(sdk.instructions))
    const modelReads = `${tool.description}\n${JSON.stringify(tool.inputSchema)}`
    for (const rule of PROGRAM_RULES) assert.equal(occurrences(modelReads, rule), 1, rule)
  })

  it('runs a program end to end and returns text plus structured data', async () => {
    const { tool } = createCodeMode({ tools: [add], runtime: started.runtime })
    const output = await tool.execute({
      code: 'const s = await tools.add({ a: 2, b: 3 })\nconsole.log("sum", s)\nreturn { s }',
      description: 'add',
    })
    assert.equal(output.isError, false)
    assert.equal(output.text, 'sum 5\n{\n  "s": 5\n}')
    assert.deepEqual(output.structured.logs, ['sum 5'])
    assert.deepEqual(output.structured.result, { s: 5 })
    assert.equal(output.structured.calls.length, 1)
    assert.equal(output.structured.calls[0]?.namespace, 'tools')
    assert.equal(output.structured.calls[0]?.member, 'add')
    assert.equal(output.structured.calls[0]?.outcome, 'ok')
  })

  it('answers malformed input with an error the model can act on', async () => {
    const { tool } = createCodeMode({ tools: [add], runtime: started.runtime })
    const output = await tool.execute({ description: 'missing code' })
    assert.equal(output.isError, true)
    assert.match(output.text, /needs `code`/)
  })

  it('renders a timeout with the budget named', async () => {
    const { tool } = createCodeMode({ tools: [add], runtime: started.runtime })
    const output = await tool.execute({ code: 'console.log("spinning"); while (true) {}', description: 'spin' })
    assert.equal(output.isError, true)
    assert.match(output.text, /^spinning\ncode run failed \(timeout\): Stopped after 300 ms of compute \(computeMs\)/)
  })

  it('runs each tool call through the per-run wrapper: what it resolves or throws is what the program sees', async () => {
    const codeMode = createCodeMode({ tools: [add], runtime: started.runtime })
    const seen: unknown[] = []
    const output = await codeMode.run(
      [
        'const doubled = await tools.add({ a: 2, b: 3 })',
        'try { await tools.add({ a: -1, b: 0 }) } catch (error) { return [doubled, error instanceof ToolCallError, error.message] }',
      ].join('\n'),
      {
        async wrapToolCall(call, execute) {
          // The call's own signal, live while the call runs.
          assert.ok(call.signal instanceof AbortSignal && !call.signal.aborted)
          seen.push({ tool: call.tool, args: call.args })
          const sum = (await execute()) as number
          if (sum < 0) throw new Error(`negative sum ${sum}`)
          return sum * 2
        },
      },
    )
    assert.deepEqual(output.structured.result, [10, true, 'negative sum -1'])
    assert.deepEqual(seen, [
      { tool: 'add', args: { a: 2, b: 3 } },
      { tool: 'add', args: { a: -1, b: 0 } },
    ])
    const plain = await codeMode.run('return await tools.add({ a: 2, b: 3 })')
    assert.equal(plain.structured.result, 5, 'the wrapper belongs to its run only')
  })

  it('refuses bad options with CODE_MODE_INVALID_OPTIONS naming the field', () => {
    assert.throws(
      () => createCodeMode({ tools: [add], runtime: started.runtime, maxParallel: 0 }),
      (error: unknown) =>
        CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS' && /maxParallel/.test(error.message),
    )
    assert.throws(
      () => createCodeMode({ tools: [add], runtime: started.runtime, namespace: 'console' }),
      (error: unknown) => CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS',
    )
  })
})

describe('run_code live logs and usage', () => {
  it('streams logs to onLog while the program runs and reports usage in the structured result', async () => {
    const started = await startRuntime()
    try {
      const seen: string[] = []
      const { tool } = createCodeMode({ tools: [add], runtime: started.runtime })
      const output = await tool.execute(
        {
          code: 'console.log("first")\nconst s = await tools.add({ a: 1, b: 1 })\nconsole.log("second", s)\nreturn s',
          description: 'live',
        },
        { onLog: line => seen.push(line) },
      )
      assert.deepEqual(seen, ['first', 'second 2'])
      assert.equal(output.structured.usage?.bindingCalls, 1)
    } finally {
      await started.dispose()
    }
  })
})
