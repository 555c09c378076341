/**
 * Spans exported with OTLP over HTTP (protobuf), by the OpenTelemetry SDK: a tracer provider with
 * a batching processor and the OTLP exporter, which reads its endpoint, headers, timeout and
 * compression from the standard `OTEL_EXPORTER_OTLP_*` variables itself. The SDK packages are
 * optional dependencies, loaded only when the environment asks for export, so a plain `serve`
 * never pays for them and an install without them still runs (saying why nothing is exported).
 */
import { trace } from '@opentelemetry/api'
import { PACKAGE_INFO } from '../package-info.js'

/** The SDK versions we pin: the 2.x line, the last that supports Node 20 (3.x wants Node 22.15). */
export const OTEL_SDK_PACKAGES = [
  '@opentelemetry/sdk-trace-base@2.12.0',
  '@opentelemetry/exporter-trace-otlp-proto@0.223.0',
  '@opentelemetry/resources@2.12.0',
] as const

/** A started export: how to flush what is pending and stop. */
export interface OtlpExport {
  shutdown(): Promise<void>
}

/**
 * Loads the SDK and registers its tracer provider as the global one.
 * @throws whatever loading the SDK throws (not installed, or a version that cannot load here).
 */
export async function startOtlpExport(): Promise<OtlpExport> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ])
  // Ours first, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override them.
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({ 'service.name': 'code-runtime', 'service.version': PACKAGE_INFO.version }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  })
  trace.setGlobalTracerProvider(provider)
  return { shutdown: () => provider.shutdown() }
}
