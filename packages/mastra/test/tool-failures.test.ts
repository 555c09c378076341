/**
 * How a Mastra tool's failures reach the program, through the real Agent loop: a throw, a
 * refusal by Mastra's own input check (before the tool runs), a failed output check, an attempt
 * to suspend, and an abort through the signal of `agent.generate`.
 */
import './offline.js'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { codeModeTool, type CodeModeToolOptions } from '@code-runtime/mastra'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { runCodeOutputs, scriptedAgent, startRuntime } from './support.js'

/** Runs one program through an Agent whose run_code has these tools; resolves its output. */
async function runProgram(
  options: CodeModeToolOptions,
  program: string,
  abortSignal?: AbortSignal,
): Promise<{ output: RunCodeOutput; finishReason: string | undefined }> {
  const { agent } = scriptedAgent({ run_code: codeModeTool(options) }, [program])
  const result = await agent.generate('go', abortSignal === undefined ? {} : { abortSignal })
  const [output] = runCodeOutputs(result)
  assert.ok(output !== undefined, 'Mastra recorded a run_code result')
  return { output, finishReason: result.finishReason }
}

const CAUGHT = (call: string): string =>
  `try { return await ${call} } catch (error) { return [error.name, error.toolName, error.message] }`

describe('failures of Mastra tools inside a program', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('rejects the call with the message of a tool that throws', async () => {
    const charge = createTool({
      id: 'charge',
      description: 'Charges a card.',
      inputSchema: z.object({ cents: z.number() }),
      execute: async () => {
        throw new Error('card declined')
      },
    })
    const { output } = await runProgram(
      { tools: { charge }, runtime: started.runtime },
      CAUGHT('tools.charge({ cents: 500 })'),
    )
    assert.deepEqual(output.structured.result, ['ToolCallError', 'charge', 'card declined'])
  })

  it("refuses arguments Mastra's own input check refuses, before the tool runs", async () => {
    let ran = 0
    const search = createTool({
      id: 'search',
      description: 'Searches.',
      inputSchema: z.object({ query: z.string().min(3) }),
      execute: async () => (ran++, []),
    })
    // Off: the type check would refuse the wrong type before the run; this is about the call itself.
    const options = { tools: { search }, runtime: started.runtime, typeCheck: 'off' } as const
    let { output } = await runProgram(options, CAUGHT("tools.search({ query: 'ab' })"))
    const [name, toolName, message] = output.structured.result as string[]
    assert.deepEqual([name, toolName], ['ToolCallError', 'search'])
    assert.match(message ?? '', /^tools\.search: args\.query: Too small: expected string to have >=3 characters\.$/)
    ;({ output } = await runProgram(options, CAUGHT('tools.search({ query: 42 })')))
    assert.match((output.structured.result as string[])[2] ?? '', /^tools\.search: args\.query: .*expected string/)
    assert.equal(ran, 0)
  })

  it('accepts what Mastra accepts from a model: null for an optional field', async () => {
    const received: unknown[] = []
    const search = createTool({
      id: 'search',
      description: 'Searches.',
      inputSchema: z.object({ query: z.string(), lang: z.string().optional() }),
      execute: async input => (received.push(input), 'ok'),
    })
    const { output } = await runProgram(
      { tools: { search }, runtime: started.runtime, typeCheck: 'off' },
      "return await tools.search({ query: 'cats', lang: null })",
    )
    assert.equal(output.structured.result, 'ok', output.text)
    assert.deepEqual(received, [{ query: 'cats' }])
  })

  it("rejects the call when the tool's output fails its outputSchema", async () => {
    const getWeather = createTool({
      id: 'get-weather',
      description: 'Weather.',
      outputSchema: z.object({ celsius: z.number() }),
      execute: async () => ({ celsius: 'warm' }) as unknown as { celsius: number },
    })
    const { output } = await runProgram(
      { tools: { getWeather }, runtime: started.runtime },
      CAUGHT('tools.getWeather()'),
    )
    const [name, , message] = output.structured.result as string[]
    assert.equal(name, 'ToolCallError')
    assert.match(message ?? '', /^Tool output validation failed for get-weather\./)
  })

  it('rejects the call of a tool that tries to suspend, since a program cannot resume', async () => {
    const ask = createTool({
      id: 'ask',
      description: 'Asks the user.',
      execute: async (_input, context) => {
        await context.agent?.suspend({ question: 'sure?' })
        return 'answered'
      },
    })
    const { output } = await runProgram({ tools: { ask }, runtime: started.runtime }, CAUGHT('tools.ask()'))
    const [name, , message] = output.structured.result as string[]
    assert.equal(name, 'ToolCallError')
    assert.match(message ?? '', /^ask tried to suspend, which a tool called from run_code cannot do/)
  })

  it("aborts the run and the tool's signal when agent.generate's signal aborts", async () => {
    const controller = new AbortController()
    let toolSignal: AbortSignal | undefined
    const wait = createTool({
      id: 'wait',
      description: 'Waits for an event.',
      execute: async (_input, context) =>
        new Promise<never>((_resolve, reject) => {
          toolSignal = context.abortSignal
          context.abortSignal?.addEventListener('abort', () => reject(new Error('stopped waiting')), { once: true })
          // The person leaves once the tool is waiting: no timer decides the order.
          controller.abort(new Error('the user left'))
        }),
    })
    const { output, finishReason } = await runProgram(
      { tools: { wait }, runtime: started.runtime },
      'await tools.wait()\nreturn 1',
      controller.signal,
    )
    assert.equal(output.isError, true)
    assert.equal(output.structured.error?.kind, 'abort')
    assert.match(output.text, /^code run failed \(abort\): .*the user left/)
    assert.equal(toolSignal?.aborted, true)
    assert.equal(finishReason, 'aborted')
  })
})
