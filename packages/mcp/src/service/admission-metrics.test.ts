/**
 * The admission's metrics and span attribute, read back through the SDK (registered in this test
 * process, as `serve` registers it): each admitted run's wait, the runs waiting, the refusals, and
 * the wait on the span that was active when the run asked to start.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { context, metrics, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { RunAdmission, RunRefusedBusy } from './run-admission.js'

/** A reader whose collection the test asks for. */
class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve()
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
}

const reader = new TestReader()
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
const exporter = new InMemorySpanExporter()
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
const tracer = trace.getTracer('admission-test')

async function pointsOf(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect()
  const metric = resourceMetrics.scopeMetrics
    .flatMap(scope => scope.metrics)
    .find(candidate => candidate.descriptor.name === name)
  return (metric?.dataPoints ?? []) as DataPoint<unknown>[]
}

describe('RunAdmission metrics', () => {
  it('records each wait, the runs waiting without naming a principal, and the refusals', async () => {
    const admission = new RunAdmission({ maxRuns: 1, maxRunsPerPrincipal: 1, maxQueuedPerPrincipal: 1 })
    const first = await tracer.startActiveSpan('tools/call run_code', async span => {
      const run = await admission.admit('alice')
      span.end()
      return run
    })
    // Bob waits behind alice under a span of his own; his second run finds his share full.
    const waiting = tracer.startActiveSpan('tools/call run_code', span =>
      admission.admit('bob').finally(() => span.end()),
    )
    await assert.rejects(admission.admit('bob'), RunRefusedBusy)
    const [gauge] = await pointsOf('code_runtime.admission.waiting')
    assert.equal(gauge?.value, 1)
    assert.deepEqual(gauge?.attributes, {})
    await new Promise(resolve => setTimeout(resolve, 20))
    first.release()
    const second = await waiting
    second.release()
    assert.ok(second.waitedMs >= 15, String(second.waitedMs))
    assert.equal((await pointsOf('code_runtime.admission.waiting'))[0]?.value, 0)
    const [wait] = await pointsOf('code_runtime.admission.wait')
    const histogram = wait?.value as Histogram
    assert.deepEqual(wait?.attributes, {})
    assert.equal(histogram.count, 2)
    assert.ok(Math.abs((histogram.sum ?? 0) - second.waitedMs / 1_000) < 0.001)
    const refused = await pointsOf('code_runtime.admission.refused')
    assert.deepEqual(
      refused.map(point => [point.attributes, point.value]),
      [[{ 'code_runtime.admission.bound': 'principal' }, 1]],
    )
    // Each wait on the span that was active when its run asked to start.
    const spans = exporter.getFinishedSpans()
    assert.deepEqual(
      spans.map(span => typeof span.attributes['code_runtime.admission.wait_ms']),
      ['number', 'number'],
    )
    assert.equal(spans[0]?.attributes['code_runtime.admission.wait_ms'], 0)
    assert.equal(spans[1]?.attributes['code_runtime.admission.wait_ms'], second.waitedMs)
  })
})
