import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readMetricExportInterval, readOtlpExport } from './telemetry-setup.js'

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }

describe('readOtlpExport', () => {
  it('exports only when an OTLP endpoint is set, the general one or the signal’s own', () => {
    assert.deepEqual(readOtlpExport('traces', {}), { export: false })
    assert.deepEqual(readOtlpExport('traces', ENDPOINT), { export: true })
    assert.deepEqual(readOtlpExport('metrics', ENDPOINT), { export: true })
    const tracesOnly = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }
    assert.deepEqual(readOtlpExport('traces', tracesOnly), { export: true })
    assert.deepEqual(readOtlpExport('metrics', tracesOnly), { export: false })
    assert.deepEqual(readOtlpExport('traces', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), { export: false })
  })

  it('exports nothing when the SDK is disabled or the signal’s exporter is none', () => {
    assert.deepEqual(readOtlpExport('traces', { ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }), { export: false })
    assert.deepEqual(readOtlpExport('metrics', { ...ENDPOINT, OTEL_SDK_DISABLED: 'true' }), { export: false })
    assert.deepEqual(readOtlpExport('traces', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }), { export: false })
    assert.deepEqual(readOtlpExport('metrics', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }), { export: true })
    assert.deepEqual(readOtlpExport('metrics', { ...ENDPOINT, OTEL_METRICS_EXPORTER: 'none' }), { export: false })
    assert.deepEqual(readOtlpExport('traces', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp,console' }), { export: true })
  })

  it('names what it cannot do: another exporter, another protocol', () => {
    assert.match(
      readOtlpExport('traces', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' }).problem ?? '',
      /OTEL_TRACES_EXPORTER=zipkin: only otlp/,
    )
    assert.match(
      readOtlpExport('metrics', { ...ENDPOINT, OTEL_METRICS_EXPORTER: 'prometheus' }).problem ?? '',
      /OTEL_METRICS_EXPORTER=prometheus: only otlp/,
    )
    assert.match(
      readOtlpExport('traces', { ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).problem ?? '',
      /http\/json is not supported/,
    )
    // The signal's own protocol wins over the general one.
    assert.deepEqual(
      readOtlpExport('traces', {
        ...ENDPOINT,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
      { export: true },
    )
  })
})

describe('readMetricExportInterval', () => {
  it('takes whole milliseconds and says why it falls back to the default', () => {
    assert.deepEqual(readMetricExportInterval({}), { intervalMs: 60_000 })
    assert.deepEqual(readMetricExportInterval({ OTEL_METRIC_EXPORT_INTERVAL: '1500' }), { intervalMs: 1_500 })
    for (const text of ['0', '-5', '1.5', 'soon']) {
      const read = readMetricExportInterval({ OTEL_METRIC_EXPORT_INTERVAL: text })
      assert.equal(read.intervalMs, 60_000)
      assert.match(read.problem ?? '', /OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds from 1/)
    }
  })
})
