/**
 * What the `code-runtime` bin registers with OpenTelemetry, as the application it is (the
 * libraries under it register nothing, so that an application embedding them keeps its own
 * set-up). `serve` always continues its clients' traces: it registers the async-hooks context
 * manager and the W3C trace-context and baggage propagators, so a `traceparent` a client sends in
 * `_meta` reaches every upstream `tools/call` of that run, even when nothing here records spans.
 * `OTEL_SDK_DISABLED=true` turns all of it off.
 */
import { context, propagation } from '@opentelemetry/api'

/** What was set up, and how to end it before the process exits. */
export interface TraceSetup {
  /** Flushes and stops whatever was started; resolves when done (or given up on). */
  shutdown(): Promise<void>
}

const NOTHING: TraceSetup = { shutdown: () => Promise.resolve() }

/** The CLI's commands that trace. */
export type TracedCommand = 'serve' | 'run' | 'runner'

/** True when the environment turns the OpenTelemetry SDK off (the spec's `OTEL_SDK_DISABLED`). */
export function isTracingDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true'
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

/** Sets up tracing for `command` from the environment. */
export async function setUpTracing(command: TracedCommand, env: NodeJS.ProcessEnv = process.env): Promise<TraceSetup> {
  if (isTracingDisabled(env) || command !== 'serve') return NOTHING
  await registerPropagation()
  return NOTHING
}
