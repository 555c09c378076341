/**
 * OpenTelemetry metrics of Code Mode runs, read back through the SDK's own reader (its meter
 * provider registered in this test process, as an application would): run durations by backend
 * and failure kind, failures by kind, tool call durations by tool, a session's queue wait, and the
 * sessions open. Real worker-thread runs.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { metrics } from '@opentelemetry/api'
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

/** A reader whose collection the test asks for. */
class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve()
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
}

function registerMeterProvider(): TestReader {
  const reader = new TestReader()
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
  return reader
}

/** The data points of one metric, as `attributes → value`. */
async function pointsOf(reader: TestReader, name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect()
  const metric = resourceMetrics.scopeMetrics
    .flatMap(scope => scope.metrics)
    .find(candidate => candidate.descriptor.name === name)
  return (metric?.dataPoints ?? []) as DataPoint<unknown>[]
}

/** Each histogram point as `attributes: count`, sorted. */
function histogramCounts(points: DataPoint<unknown>[]): string[] {
  return points.map(point => `${JSON.stringify(point.attributes)}: ${(point.value as Histogram).count}`).sort()
}

const tools: CodeModeTool[] = [
  {
    name: 'lookup',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    annotations: { readOnlyHint: true },
    execute: args => Promise.resolve((args as { key: string }).key),
  },
  {
    name: 'explode',
    inputSchema: { type: 'object', properties: {} },
    execute: () => Promise.reject(Object.assign(new Error('no'), { code: 'E_NO' })),
  },
]

describe('metrics: what runs record', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  let reader: TestReader
  before(async () => {
    reader = registerMeterProvider()
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('records run durations by backend and failure kind, failures by kind, and call durations by tool', async () => {
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off' })
    await codeMode.run("return await Promise.all([tools.lookup({ key: 'a' }), tools.lookup({ key: 'b' })])")
    await codeMode.run('try { await tools.explode({}) } catch {}\nthrow new Error("x")')
    assert.deepEqual(histogramCounts(await pointsOf(reader, 'code_runtime.run.duration')), [
      '{"code_runtime.backend":"worker-thread","error.type":"exception"}: 1',
      '{"code_runtime.backend":"worker-thread"}: 1',
    ])
    const failures = await pointsOf(reader, 'code_runtime.run.failures')
    assert.deepEqual(
      failures.map(point => [point.attributes, point.value]),
      [[{ 'code_runtime.backend': 'worker-thread', 'error.type': 'exception' }, 1]],
    )
    assert.deepEqual(histogramCounts(await pointsOf(reader, 'code_runtime.tool_call.duration')), [
      '{"gen_ai.tool.name":"explode","error.type":"E_NO"}: 1',
      '{"gen_ai.tool.name":"lookup"}: 2',
    ])
    const [run] = await pointsOf(reader, 'code_runtime.run.duration')
    assert.ok(((run?.value as Histogram | undefined)?.sum ?? 0) > 0)
  })

  it('counts open sessions and records how long a session’s runs waited for it', async () => {
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off', session: true })
    await Promise.all([codeMode.run('const a = 1'), codeMode.run('const b = 2')])
    assert.deepEqual(
      (await pointsOf(reader, 'code_runtime.sessions.open')).map(point => point.value),
      [1],
    )
    assert.deepEqual(histogramCounts(await pointsOf(reader, 'code_runtime.session.queue_wait')), ['{}: 2'])
    await codeMode.dispose()
    assert.deepEqual(
      (await pointsOf(reader, 'code_runtime.sessions.open')).map(point => point.value),
      [0],
    )
  })

  it('records into a meter provider registered after the Code Mode was made', async () => {
    const codeMode = createCodeMode({ tools, runtime: started.runtime, typeCheck: 'off' })
    // The metrics API has no proxy: instruments of the old provider would record nowhere.
    metrics.disable()
    const later = registerMeterProvider()
    await codeMode.run('return 1')
    assert.deepEqual(histogramCounts(await pointsOf(later, 'code_runtime.run.duration')), [
      '{"code_runtime.backend":"worker-thread"}: 1',
    ])
  })
})
