/**
 * What the `code-runtime` bin registers with OpenTelemetry, as the application it is (the
 * libraries under it register nothing, so that an application embedding them keeps its own
 * set-up). `serve`, `run` and `runner` export their spans and metrics with OTLP (http/protobuf)
 * when the spec's endpoint variables are set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the signal's own
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `_METRICS_ENDPOINT`), and nothing otherwise. `serve`
 * always continues its clients' traces: it registers the async-hooks context manager and the W3C
 * trace-context and baggage propagators, so a `traceparent` a client sends in `_meta` reaches
 * every upstream `tools/call` of that run even when nothing is exported. `OTEL_SDK_DISABLED=true`
 * turns all of it off.
 */
import { context, propagation } from '@opentelemetry/api'
import {
  DEFAULT_METRIC_EXPORT_INTERVAL_MS,
  OTEL_SDK_PACKAGES,
  startMetricExport,
  startTraceExport,
  type OtlpExport,
} from './otlp-export.js'

/** What was set up, and how to end it before the process exits. */
export interface TelemetrySetup {
  /** Sends what is pending and stops; resolves when done, or after {@link SHUTDOWN_WAIT_MS}. */
  shutdown(): Promise<void>
}

/** The CLI's commands that export telemetry. */
export type TelemetryCommand = 'serve' | 'run' | 'runner'

/** What OTLP exports: spans or metrics. */
export type OtlpSignal = 'traces' | 'metrics'

/** Longest the exit waits for the last spans and metrics to be sent: a collector that is down must not hold it. */
export const SHUTDOWN_WAIT_MS = 5_000

function isDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true'
}

/**
 * Whether the environment asks for OTLP export of `signal`, or why it is asked for and cannot be
 * done, by the spec's variables: the signal's own ones before the general ones.
 */
export function readOtlpExport(
  signal: OtlpSignal,
  env: NodeJS.ProcessEnv,
): { readonly export: boolean; readonly problem?: string } {
  if (isDisabled(env)) return { export: false }
  const upper = signal.toUpperCase()
  const endpoint = env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`]?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!endpoint) return { export: false }
  const variable = `OTEL_${upper}_EXPORTER`
  const exporters = (env[variable] ?? 'otlp')
    .split(',')
    .map(name => name.trim())
    .filter(name => name !== '')
  if (exporters.includes('none') || exporters.length === 0) return { export: false }
  if (!exporters.includes('otlp'))
    return { export: false, problem: `${variable}=${exporters.join(',')}: only otlp is supported` }
  const protocol = (
    env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`] ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim()
  if (protocol !== 'http/protobuf')
    return { export: false, problem: `the OTLP protocol ${protocol} is not supported, only http/protobuf` }
  return { export: true }
}

/** `OTEL_METRIC_EXPORT_INTERVAL` in milliseconds, or the spec's default with the reason it was not taken. */
export function readMetricExportInterval(env: NodeJS.ProcessEnv): {
  readonly intervalMs: number
  readonly problem?: string
} {
  const text = env.OTEL_METRIC_EXPORT_INTERVAL?.trim()
  if (text === undefined || text === '') return { intervalMs: DEFAULT_METRIC_EXPORT_INTERVAL_MS }
  const value = Number(text)
  if (Number.isSafeInteger(value) && value >= 1) return { intervalMs: value }
  return {
    intervalMs: DEFAULT_METRIC_EXPORT_INTERVAL_MS,
    problem: `OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds from 1, got ${JSON.stringify(text)}; metrics are exported every ${DEFAULT_METRIC_EXPORT_INTERVAL_MS} ms`,
  }
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

/** Starts one signal's export, or says why it cannot and returns nothing. */
async function startExport(
  signal: OtlpSignal,
  start: () => Promise<OtlpExport>,
  say: (line: string) => void,
): Promise<OtlpExport | undefined> {
  try {
    return await start()
  } catch (error) {
    say(
      `OTLP export is asked for, but the OpenTelemetry SDK could not be loaded (${errorText(error)}); no ${signal} are exported. Install ${OTEL_SDK_PACKAGES[signal].join(' ')}.`,
    )
    return undefined
  }
}

/**
 * Sets up telemetry for `command` from the environment. Never throws: a problem with it is one
 * line for `say` (stderr), and the command runs without that signal.
 */
export async function setUpTelemetry(
  command: TelemetryCommand,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TelemetrySetup> {
  const traces = readOtlpExport('traces', env)
  const metricsExport = readOtlpExport('metrics', env)
  if (traces.problem !== undefined) say(`${traces.problem}; no traces are exported.`)
  if (metricsExport.problem !== undefined && metricsExport.problem !== traces.problem)
    say(`${metricsExport.problem}; no metrics are exported.`)
  const continuesTraces = command === 'serve' && !isDisabled(env)
  const started: OtlpExport[] = []
  if (traces.export || continuesTraces) {
    try {
      await registerPropagation()
      if (traces.export) {
        const exporting = await startExport('traces', startTraceExport, say)
        if (exporting !== undefined) started.push(exporting)
      }
    } catch (error) {
      say(`tracing is off: its context manager could not load (${errorText(error)}).`)
    }
  }
  if (metricsExport.export) {
    const interval = readMetricExportInterval(env)
    if (interval.problem !== undefined) say(`${interval.problem}.`)
    const exporting = await startExport('metrics', () => startMetricExport(interval.intervalMs), say)
    if (exporting !== undefined) started.push(exporting)
  }
  return {
    async shutdown() {
      if (started.length === 0) return
      let timer: NodeJS.Timeout | undefined
      const givenUp = new Promise<void>(resolve => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)
      })
      await Promise.race([Promise.all(started.map(exporting => exporting.shutdown().catch(() => undefined))), givenUp])
      clearTimeout(timer)
    },
  }
}
