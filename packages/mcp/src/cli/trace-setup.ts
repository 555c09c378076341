/**
 * What the `code-runtime` bin registers with OpenTelemetry, as the application it is (the
 * libraries under it register nothing, so that an application embedding them keeps its own
 * set-up). `serve`, `run` and `runner` export their spans with OTLP (http/protobuf) when
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and nothing
 * otherwise. `serve` always continues its clients' traces: it registers the async-hooks context
 * manager and the W3C trace-context and baggage propagators, so a `traceparent` a client sends in
 * `_meta` reaches every upstream `tools/call` of that run even when nothing is exported.
 * `OTEL_SDK_DISABLED=true` turns all of it off.
 */
import { context, propagation } from '@opentelemetry/api'
import { OTEL_SDK_PACKAGES, startOtlpExport } from './otlp-export.js'

/** What was set up, and how to end it before the process exits. */
export interface TraceSetup {
  /** Flushes and stops whatever was started; resolves when done, or after {@link SHUTDOWN_WAIT_MS}. */
  shutdown(): Promise<void>
}

/** The CLI's commands that trace. */
export type TracedCommand = 'serve' | 'run' | 'runner'

/** Longest the exit waits for the last spans to be sent: a collector that is down must not hold it. */
export const SHUTDOWN_WAIT_MS = 5_000

const NOTHING: TraceSetup = { shutdown: () => Promise.resolve() }

/** Whether the environment asks for OTLP export of traces, or why it is asked for and cannot be done. */
export function readTraceExport(env: NodeJS.ProcessEnv): { readonly export: boolean; readonly problem?: string } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { export: false }
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!endpoint) return { export: false }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp')
    .split(',')
    .map(name => name.trim())
    .filter(name => name !== '')
  if (exporters.includes('none') || exporters.length === 0) return { export: false }
  if (!exporters.includes('otlp'))
    return { export: false, problem: `OTEL_TRACES_EXPORTER=${exporters.join(',')}: only otlp is supported` }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim()
  if (protocol !== 'http/protobuf')
    return { export: false, problem: `the OTLP protocol ${protocol} is not supported, only http/protobuf` }
  return { export: true }
}

/** Registers the context manager and the W3C propagators (loaded only now: other commands never pay for them). */
async function registerPropagation(): Promise<void> {
  const [
    { AsyncLocalStorageContextManager },
    { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator },
  ] = await Promise.all([import('@opentelemetry/context-async-hooks'), import('@opentelemetry/core')])
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  )
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Sets up tracing for `command` from the environment. Never throws: a problem with tracing is
 * one line for `say` (stderr), and the command runs untraced.
 */
export async function setUpTracing(
  command: TracedCommand,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TraceSetup> {
  const wanted = readTraceExport(env)
  if (wanted.problem !== undefined) say(`${wanted.problem}; no traces are exported.`)
  const continuesTraces = command === 'serve' && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true'
  if (!wanted.export && !continuesTraces) return NOTHING
  try {
    await registerPropagation()
  } catch (error) {
    say(`tracing is off: its context manager could not load (${errorText(error)}).`)
    return NOTHING
  }
  if (!wanted.export) return NOTHING
  let started
  try {
    started = await startOtlpExport()
  } catch (error) {
    say(
      `OTLP export is asked for, but the OpenTelemetry SDK could not be loaded (${errorText(error)}); no traces are exported. Install ${OTEL_SDK_PACKAGES.join(' ')}.`,
    )
    return NOTHING
  }
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined
      const givenUp = new Promise<void>(resolve => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)
      })
      await Promise.race([started.shutdown().catch(() => undefined), givenUp])
      clearTimeout(timer)
    },
  }
}
