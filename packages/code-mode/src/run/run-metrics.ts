/**
 * The metrics of runs, through `@opentelemetry/api` alone: how long runs take (by backend, and
 * `error.type` for a failed one), failures by kind, how long tool calls take (by tool), how long
 * a session's run waits behind the session's earlier runs, and how many sessions are open.
 * Durations are in seconds, as the OpenTelemetry conventions have them.
 *
 * Unlike the tracing API, the metrics API has no proxy: an instrument made before the application
 * registers its meter provider stays a no-op. So the instruments are made from the provider
 * registered now, and made again when it changes; nothing here registers anything.
 */
import { metrics, type Counter, type Histogram, type MeterProvider, type MetricAttributes } from '@opentelemetry/api'

const METER_NAME = '@code-runtime/code-mode'
// From 5 ms to a minute: a trivial run, a check, a call to a slow server, a run at its wall budget.
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

interface Instruments {
  readonly runDuration: Histogram
  readonly runFailures: Counter
  readonly toolCallDuration: Histogram
  readonly queueWait: Histogram
}

/** What a session tells the `sessions.open` gauge: whether it holds an open runtime session now. */
export interface CountedSession {
  readonly isOpen: boolean
}

// Weakly held: a session dropped without being disposed must not be kept alive by the count.
const countedSessions = new Set<WeakRef<CountedSession>>()

let made: { readonly provider: MeterProvider; readonly instruments: Instruments } | undefined

function instruments(): Instruments {
  const provider = metrics.getMeterProvider()
  if (made?.provider === provider) return made.instruments
  const meter = provider.getMeter(METER_NAME)
  const seconds = { unit: 's', advice: { explicitBucketBoundaries: SECONDS_BUCKETS } }
  meter
    .createObservableUpDownCounter('code_runtime.sessions.open', {
      description: 'Code Mode sessions holding an open runtime session.',
    })
    .addCallback(result => {
      let open = 0
      for (const held of countedSessions) {
        const session = held.deref()
        if (session === undefined) countedSessions.delete(held)
        else if (session.isOpen) open++
      }
      result.observe(open)
    })
  made = {
    provider,
    instruments: {
      runDuration: meter.createHistogram('code_runtime.run.duration', {
        description: 'Duration of Code Mode runs, from the call to the output.',
        ...seconds,
      }),
      runFailures: meter.createCounter('code_runtime.run.failures', { description: 'Failed Code Mode runs, by kind.' }),
      toolCallDuration: meter.createHistogram('code_runtime.tool_call.duration', {
        description: "Duration of the program's tool calls, from the call to its answer (approval waits included).",
        ...seconds,
      }),
      queueWait: meter.createHistogram('code_runtime.session.queue_wait', {
        description: "How long a session's run waited behind the session's earlier runs.",
        ...seconds,
      }),
    },
  }
  return made.instruments
}

/** Records one run: `errorType` is its failure kind, or what it threw; absent for a run that succeeded. */
export function recordRun(backend: string | undefined, errorType: string | undefined, seconds: number): void {
  const attributes: MetricAttributes = {}
  if (backend !== undefined) attributes['code_runtime.backend'] = backend
  if (errorType !== undefined) attributes['error.type'] = errorType
  const { runDuration, runFailures } = instruments()
  runDuration.record(seconds, attributes)
  if (errorType !== undefined) runFailures.add(1, attributes)
}

/** Records one tool call of a program; `errorType` as the call's span has it, absent for a call that succeeded. */
export function recordToolCall(toolName: string, errorType: string | undefined, seconds: number): void {
  instruments().toolCallDuration.record(
    seconds,
    errorType === undefined
      ? { 'gen_ai.tool.name': toolName }
      : { 'gen_ai.tool.name': toolName, 'error.type': errorType },
  )
}

/** Records how long a session's run waited for the session. */
export function recordQueueWait(seconds: number): void {
  instruments().queueWait.record(seconds)
}

/** Counts `session` in `code_runtime.sessions.open` while it says it is open. */
export function countSession(session: CountedSession): void {
  countedSessions.add(new WeakRef(session))
}
