/**
 * run_code invoked directly (`runCode.invoke(...)`), as an app or a LangGraph node would: what it
 * resolves, how inner tools' failures, refused arguments and outputs reach the program, abort
 * through the config's signal, and sessions.
 */
import { createDeferred, startRuntime } from './langchain-test-env.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { StartedCodeRuntime } from '@code-runtime/core'
import type { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { codeModeTool, type RunCodeArtifact } from '@code-runtime/langchain'
import { ToolMessage } from '@langchain/core/messages'
import { DynamicStructuredTool, DynamicTool, tool, ToolInputParsingException } from '@langchain/core/tools'
import type { JSONSchema } from '@langchain/core/utils/json_schema'
import { RunnableLambda } from '@langchain/core/runnables'
import { z } from 'zod'

/** Invokes run_code as an agent does, with a tool call, so the ToolMessage carries the artifact. */
async function runAsToolCall(
  runCode: ReturnType<typeof codeModeTool>,
  code: string,
  config: { signal?: AbortSignal } = {},
): Promise<{ text: string; artifact: RunCodeArtifact }> {
  const message: unknown = await runCode.invoke(
    { type: 'tool_call', id: 'call_7', name: 'run_code', args: { code, description: 'test' } },
    config,
  )
  assert.ok(ToolMessage.isInstance(message))
  assert.equal(typeof message.content, 'string')
  return { text: message.content as string, artifact: message.artifact as RunCodeArtifact }
}

describe('run_code invoked directly', () => {
  let started: StartedCodeRuntime<WorkerThreadCodeRuntime>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const add = tool(async ({ a, b }) => a + b, {
    name: 'add',
    description: 'Adds two numbers.',
    schema: z.object({ a: z.number(), b: z.number() }),
  })

  it('resolves the text for plain input, and a ToolMessage with the artifact for a tool call', async () => {
    const runCode = codeModeTool({ tools: [add], runtime: started.runtime })
    assert.equal(runCode.name, 'run_code')
    assert.equal(runCode.responseFormat, 'content_and_artifact')
    const text: unknown = await runCode.invoke({ code: 'return await tools.add({ a: 2, b: 3 })', description: 'add' })
    assert.equal(text, '5')
    const { text: content, artifact } = await runAsToolCall(runCode, 'return await tools.add({ a: 2, b: 3 })')
    assert.equal(content, '5')
    assert.equal(artifact.result, 5)
    assert.equal(artifact.calls.length, 1)
    assert.ok(artifact.usage !== undefined)
  })

  it("leaves input that breaks run_code's own schema to LangChain, which refuses it before any program runs", async () => {
    const runCode = codeModeTool({ tools: [add], runtime: started.runtime })
    await assert.rejects(
      runCode.invoke({ description: 'no code' } as unknown as { code: string; description: string }),
      (error: unknown) => error instanceof ToolInputParsingException,
    )
  })

  it('takes the name option', () => {
    assert.equal(
      codeModeTool({ tools: [add], runtime: started.runtime, name: 'execute_program' }).name,
      'execute_program',
    )
  })

  it("rejects a call in the program when the tool throws, with the tool's message", async () => {
    const failing = tool(
      async () => {
        throw new Error('the weather service is down')
      },
      { name: 'get_weather', description: 'Weather.', schema: z.object({ city: z.string() }) },
    )
    const runCode = codeModeTool({ tools: [failing], runtime: started.runtime })
    const { artifact } = await runAsToolCall(
      runCode,
      [
        'try { await tools.get_weather({ city: "Oslo" }); return "resolved" }',
        'catch (error) { return [error instanceof ToolCallError, error.toolName, error.message] }',
      ].join('\n'),
    )
    assert.deepEqual(artifact.result, [true, 'get_weather', 'the weather service is down'])
  })

  it("ends the run with the tool's message when the program does not catch it", async () => {
    const failing = tool(
      async () => {
        throw new Error('quota exceeded')
      },
      { name: 'search', description: 'Search.', schema: z.object({ query: z.string() }) },
    )
    const runCode = codeModeTool({ tools: [failing], runtime: started.runtime })
    const { text, artifact } = await runAsToolCall(runCode, 'await tools.search({ query: "x" })')
    assert.equal(artifact.error?.kind, 'exception')
    assert.match(text, /quota exceeded/)
    assert.deepEqual(
      artifact.calls.map(call => call.outcome),
      ['error'],
    )
  })

  it("refuses arguments with the tool's own Zod schema before the tool runs, naming the field", async () => {
    let runs = 0
    const search = tool(async () => ++runs, {
      name: 'search',
      description: 'Search.',
      schema: z.object({ query: z.string().min(2), limit: z.number().int().optional() }),
    })
    const runCode = codeModeTool({ tools: [search], runtime: started.runtime, typeCheck: 'off' })
    const { artifact } = await runAsToolCall(
      runCode,
      'try { await tools.search({ query: "x" }) } catch (error) { return error.message }',
    )
    assert.equal(runs, 0)
    assert.match(
      String(artifact.result),
      /^tools\.search: args\.query: Too small: expected string to have >=2 characters/,
    )
  })

  const SEARCH_SCHEMA: JSONSchema = {
    type: 'object',
    properties: { query: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['query'],
  }

  it("refuses arguments with LangChain's JSON Schema validator for a JSON Schema tool, naming the field", async () => {
    let runs = 0
    const search = new DynamicStructuredTool({
      name: 'search',
      description: 'Search.',
      schema: SEARCH_SCHEMA,
      func: async () => ++runs,
    })
    const runCode = codeModeTool({ tools: [search], runtime: started.runtime, typeCheck: 'off' })
    const { artifact } = await runAsToolCall(
      runCode,
      [
        'const messages = []',
        'for (const args of [{ query: "a", tags: ["ok", 2] }, {}]) {',
        '  try { await tools.search(args) } catch (error) { messages.push(error.message) }',
        '}',
        'return messages',
      ].join('\n'),
    )
    assert.equal(runs, 0)
    const [wrongItem, missing] = artifact.result as string[]
    assert.match(
      wrongItem ?? '',
      /^tools\.search: args\.tags\[1\]: Instance type "number" is invalid\. Expected "string"\./,
    )
    assert.match(missing ?? '', /^tools\.search: args: Instance does not have required property "query"\./)
  })

  it("rejects the call, briefly, when a JSON Schema tool's schema cannot be checked (an unresolved $ref)", async () => {
    const broken: JSONSchema = { type: 'object', properties: { at: { $ref: '#/$defs/Missing' } } }
    const lookup = new DynamicStructuredTool({
      name: 'lookup',
      description: 'Lookup.',
      schema: broken,
      func: async () => 'ran',
    })
    const runCode = codeModeTool({ tools: [lookup], runtime: started.runtime, typeCheck: 'off' })
    const { artifact } = await runAsToolCall(
      runCode,
      'try { return await tools.lookup({ at: 1 }) } catch (error) { return error.message }',
    )
    assert.equal(
      artifact.result,
      'tools.lookup: args: the tool\'s input schema cannot be checked (Unresolved $ref "#/$defs/Missing").',
    )
  })

  it('gives the program the content: of a ToolMessage, of a content-and-artifact tool, and objects as objects', async () => {
    const withArtifact = tool(async () => ['3 rows', { rows: [1, 2, 3] }], {
      name: 'query',
      description: 'Query.',
      schema: z.object({}),
      responseFormat: 'content_and_artifact',
    })
    const asMessage = tool(
      async (_args, config) =>
        new ToolMessage({ content: 'from a message', tool_call_id: config.toolCall?.id ?? 'none' }),
      {
        name: 'message',
        description: 'Message.',
        schema: z.object({}),
      },
    )
    const asObject = tool(async () => ({ nested: { list: [1, null, 'x'] } }), {
      name: 'object',
      description: 'Object.',
      schema: z.object({}),
    })
    const runCode = codeModeTool({ tools: [withArtifact, asMessage, asObject], runtime: started.runtime })
    const { artifact } = await runAsToolCall(
      runCode,
      'return [await tools.query(), await tools.message(), await tools.object()]',
    )
    assert.deepEqual(artifact.result, ['3 rows', 'from a message', { nested: { list: [1, null, 'x'] } }])
  })

  it('rejects the call for a ToolMessage with status error, and for a value JSON cannot carry', async () => {
    const erring = tool(
      async (_args, config) =>
        new ToolMessage({ content: 'not allowed here', status: 'error', tool_call_id: config.toolCall?.id ?? 'none' }),
      {
        name: 'erring',
        description: 'Errs.',
        schema: z.object({}),
      },
    )
    const dated = tool(async () => ({ at: new Date(0) }), {
      name: 'dated',
      description: 'A date.',
      schema: z.object({}),
    })
    const runCode = codeModeTool({ tools: [erring, dated], runtime: started.runtime })
    const { artifact } = await runAsToolCall(
      runCode,
      [
        'const messages = []',
        'try { await tools.erring() } catch (error) { messages.push(error.message) }',
        'try { await tools.dated() } catch (error) { messages.push(error.message) }',
        'return messages',
      ].join('\n'),
    )
    const [erred, date] = artifact.result as string[]
    assert.equal(erred, 'not allowed here')
    assert.match(date ?? '', /Date/)
  })

  it('runs string-input tools (DynamicTool) with { input }', async () => {
    const shout = new DynamicTool({
      name: 'shout',
      description: 'Upper-cases its input.',
      func: async input => input.toUpperCase(),
    })
    const runCode = codeModeTool({ tools: [shout], runtime: started.runtime })
    assert.match(runCode.description, /shout\(args\?: \{ input\?: string \}\)/)
    const { artifact } = await runAsToolCall(runCode, 'return await tools.shout({ input: "hey" })')
    assert.equal(artifact.result, 'HEY')
  })

  it('runs a runnable made a tool (asTool), checked by its Zod schema', async () => {
    const double = RunnableLambda.from(async ({ n }: { n: number }) => n * 2).asTool({
      name: 'double',
      description: 'Doubles n.',
      schema: z.object({ n: z.number() }),
    })
    const runCode = codeModeTool({ tools: [double], runtime: started.runtime, typeCheck: 'off' })
    const { artifact } = await runAsToolCall(
      runCode,
      'let refused = ""\ntry { await tools.double({ n: "2" }) } catch (error) { refused = error.message }\nreturn [await tools.double({ n: 21 }), refused]',
    )
    assert.deepEqual(artifact.result, [42, 'tools.double: args.n: Invalid input: expected number, received string.'])
  })

  it("aborts the run and the tool call in flight through the config's signal", async () => {
    const callStarted = createDeferred()
    let toolSignal: AbortSignal | undefined
    const slow = tool(
      async (_args, config) => {
        toolSignal = config.signal
        callStarted.resolve()
        await new Promise((_resolve, reject) =>
          config.signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
        )
      },
      { name: 'slow', description: 'Never finishes by itself.', schema: z.object({}) },
    )
    const runCode = codeModeTool({ tools: [slow], runtime: started.runtime })
    const controller = new AbortController()
    const running = runAsToolCall(runCode, 'await tools.slow()', { signal: controller.signal })
    await callStarted.promise
    controller.abort()
    const { text, artifact } = await running
    assert.equal(artifact.error?.kind, 'abort')
    assert.match(text, /code run failed \(abort\)/)
    assert.equal(toolSignal?.aborted, true)
  })

  it('streams logs to onLog', async () => {
    const lines: string[] = []
    const runCode = codeModeTool({ tools: [add], runtime: started.runtime, onLog: line => lines.push(line) })
    await runCode.invoke({ code: 'console.log("one"); console.log("two")', description: 'logs' })
    assert.deepEqual(lines, ['one', 'two'])
  })

  it('keeps variables between runs with a session, and forgets them on reset', async () => {
    const runCode = codeModeTool({ tools: [add], runtime: started.runtime, session: true })
    try {
      assert.match(JSON.stringify(runCode.schema), /"reset"/)
      await runCode.invoke({ code: 'const sum = await tools.add({ a: 1, b: 1 })', description: 'keep' })
      assert.equal(await runCode.invoke({ code: 'sum * 10', description: 'use' }), '20')
      assert.equal(await runCode.invoke({ code: 'typeof sum', description: 'forget', reset: true }), 'undefined')
    } finally {
      await runCode.codeMode.dispose()
    }
  })
})
