/**
 * End to end through the SDK's real agent loop (`run()` and a `Runner`) with the SDK's own
 * ScriptedModel: the model calls run_code, the program calls two Zod tools, the model's second
 * request sees the run's text, and the app reads the structured outcome from the run item.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Runner, run, tool, type RunToolCallOutputItem } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing'
import { z } from 'zod'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import {
  codeModeTool,
  readRunCodeOutput,
  RUN_CODE_CUSTOM_DATA_KEY,
  type RunCodeCall,
} from '@code-runtime/openai-agents'
import { startRuntime, toolOutputTexts } from './agents-runtime.js'

describe('codeModeTool in an agent run', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  const received: { tool: string; args: unknown }[] = []
  const searchNotes = tool({
    name: 'search_notes',
    description: 'Searches the notes.',
    parameters: z.object({ query: z.string().trim().toLowerCase(), limit: z.number().int().positive() }),
    execute: async args => {
      received.push({ tool: 'search_notes', args })
      return [
        { id: 7, title: `notes on ${args.query}` },
        { id: 9, title: 'more' },
      ].slice(0, args.limit)
    },
  })
  const countWords = tool({
    name: 'count_words',
    description: 'Counts the words of a text.',
    parameters: z.object({ text: z.string() }),
    outputSchema: z.object({ words: z.number() }),
    execute: async ({ text }) => {
      received.push({ tool: 'count_words', args: { text } })
      return { words: text.split(/\s+/).length }
    },
  })
  const program = `const notes = await tools.search_notes({ query: '  Code MODE ', limit: 1 })
const { words } = await tools.count_words({ text: notes[0].title })
console.log('found', notes.length)
return { title: notes[0].title, words }`

  it('runs the program, records its value on the run item and shows the text to the model', async () => {
    received.length = 0
    const results: [RunCodeOutput, RunCodeCall<unknown>][] = []
    const runCode = await codeModeTool({
      tools: [searchNotes, countWords],
      runtime: started.runtime,
      onResult: (output, call) => results.push([output, call]),
    })
    assert.equal(runCode.name, 'run_code')
    assert.equal(runCode.type, 'function')
    assert.equal(runCode.strict, true)
    assert.match(runCode.description, /search_notes\(args: \{/)
    assert.match(runCode.description, /count_words\(args: \{ text: string \}\): Promise<\{ words: number \}>/)

    const model = new ScriptedModel([
      [
        functionCall(
          'run_code',
          { code: program, description: 'title and word count of the first note' },
          { callId: 'call_1' },
        ),
      ],
      [assistantMessage('The first note is "notes on code mode", 4 words.')],
    ])
    const agent = new Agent({ name: 'Notes', instructions: 'Use run_code.', model, tools: [runCode] })
    const result = await run(agent, 'What does the first note say?')

    // The tools ran with the arguments their own Zod schemas produced (trimmed, lower-cased).
    assert.deepEqual(received, [
      { tool: 'search_notes', args: { query: 'code mode', limit: 1 } },
      { tool: 'count_words', args: { text: 'notes on code mode' } },
    ])
    assert.equal(result.finalOutput, 'The first note is "notes on code mode", 4 words.')

    // The run item holds the text the model read, and the structured outcome in customData.
    const outputItem = result.newItems.find(
      (item): item is RunToolCallOutputItem => item.type === 'tool_call_output_item',
    )
    assert.ok(outputItem !== undefined)
    assert.equal(typeof outputItem.output, 'string')
    assert.match(String(outputItem.output), /found 1/)
    assert.match(String(outputItem.output), /"title": "notes on code mode"/)
    const structured = readRunCodeOutput(outputItem)
    assert.deepEqual(structured?.structured.result, { title: 'notes on code mode', words: 4 })
    assert.deepEqual(structured?.structured.logs, ['found 1'])
    assert.deepEqual(
      structured?.structured.calls.map(call => [call.member, call.outcome]),
      [
        ['search_notes', 'ok'],
        ['count_words', 'ok'],
      ],
    )
    assert.equal(structured?.isError, false)
    assert.equal(structured?.text, outputItem.output)
    assert.ok(RUN_CODE_CUSTOM_DATA_KEY in (outputItem.customData ?? {}))
    assert.equal(result.newItems.map(readRunCodeOutput).filter(item => item !== undefined).length, 1)

    // The second model request saw run_code's text as the tool output.
    assert.equal(model.calls.length, 2)
    assert.deepEqual(toolOutputTexts(model.calls[1]?.request.input ?? []), [outputItem.output])
    // The first request offered run_code alone, described by the SDK text.
    assert.deepEqual(
      model.calls[0]?.request.tools.map(offered => offered.name),
      ['run_code'],
    )

    // onResult saw the same outcome, with the call's id and the run's context.
    assert.equal(results.length, 1)
    assert.equal(results[0]?.[0].text, outputItem.output)
    assert.equal(results[0]?.[1].callId, 'call_1')
  })

  it('runs the same through a Runner, passing the run context to the tools', async () => {
    const seen: unknown[] = []
    const whoAmI = tool({
      name: 'who_am_i',
      description: 'The user of this run.',
      parameters: z.object({}),
      execute: async (_args, runContext) => {
        seen.push(runContext?.context)
        return (runContext?.context as { user: string }).user
      },
    })
    const runCode = await codeModeTool({ tools: [whoAmI], runtime: started.runtime })
    const model = new ScriptedModel([
      [
        functionCall(
          'run_code',
          { code: 'return `hello ${await tools.who_am_i()}`', description: 'greet' },
          { callId: 'call_2' },
        ),
      ],
      [assistantMessage('done')],
    ])
    const runner = new Runner({ tracingDisabled: true })
    const result = await runner.run(
      new Agent({ name: 'Greeter', instructions: 'Greet.', model, tools: [runCode] }),
      'hi',
      { context: { user: 'ada' } },
    )
    assert.deepEqual(seen, [{ user: 'ada' }])
    assert.deepEqual(toolOutputTexts(model.calls[1]?.request.input ?? []), ['hello ada'])
    assert.equal(result.finalOutput, 'done')
  })

  it('calls another agent given as a tool (agent.asTool())', async () => {
    const translator = new Agent({
      name: 'Translator',
      instructions: 'Translate to German.',
      model: new ScriptedModel([[assistantMessage('hallo')]]),
    })
    const runCode = await codeModeTool({
      tools: [translator.asTool({ toolName: 'translate', toolDescription: 'Translates to German.' })],
      runtime: started.runtime,
    })
    assert.match(runCode.description, /translate\(args: \{ input: string \}\): Promise<unknown>/)
    const model = new ScriptedModel([
      [
        functionCall(
          'run_code',
          { code: "return (await tools.translate({ input: 'hello' })) + '!'", description: 'translate' },
          { callId: 'call_3' },
        ),
      ],
      [assistantMessage('done')],
    ])
    await run(new Agent({ name: 'Host', instructions: 'Use run_code.', model, tools: [runCode] }), 'translate hello')
    assert.deepEqual(toolOutputTexts(model.calls[1]?.request.input ?? []), ['hallo!'])
  })
})
