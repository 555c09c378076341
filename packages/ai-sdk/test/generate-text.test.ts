/**
 * run_code in the AI SDK's own agent loop (`generateText` with the SDK's mock model): programs that
 * call real `tool()`s with Zod schemas, the options each inner call gets, failures the program
 * sees, the abort of generateText's signal, and what the next step of the model reads.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai'
import { z } from 'zod'
import {
  CodeModeError,
  codeModeTool,
  disposeCodeModeTool,
  type CodeModeToolOutput,
  type CodeModeToolResult,
} from '@code-runtime/ai-sdk'
import { createDeferred, lastToolOutput, NO_TELEMETRY, scriptedModel, startRuntime } from './scripted-models.js'

function finalOutput(output: CodeModeToolOutput | undefined): CodeModeToolResult {
  assert.equal(output?.state, 'done', 'the final output of run_code')
  return output as CodeModeToolResult
}

describe('codeModeTool in generateText', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('runs a program that calls two Zod tools and returns a value; the next step reads its text', async () => {
    const received: unknown[] = []
    const tools = {
      getWeather: tool({
        description: 'Current weather for a city.',
        inputSchema: z.object({ city: z.string().trim(), units: z.enum(['metric', 'imperial']).default('metric') }),
        outputSchema: z.object({ celsius: z.number() }),
        execute: async input => {
          received.push(input)
          return { celsius: input.city === 'Oslo' ? 4 : 21 }
        },
      }),
      convert: tool({
        description: 'Celsius to Fahrenheit.',
        inputSchema: z.object({ celsius: z.number() }),
        outputSchema: z.object({ fahrenheit: z.number() }),
        // A streaming execute: the program gets its last value, as the SDK would record it.
        async *execute({ celsius }) {
          received.push({ celsius })
          yield { fahrenheit: Number.NaN }
          yield { fahrenheit: (celsius * 9) / 5 + 32 }
        },
      }),
    }
    const model = scriptedModel([
      "const { celsius } = await tools.getWeather({ city: '  Rome ' })\nconst { fahrenheit } = await tools.convert({ celsius })\nconsole.log('converted')\nreturn { city: 'Rome', fahrenheit }",
    ])
    const result = await generateText({
      model,
      prompt: 'How warm is Rome?',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })

    // The tools ran with what their own validators made of the arguments (trimmed, defaulted).
    assert.deepEqual(received, [{ city: 'Rome', units: 'metric' }, { celsius: 21 }])
    // The SDK recorded run_code's structured result: the program's value, its logs and calls.
    const [run] = result.steps[0]?.staticToolResults ?? []
    assert.equal(run?.toolName, 'run_code')
    const output = finalOutput(run?.output)
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(output.result, { city: 'Rome', fahrenheit: 69.8 })
    assert.deepEqual(output.logs, ['converted'])
    assert.deepEqual(
      output.calls.map(call => [call.member, call.outcome]),
      [
        ['getWeather', 'ok'],
        ['convert', 'ok'],
      ],
    )
    // The model's second step read the text (logs, then the value).
    assert.equal(model.doGenerateCalls.length, 2)
    assert.equal(lastToolOutput(model.doGenerateCalls[1]?.prompt ?? []), `text: ${output.text}`)
    assert.match(output.text, /^converted\n[^]*"fahrenheit": 69\.8/)
    assert.equal(result.text, `text: ${output.text}`)
  })

  it("gives each call the SDK's options, built from the run_code call: an id of its own, the messages, its own context, the run's signal", async () => {
    const seen: { toolCallId: string; messages: ModelMessage[]; context: unknown; signal: AbortSignal | undefined }[] =
      []
    const tools = {
      lookup: tool({
        description: 'Looks a key up in a region.',
        inputSchema: z.object({ key: z.string() }),
        contextSchema: z.object({ region: z.string().toUpperCase() }),
        execute: async ({ key }, options) => {
          seen.push({
            toolCallId: options.toolCallId,
            messages: options.messages,
            context: options.context,
            signal: options.abortSignal,
          })
          return `${key}@${options.context.region.toLowerCase()}`
        },
      }),
    }
    const logged: [string, string][] = []
    const runCode = codeModeTool({
      tools,
      runtime: started.runtime,
      onLog: (text, { toolCallId }) => logged.push([text, toolCallId]),
    })
    const model = scriptedModel([
      "const a = await tools.lookup({ key: 'a' })\nconst b = await tools.lookup({ key: 'b' })\nconsole.log(a, b)\nreturn [a, b]",
    ])
    const result = await generateText({
      model,
      prompt: 'Look a and b up.',
      tools: { run_code: runCode },
      // Typed by the tools' contextSchemas: run_code takes each tool's context under its name.
      toolsContext: { run_code: { lookup: { region: 'eu' } } },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    assert.deepEqual(finalOutput(result.steps[0]?.staticToolResults[0]?.output).result, ['a@eu', 'b@eu'])
    assert.deepEqual(
      seen.map(entry => entry.toolCallId),
      ['call-1:lookup:1', 'call-1:lookup:2'],
    )
    // The context went through the tool's contextSchema (its transform applied).
    assert.deepEqual(
      seen.map(entry => entry.context),
      [{ region: 'EU' }, { region: 'EU' }],
    )
    assert.deepEqual(seen[0]?.messages, [{ role: 'user', content: 'Look a and b up.' }])
    // Each call's signal is the run's: it fires once the run is over, so no call outlives it.
    assert.ok(seen.every(entry => entry.signal?.aborted === true))
    assert.deepEqual(logged, [['a@eu b@eu', 'call-1']])
  })

  it("fails a call whose context does not match the tool's contextSchema, in the program's hands", async () => {
    const tools = {
      lookup: tool({
        inputSchema: z.object({}),
        contextSchema: z.object({ region: z.string() }),
        execute: async () => 'found',
      }),
    }
    const model = scriptedModel(['try { await tools.lookup() } catch (error) { return error.message }'])
    const result = await generateText({
      model,
      prompt: 'Look it up.',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      toolsContext: { run_code: { lookup: { region: 7 as unknown as string } } },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    const message = String(finalOutput(result.steps[0]?.staticToolResults[0]?.output).result)
    assert.match(message, /^The context of lookup does not match its contextSchema at region: .*expected string/)
  })

  it("makes a failing tool reject the call: the program catches a ToolCallError with the tool's message", async () => {
    const tools = {
      charge: tool({
        description: 'Charges a card.',
        inputSchema: z.object({ cents: z.number().int() }),
        execute: async (): Promise<string> => {
          throw new Error('Card declined: insufficient funds.')
        },
      }),
    }
    const model = scriptedModel([
      'try { await tools.charge({ cents: 500 }) } catch (error) { return [error.name, error.toolName, error.message] }',
    ])
    const result = await generateText({
      model,
      prompt: 'Charge 5 euros.',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    assert.deepEqual(finalOutput(result.steps[0]?.staticToolResults[0]?.output).result, [
      'ToolCallError',
      'charge',
      'Card declined: insufficient funds.',
    ])
  })

  it("refuses arguments the tool's own validator refuses, before the tool runs, naming the field", async () => {
    let ran = 0
    const tools = {
      search: tool({
        inputSchema: z.object({ query: z.string().min(2), limit: z.number().int().positive().default(5) }),
        execute: async () => ++ran,
      }),
    }
    // The type check would refuse this program before it ran; off, the validator is what refuses the call.
    const model = scriptedModel([
      "try { await tools.search({ query: 'x', limit: 3 }) } catch (error) { return error.message }",
    ])
    const runCode = codeModeTool({ tools, runtime: started.runtime, typeCheck: 'off' })
    const result = await generateText({
      model,
      prompt: 'Search x.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    assert.match(
      String(finalOutput(result.steps[0]?.staticToolResults[0]?.output).result),
      /^tools\.search: args\.query: Too small: expected string to have >=2 characters\.$/,
    )
    assert.equal(ran, 0)
  })

  it("runs a tool annotated destructive at once: the hint marks it, the SDK tool's own flag decides approval", async () => {
    const deleted: string[] = []
    const tools = {
      deleteNote: tool({
        description: 'Deletes a note.',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => deleted.push(id),
      }),
    }
    const runCode = codeModeTool({
      tools,
      runtime: started.runtime,
      toolAnnotations: { deleteNote: { destructiveHint: true } },
    })
    assert.match(String(runCode.description), /\/\*\* Deletes a note\. @destructive \*\//)
    const model = scriptedModel(["return await tools.deleteNote({ id: 'n1' })"])
    const result = await generateText({
      model,
      prompt: 'Delete n1.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    assert.equal(finalOutput(result.steps[0]?.staticToolResults[0]?.output).result, 1)
    assert.deepEqual(deleted, ['n1'])
  })

  it('gives the model a failed run as error-text', async () => {
    const model = scriptedModel(["throw new Error('no data for Atlantis')"])
    const tools = { ping: tool({ inputSchema: z.object({}), execute: async () => 'pong' }) }
    const result = await generateText({
      model,
      prompt: 'Try.',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    const output = finalOutput(result.steps[0]?.staticToolResults[0]?.output)
    assert.equal(output.isError, true)
    assert.equal(output.error?.kind, 'exception')
    assert.match(result.text, /^error-text: code run failed \(exception\): .*no data for Atlantis/)
  })

  it("aborts the run when generateText's abortSignal fires: the run fails as 'abort' and the tool's signal fires", async () => {
    const controller = new AbortController()
    const waiting = createDeferred()
    let toolSignal: AbortSignal | undefined
    const tools = {
      wait: tool({
        description: 'Waits until stopped.',
        inputSchema: z.object({}),
        execute: (_input, { abortSignal }) =>
          new Promise<string>((_resolve, reject) => {
            toolSignal = abortSignal
            abortSignal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
            waiting.resolve()
          }),
      }),
    }
    const outputs: unknown[] = []
    const model = scriptedModel(["console.log('waiting')\nawait tools.wait()\nreturn 'never'"])
    void waiting.promise.then(() => controller.abort(new Error('The user stopped the agent.')))
    await assert.rejects(
      generateText({
        model,
        prompt: 'Wait.',
        tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
        abortSignal: controller.signal,
        stopWhen: stepCountIs(3),
        telemetry: NO_TELEMETRY,
        // generateText rejects with the abort; the tool's result is seen where the SDK reports it.
        onToolExecutionEnd: ({ toolOutput }) => {
          outputs.push(toolOutput.type === 'tool-result' ? toolOutput.output : toolOutput.error)
        },
      }),
      /The user stopped the agent\./,
    )
    const output = finalOutput(outputs[0] as CodeModeToolOutput)
    assert.equal(output.error?.kind, 'abort')
    assert.match(output.error?.message ?? '', /The user stopped the agent\./)
    assert.deepEqual(output.logs, ['waiting'])
    assert.equal(toolSignal?.aborted, true)
  })

  it('keeps variables between run_code calls with a session, until disposeCodeModeTool ends it', async () => {
    const tools = { count: tool({ inputSchema: z.object({}), execute: async () => 41 }) }
    const runCode = codeModeTool({ tools, runtime: started.runtime, session: true })
    assert.match(String(runCode.description), /Variables persist between calls/)
    const model = scriptedModel(['const kept = await tools.count()', 'kept + 1'])
    const result = await generateText({
      model,
      prompt: 'Count.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(4),
      telemetry: NO_TELEMETRY,
    })
    assert.equal(finalOutput(result.steps[1]?.staticToolResults[0]?.output).result, 42)
    await disposeCodeModeTool(runCode)
    const after = await generateText({
      model: scriptedModel(['kept']),
      prompt: 'Again.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(2),
      telemetry: NO_TELEMETRY,
    })
    const [failure] = after.steps[0]?.content.filter(part => part.type === 'tool-error') ?? []
    const error = failure?.type === 'tool-error' ? failure.error : undefined
    assert.ok(CodeModeError.is(error), String(error))
    assert.equal(error.code, 'CODE_MODE_SESSION_CLOSED')
  })
})
