import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readTraceExport } from './trace-setup.js'

describe('readTraceExport', () => {
  it('exports only when an OTLP endpoint is set', () => {
    assert.deepEqual(readTraceExport({}), { export: false })
    assert.deepEqual(readTraceExport({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), { export: true })
    assert.deepEqual(readTraceExport({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), {
      export: true,
    })
    assert.deepEqual(readTraceExport({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), { export: false })
  })

  it('exports nothing when the SDK is disabled or the exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    assert.deepEqual(readTraceExport({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }), { export: false })
    assert.deepEqual(readTraceExport({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), { export: false })
    assert.deepEqual(readTraceExport({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp,console' }), { export: true })
  })

  it('names what it cannot do: another exporter, another protocol', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    assert.match(
      readTraceExport({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' }).problem ?? '',
      /OTEL_TRACES_EXPORTER=zipkin: only otlp/,
    )
    assert.match(
      readTraceExport({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).problem ?? '',
      /http\/json is not supported/,
    )
    // The traces-specific protocol wins over the general one.
    assert.deepEqual(
      readTraceExport({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
      { export: true },
    )
  })
})
