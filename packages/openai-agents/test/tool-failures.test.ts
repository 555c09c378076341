/**
 * How a failed SDK tool reaches the program: always as a rejected call (a ToolCallError with
 * the tool's message), never as a value, whatever the tool's error function; arguments checked
 * before the tool runs; and the run's abort signal reaching the program and its tools.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, run, setSensitiveDataLoggingEnabled, tool } from '@openai/agents'
import { functionCall, ScriptedModel } from '@openai/agents/testing'
import { z } from 'zod'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { codeModeTool } from '@code-runtime/openai-agents'
import { createDeferred, runProgram, startRuntime } from './agents-runtime.js'

// The text tool() of the SDK gives the model for any failure of a tool with its default error function.
const SDK_FALLBACK = 'An error occurred while running the tool. Please try again.'

const CATCH = `try {
  await tools.flaky({ path: 'a.txt' })
  return 'resolved'
} catch (error) {
  return { name: error.name, toolName: error.toolName, message: error.message }
}`

describe('a failed tool in a program', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const parameters = z.object({ path: z.string() })
  const fail = async (): Promise<string> => {
    throw new Error('disk is full')
  }

  it("rejects with the SDK's own text when the tool keeps the default error function", async () => {
    const flaky = tool({ name: 'flaky', description: 'Fails.', parameters, execute: fail })
    const output = await runProgram(await codeModeTool({ tools: [flaky], runtime: started.runtime }), CATCH)
    assert.deepEqual(output.structured.result, { name: 'ToolCallError', toolName: 'flaky', message: SDK_FALLBACK })
    assert.equal(output.structured.calls[0]?.outcome, 'error')
  })

  it('rejects with the thrown message when the tool propagates its errors (errorFunction: null)', async () => {
    const flaky = tool({ name: 'flaky', description: 'Fails.', parameters, errorFunction: null, execute: fail })
    const output = await runProgram(await codeModeTool({ tools: [flaky], runtime: started.runtime }), CATCH)
    assert.deepEqual(output.structured.result, { name: 'ToolCallError', toolName: 'flaky', message: 'disk is full' })
  })

  it("rejects with the text of the tool's own error function", async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'Fails.',
      parameters,
      errorFunction: (_context, error) => `flaky failed: ${error instanceof Error ? error.message : String(error)}`,
      execute: fail,
    })
    const output = await runProgram(await codeModeTool({ tools: [flaky], runtime: started.runtime }), CATCH)
    assert.deepEqual(output.structured.result, {
      name: 'ToolCallError',
      toolName: 'flaky',
      message: 'flaky failed: disk is full',
    })
  })

  it('resolves a tool that returns the fallback text as its value: no message is matched', async () => {
    const flaky = tool({ name: 'flaky', description: 'Echoes.', parameters, execute: async () => SDK_FALLBACK })
    const output = await runProgram(await codeModeTool({ tools: [flaky], runtime: started.runtime }), CATCH)
    assert.equal(output.structured.result, 'resolved')
  })

  it('ends the run with the message and position when the program does not catch', async () => {
    const flaky = tool({ name: 'flaky', description: 'Fails.', parameters, errorFunction: null, execute: fail })
    const output = await runProgram(
      await codeModeTool({ tools: [flaky], runtime: started.runtime }),
      "const a = 1\nawait tools.flaky({ path: 'a.txt' })",
    )
    assert.equal(output.isError, true)
    assert.match(output.text, /disk is full/)
    assert.match(output.text, /line 2/)
  })

  it('rejects a timed-out call of a tool whose timeout raises', async () => {
    const slow = tool({
      name: 'flaky',
      description: 'Never answers before its timeout.',
      parameters,
      timeoutMs: 20,
      timeoutBehavior: 'raise_exception',
      execute: async (_args, _context, details) =>
        new Promise<string>((_resolve, reject) => {
          details?.signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        }),
    })
    const output = await runProgram(await codeModeTool({ tools: [slow], runtime: started.runtime }), CATCH)
    assert.equal((output.structured.result as { message: string }).message, "Tool 'flaky' timed out after 20ms.")
  })
})

describe('arguments of a call', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const ran: unknown[] = []
  const forecast = (errorFunction?: null) =>
    tool({
      name: 'forecast',
      description: 'Forecast for a city.',
      parameters: z.object({
        city: z.string().refine(city => /^[A-Z]/.test(city), 'must start with a capital letter'),
        days: z.number(),
      }),
      ...(errorFunction === null ? { errorFunction } : {}),
      execute: async args => {
        ran.push(args)
        return 'sunny'
      },
    })
  // `JSON.parse` gives `any`, so the type check before the run lets the call through to the checks.
  const call = (args: string) =>
    `try { return await tools.forecast(JSON.parse(${JSON.stringify(args)})) } catch (error) { return error.message }`

  it('are refused against the parameters JSON Schema before the tool runs', async () => {
    ran.length = 0
    const runCode = await codeModeTool({ tools: [forecast()], runtime: started.runtime })
    let output = await runProgram(runCode, call('{"city":"Oslo","days":"two"}'))
    assert.equal(output.structured.result, 'tools.forecast: args.days must be number.')
    output = await runProgram(runCode, call('{"city":"Oslo"}'))
    assert.equal(output.structured.result, 'tools.forecast: args.days is required.')
    assert.deepEqual(ran, [])
  })

  it("are refused by the tool's own Zod parser for rules the JSON Schema lacks, and the tool does not run", async () => {
    ran.length = 0
    // A refinement has no JSON Schema form: only the tool's Zod parser, inside invoke, knows it.
    const propagating = await codeModeTool({ tools: [forecast(null)], runtime: started.runtime })
    let output = await runProgram(propagating, call('{"city":"oslo","days":2}'))
    // The SDK withholds the parser's reasons unless sensitive tool data may be logged.
    assert.equal(
      output.structured.result,
      "the tool's validator refused the arguments; check them against the tool's declaration",
    )
    setSensitiveDataLoggingEnabled(true)
    try {
      output = await runProgram(propagating, call('{"city":"oslo","days":2}'))
    } finally {
      setSensitiveDataLoggingEnabled(false)
    }
    assert.equal(
      output.structured.result,
      "the tool's validator refused the arguments: args.city: must start with a capital letter",
    )
    output = await runProgram(
      await codeModeTool({ tools: [forecast()], runtime: started.runtime }),
      call('{"city":"oslo","days":2}'),
    )
    assert.equal(output.structured.result, SDK_FALLBACK)
    assert.deepEqual(ran, [])
    output = await runProgram(
      await codeModeTool({ tools: [forecast()], runtime: started.runtime }),
      call('{"city":"Oslo","days":2}'),
    )
    assert.equal(output.structured.result, 'sunny')
    assert.deepEqual(ran, [{ city: 'Oslo', days: 2 }])
  })
})

describe("the run's abort signal", () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('aborts the program and the tool it is waiting on: the run ends as kind abort', async () => {
    const toolStarted = createDeferred()
    const toolAborted = createDeferred<unknown>()
    const wait = tool({
      name: 'wait_for_event',
      description: 'Waits until its call is aborted.',
      parameters: z.object({}),
      errorFunction: null,
      execute: async (_args, _context, details) =>
        new Promise<string>((_resolve, reject) => {
          const signal = details?.signal
          signal?.addEventListener(
            'abort',
            () => {
              toolAborted.resolve(signal.reason)
              reject(new Error('aborted'))
            },
            { once: true },
          )
          toolStarted.resolve()
        }),
    })
    const outcome = createDeferred<RunCodeOutput>()
    const runCode = await codeModeTool({
      tools: [wait],
      runtime: started.runtime,
      onResult: output => outcome.resolve(output),
    })
    const model = new ScriptedModel([
      [
        functionCall(
          'run_code',
          { code: 'await tools.wait_for_event()', description: 'waits' },
          { callId: 'call_abort' },
        ),
      ],
    ])
    const controller = new AbortController()
    void toolStarted.promise.then(() => controller.abort(new Error('the user stopped the run')))
    await assert.rejects(
      run(new Agent({ name: 'Waiter', instructions: 'Wait.', model, tools: [runCode] }), 'wait', {
        signal: controller.signal,
      }),
      /the user stopped the run/,
    )
    const output = await outcome.promise
    assert.equal(output.structured.error?.kind, 'abort')
    assert.equal(output.isError, true)
    assert.ok((await toolAborted.promise) !== undefined)
    assert.equal(output.structured.calls[0]?.member, 'wait_for_event')
  })
})
