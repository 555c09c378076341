/**
 * Test support: a local OTLP/HTTP receiver, as a collector would run one, that decodes the
 * protobuf `ExportTraceServiceRequest`s it is sent into plain spans (and the metric requests into
 * their metrics' names). The decoding walks the wire
 * format by field number (the OTLP trace proto's, which is stable), only as far as the tests read.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One span as received. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  /** Empty for a root span. */
  readonly parentSpanId: string
  readonly name: string
  /** From its start and end times. */
  readonly durationMs: number
  /** String, integer and boolean attributes, as text. */
  readonly attributes: Readonly<Record<string, string>>
  /** The resource's `service.name`. */
  readonly serviceName: string | undefined
}

type Field = { readonly field: number; readonly value: bigint | Uint8Array }

function readVarint(bytes: Uint8Array, at: { offset: number }): bigint {
  let result = 0n
  for (let shift = 0n; ; shift += 7n) {
    const byte = bytes[at.offset++]
    if (byte === undefined) throw new Error('truncated varint')
    result |= BigInt(byte & 0x7f) << shift
    if ((byte & 0x80) === 0) return result
  }
}

/** The fields of one protobuf message: varints as bigints, everything length-delimited as bytes. */
function fieldsOf(bytes: Uint8Array): Field[] {
  const fields: Field[] = []
  const at = { offset: 0 }
  while (at.offset < bytes.length) {
    const key = readVarint(bytes, at)
    const field = Number(key >> 3n)
    const wire = Number(key & 7n)
    if (wire === 0) fields.push({ field, value: readVarint(bytes, at) })
    else if (wire === 2) {
      const length = Number(readVarint(bytes, at))
      fields.push({ field, value: bytes.subarray(at.offset, at.offset + length) })
      at.offset += length
    } else if (wire === 1) {
      fields.push({ field, value: Buffer.from(bytes.subarray(at.offset, at.offset + 8)).readBigUInt64LE() })
      at.offset += 8
    } else if (wire === 5) at.offset += 4
    else throw new Error(`unexpected wire type ${wire}`)
  }
  return fields
}

const text = (value: bigint | Uint8Array): string =>
  typeof value === 'bigint' ? String(value) : Buffer.from(value).toString('utf8')
const hex = (value: bigint | Uint8Array): string =>
  typeof value === 'bigint' ? '' : Buffer.from(value).toString('hex')
const messages = (fields: Field[], field: number): Uint8Array[] =>
  fields
    .filter(entry => entry.field === field && typeof entry.value !== 'bigint')
    .map(entry => entry.value as Uint8Array)

/** `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue { string 1, bool 2, int 3 }`. */
function attributesOf(fields: Field[], field: number): Record<string, string> {
  const attributes: Record<string, string> = {}
  for (const keyValue of messages(fields, field)) {
    const parts = fieldsOf(keyValue)
    const key = parts.find(part => part.field === 1)
    const anyValue = messages(parts, 2)[0]
    const value = anyValue === undefined ? undefined : fieldsOf(anyValue)[0]
    if (key !== undefined && value !== undefined) attributes[text(key.value)] = text(value.value)
  }
  return attributes
}

/** The spans of one `ExportTraceServiceRequest`. */
export function decodeTraceRequest(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = []
  for (const resourceSpans of messages(fieldsOf(body), 1)) {
    const resourceFields = fieldsOf(resourceSpans)
    const resource = messages(resourceFields, 1)[0]
    const serviceName = resource === undefined ? undefined : attributesOf(fieldsOf(resource), 1)['service.name']
    for (const scopeSpans of messages(resourceFields, 2)) {
      for (const span of messages(fieldsOf(scopeSpans), 2)) {
        const fields = fieldsOf(span)
        const one = (field: number): bigint | Uint8Array =>
          fields.find(entry => entry.field === field)?.value ?? new Uint8Array()
        spans.push({
          traceId: hex(one(1)),
          spanId: hex(one(2)),
          parentSpanId: hex(one(4)),
          name: text(one(5)),
          durationMs: Number(BigInt(one(8) as bigint) - BigInt(one(7) as bigint)) / 1e6,
          attributes: attributesOf(fields, 9),
          serviceName,
        })
      }
    }
  }
  return spans
}

/** The metrics of one `ExportMetricsServiceRequest`, by name: `ResourceMetrics 1 → ScopeMetrics 2 → Metric 2 → name 1`. */
export function decodeMetricNames(body: Uint8Array): string[] {
  const names: string[] = []
  for (const resourceMetrics of messages(fieldsOf(body), 1))
    for (const scopeMetrics of messages(fieldsOf(resourceMetrics), 2))
      for (const metric of messages(fieldsOf(scopeMetrics), 2)) {
        const name = fieldsOf(metric).find(entry => entry.field === 1)
        if (name !== undefined) names.push(text(name.value))
      }
  return names
}

/** A receiver on a loopback port: every span POSTed to `/v1/traces`, every metric's name POSTed to `/v1/metrics`, and what it was asked. */
export interface OtlpReceiver {
  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` should be. */
  readonly endpoint: string
  readonly spans: ReceivedSpan[]
  readonly metricNames: string[]
  /** Each request's method, path and content type. */
  readonly requests: string[]
  close(): Promise<void>
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const metricNames: string[] = []
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      requests.push(`${request.method} ${request.url} ${request.headers['content-type']}`)
      if (request.url === '/v1/traces') spans.push(...decodeTraceRequest(Buffer.concat(chunks)))
      if (request.url === '/v1/metrics') metricNames.push(...decodeMetricNames(Buffer.concat(chunks)))
      // An empty Export…ServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    requests,
    close: () => new Promise(resolve => server.close(() => resolve())),
  }
}
