/**
 * Spans and metrics exported with OTLP over HTTP (protobuf), by the OpenTelemetry SDK: a tracer
 * provider with a batching processor and the OTLP trace exporter, and a meter provider with a
 * periodic reader and the OTLP metric exporter. The exporters read their endpoint, headers,
 * timeout and compression from the standard `OTEL_EXPORTER_OTLP_*` variables themselves. The SDK
 * packages are optional dependencies, loaded only when the environment asks for export, so a
 * plain `serve` never pays for them and an install without them still runs (saying why nothing
 * is exported).
 */
import { metrics, trace } from '@opentelemetry/api'
import type { Resource } from '@opentelemetry/resources'
import { PACKAGE_INFO } from '../package-info.js'

/** What each export needs installed: the 2.x line, the last that supports Node 20 (3.x wants Node 22.15). */
export const OTEL_SDK_PACKAGES = {
  traces: [
    '@opentelemetry/sdk-trace-base@2.12.0',
    '@opentelemetry/exporter-trace-otlp-proto@0.223.0',
    '@opentelemetry/resources@2.12.0',
  ],
  metrics: [
    '@opentelemetry/sdk-metrics@2.12.0',
    '@opentelemetry/exporter-metrics-otlp-proto@0.223.0',
    '@opentelemetry/resources@2.12.0',
  ],
} as const

/** The spec's default interval between metric exports, in milliseconds. */
export const DEFAULT_METRIC_EXPORT_INTERVAL_MS = 60_000
/** The spec's default limit of one metric export, in milliseconds (never past the interval). */
const DEFAULT_METRIC_EXPORT_TIMEOUT_MS = 30_000

/** A started export: how to send what is pending and stop. */
export interface OtlpExport {
  shutdown(): Promise<void>
}

/** Ours first, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override them. */
async function codeRuntimeResource(): Promise<Resource> {
  const resources = await import('@opentelemetry/resources')
  return resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({ 'service.name': 'code-runtime', 'service.version': PACKAGE_INFO.version }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
}

/**
 * Loads the trace SDK and registers its tracer provider as the global one.
 * @throws whatever loading the SDK throws (not installed, or a version that cannot load here).
 */
export async function startTraceExport(): Promise<OtlpExport> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resource] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    codeRuntimeResource(),
  ])
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  })
  trace.setGlobalTracerProvider(provider)
  return { shutdown: () => provider.shutdown() }
}

/**
 * Loads the metrics SDK and registers its meter provider as the global one, exporting every
 * `intervalMs` and once more at shutdown.
 * @throws whatever loading the SDK throws.
 */
export async function startMetricExport(intervalMs: number): Promise<OtlpExport> {
  const [{ MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }, resource] = await Promise.all([
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-metrics-otlp-proto'),
    codeRuntimeResource(),
  ])
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: Math.min(DEFAULT_METRIC_EXPORT_TIMEOUT_MS, intervalMs),
  })
  const provider = new MeterProvider({ resource, readers: [reader] })
  metrics.setGlobalMeterProvider(provider)
  return { shutdown: () => provider.shutdown() }
}
