/**
 * Live logs through the SDK's preliminary tool results: in `streamText`, run_code's progress
 * outputs (the logs so far) reach the stream while the program runs, coalesced per burst of lines,
 * and the final output comes last.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'
import { codeModeTool, type CodeModeToolOutput } from '@code-runtime/ai-sdk'
import { createDeferred, NO_TELEMETRY, scriptedStreamingModel, startRuntime } from './scripted-models.js'

interface SeenResult {
  readonly preliminary: boolean
  readonly output: CodeModeToolOutput
}

describe('codeModeTool in streamText', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('streams a preliminary result with the logs so far before the final one', async () => {
    // The tool finishes only once the stream has shown the log line: no timing, an event.
    const shown = createDeferred()
    const tools = {
      hold: tool({
        description: 'Waits for the test.',
        inputSchema: z.object({}),
        execute: async () => {
          await shown.promise
          return 'released'
        },
      }),
    }
    const model = scriptedStreamingModel([
      "console.log('fetching the report')\nconst state = await tools.hold()\nconsole.log(state)\nreturn 'done'",
    ])
    const result = streamText({
      model,
      prompt: 'Fetch it.',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    const seen: SeenResult[] = []
    for await (const part of result.fullStream) {
      if (part.type !== 'tool-result' || part.toolName !== 'run_code' || part.dynamic === true) continue
      seen.push({ preliminary: part.preliminary === true, output: part.output })
      if (part.output.state === 'running' && part.output.logs.includes('fetching the report')) shown.resolve()
    }
    const progress = seen.filter(entry => entry.output.state === 'running')
    assert.ok(progress.length >= 1, 'a progress output reached the stream')
    assert.deepEqual(progress[0]?.output.logs, ['fetching the report'])
    assert.ok(
      progress.every(entry => entry.preliminary),
      'progress outputs are preliminary results',
    )
    const last = seen.at(-1)
    assert.equal(last?.preliminary, false)
    assert.equal(last?.output.state, 'done')
    assert.deepEqual(last?.output.logs, ['fetching the report', 'released'])
    assert.equal(await result.text, 'text: fetching the report\nreleased\ndone')
  })

  it('coalesces a flood of 10 000 log lines into a few progress outputs', async () => {
    const tools = { ping: tool({ inputSchema: z.object({}), execute: async () => 'pong' }) }
    const model = scriptedStreamingModel([
      "for (let line = 0; line < 10000; line++) console.log('line ' + line)\nreturn await tools.ping()",
    ])
    const result = streamText({
      model,
      prompt: 'Flood.',
      tools: { run_code: codeModeTool({ tools, runtime: started.runtime }) },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    const outputs: CodeModeToolOutput[] = []
    for await (const part of result.fullStream) {
      if (part.type === 'tool-result' && part.toolName === 'run_code' && part.dynamic !== true)
        outputs.push(part.output)
    }
    const progress = outputs.filter(output => output.state === 'running')
    // One progress output per burst of lines the consumer had not seen, never one per line.
    assert.ok(progress.length < 200, `${progress.length} progress outputs`)
    let previous = 0
    for (const output of progress) {
      assert.ok(output.logs.length > previous, 'each progress output adds lines')
      previous = output.logs.length
    }
    const final = outputs.at(-1)
    assert.equal(final?.state, 'done')
    assert.equal(final.logs.length, 10_000)
    assert.equal(final.result, 'pong')
  })
})
