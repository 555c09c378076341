/**
 * OpenTelemetry: with the AI SDK's own OpenTelemetry integration (`@ai-sdk/otel`, passed to the
 * one `generateText` call, so nothing is registered with the AI SDK) and the OpenTelemetry SDK's
 * in-memory exporter registered in this test process, as an application would: Code Mode's
 * `run_code` span is a child of the AI SDK's `execute_tool run_code`, in the SDK's trace, and the
 * program's calls, and the spans of the AI SDK tools they ran, nest under it.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { OpenTelemetry } from '@ai-sdk/otel'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { codeModeTool } from '@code-runtime/ai-sdk'
import { scriptedModel, startRuntime } from './scripted-models.js'

const exporter = new InMemorySpanExporter()
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
const testTracer = trace.getTracer('ai-sdk-tracing-test')

/** `span < parent < ...` up to the root, by name. */
function pathOf(span: ReadableSpan, spans: readonly ReadableSpan[]): string {
  const names: string[] = []
  for (let at: ReadableSpan | undefined = span; at !== undefined;) {
    names.push(at.name)
    const parentId: string | undefined = at.parentSpanContext?.spanId
    at = parentId === undefined ? undefined : spans.find(candidate => candidate.spanContext().spanId === parentId)
  }
  return names.join(' < ')
}

describe('codeModeTool under the AI SDK’s OpenTelemetry spans', () => {
  it('makes run_code a child of the SDK’s execute_tool run_code, and the program’s calls children of run_code', async () => {
    const started = await startRuntime()
    try {
      const tools = {
        getWeather: tool({
          description: 'Current weather for a city.',
          inputSchema: z.object({ city: z.string() }),
          execute: () =>
            testTracer.startActiveSpan('weather.lookup', span => {
              span.end()
              return { celsius: 21 }
            }),
        }),
      }
      await generateText({
        model: scriptedModel(["return await tools.getWeather({ city: 'Rome' })"]),
        prompt: 'How warm is Rome?',
        tools: { run_code: codeModeTool({ tools, runtime: started.runtime, typeCheck: 'off' }) },
        stopWhen: stepCountIs(2),
        telemetry: { integrations: [new OpenTelemetry()], recordInputs: false, recordOutputs: false },
      })
      const spans = exporter.getFinishedSpans()
      const runs = spans.filter(span => span.name === 'run_code')
      assert.equal(runs.length, 1)
      const run = runs[0] as ReadableSpan
      const parent = spans.find(span => span.spanContext().spanId === run.parentSpanContext?.spanId)
      assert.equal(parent?.name, 'execute_tool run_code')
      assert.equal(parent?.instrumentationScope.name === '@code-runtime/code-mode', false)
      assert.equal(run.spanContext().traceId, parent?.spanContext().traceId)
      const inner = spans.find(span => span.name === 'weather.lookup')
      assert.match(
        inner === undefined ? '' : pathOf(inner, spans),
        /^weather\.lookup < execute_tool getWeather < execute < run_code < execute_tool run_code < /,
      )
    } finally {
      await started.dispose()
    }
  })
})
