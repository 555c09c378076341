/**
 * With tracing on (recorded by a processor of the test's own, so nothing is exported), a failed
 * tool still rejects its call, the run_code span stays clean, and a nested span created by a
 * tool a program called hangs under the run_code span.
 *
 * The Agents SDK traces with a system of its own (its processors, its own async context), not
 * OpenTelemetry: its function span is never an OpenTelemetry span, so Code Mode's OpenTelemetry
 * `run_code` cannot be its child. What holds, with the OpenTelemetry SDK registered here as an
 * application would: `run_code` is a child of the OpenTelemetry span active around the agent's
 * run, the SDK's run loop carrying that context to the tool.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  createCustomSpan,
  setTraceProcessors,
  setTracingDisabled,
  tool,
  type Span,
  type SpanData,
  type TracingProcessor,
} from '@openai/agents'
import { z } from 'zod'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { codeModeTool } from '@code-runtime/openai-agents'
import { runProgram, startRuntime } from './agents-runtime.js'

const otelExporter = new InMemorySpanExporter()
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(otelExporter)] }))

class RecordingProcessor implements TracingProcessor {
  readonly ended: Span<SpanData>[] = []
  async onTraceStart(): Promise<void> {}
  async onTraceEnd(): Promise<void> {}
  async onSpanStart(): Promise<void> {}
  async onSpanEnd(span: Span<SpanData>): Promise<void> {
    this.ended.push(span)
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

describe("a program's calls under tracing", () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  const processor = new RecordingProcessor()
  before(async () => {
    started = await startRuntime()
    // The test's processor replaces the exporting one: spans are recorded here, never sent.
    setTraceProcessors([processor])
    setTracingDisabled(false)
  })
  after(async () => {
    setTracingDisabled(true)
    await started.dispose()
  })

  it('rejects a failed call and keeps nested spans under run_code', async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'Fails.',
      parameters: z.object({}),
      execute: async () => {
        throw new Error('disk is full')
      },
    })
    const traced = tool({
      name: 'traced',
      description: 'Records a span.',
      parameters: z.object({}),
      execute: async () => {
        const span = createCustomSpan({ data: { name: 'inside traced', data: {} } })
        span.start()
        span.end()
        return 'ok'
      },
    })
    const runCode = await codeModeTool({ tools: [flaky, traced], runtime: started.runtime })
    const output = await runProgram(
      runCode,
      'await tools.traced()\ntry { await tools.flaky() } catch (error) { return error.name }',
    )
    assert.equal(output.structured.result, 'ToolCallError')
    const runCodeSpan = processor.ended.find(
      span => span.spanData.type === 'function' && span.spanData.name === 'run_code',
    )
    assert.ok(runCodeSpan !== undefined)
    assert.equal(runCodeSpan.error, null)
    const nested = processor.ended.find(
      span => span.spanData.type === 'custom' && span.spanData.name === 'inside traced',
    )
    assert.equal(nested?.parentId, runCodeSpan.spanId)
    assert.equal(nested?.traceId, runCodeSpan.traceId)
  })

  it('makes the OpenTelemetry run_code a child of the OpenTelemetry span around the agent run', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({}),
      execute: async () => 'found',
    })
    const runCode = await codeModeTool({ tools: [lookup], runtime: started.runtime, typeCheck: 'off' })
    otelExporter.reset()
    await trace.getTracer('agents-tracing-test').startActiveSpan('handle request', async span => {
      await runProgram(runCode, 'return await tools.lookup()')
      span.end()
    })
    const spans = otelExporter.getFinishedSpans()
    const [request] = spans.filter(span => span.name === 'handle request')
    const [run] = spans.filter(span => span.name === 'run_code')
    assert.equal(run?.parentSpanContext?.spanId, request?.spanContext().spanId)
    const [call] = spans.filter(span => span.name === 'execute_tool lookup')
    const [execute] = spans.filter(span => span.name === 'execute')
    assert.equal(call?.parentSpanContext?.spanId, execute?.spanContext().spanId)
    assert.equal(execute?.parentSpanContext?.spanId, run?.spanContext().spanId)
  })
})
