/**
 * The caller's trace context, carried to the runner in a run's start (and a session's opening) as
 * W3C `traceparent`/`tracestate` text, so what the runner does for the run (its backend's
 * `acquire`) joins the caller's trace instead of starting one of its own. Read and written through
 * `@opentelemetry/api` alone: the text is made from the active span's context by hand, because a
 * library must not register a propagator (the application's registration would then break), and
 * the API's default propagator writes nothing. What arrives is checked like every field of a
 * message: a malformed value is dropped, never trusted.
 */
import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
} from '@opentelemetry/api'

/** The trace context as a start message carries it. */
export interface WireTraceContext {
  readonly traceparent: string
  readonly tracestate?: string
}

const TRACEPARENT_PATTERN = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
/** The W3C limit on `tracestate`: 32 members of at most 256 characters each; far shorter in practice. */
const MAX_TRACESTATE_CHARS = 512
const TRACESTATE_PATTERN = /^[\x20-\x7e]*$/

/** The active span's context as wire text; undefined when no span is active (nothing to join). */
export function activeTraceContext(): WireTraceContext | undefined {
  const spanContext = trace.getSpanContext(context.active())
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return undefined
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`
  const tracestate = spanContext.traceState?.serialize()
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate }
}

/** Reads a message's trace field: undefined when absent or malformed. */
export function decodeTraceContext(raw: unknown): WireTraceContext | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const { traceparent, tracestate } = raw as { traceparent?: unknown; tracestate?: unknown }
  if (typeof traceparent !== 'string' || !TRACEPARENT_PATTERN.test(traceparent)) return undefined
  if (
    tracestate === undefined ||
    typeof tracestate !== 'string' ||
    tracestate.length > MAX_TRACESTATE_CHARS ||
    !TRACESTATE_PATTERN.test(tracestate)
  ) {
    return { traceparent }
  }
  return { traceparent, tracestate }
}

/** The context a runner runs the caller's run under: the caller's span as a remote parent. */
export function contextOf(wire: WireTraceContext | undefined): Context {
  const match = wire === undefined ? null : TRACEPARENT_PATTERN.exec(wire.traceparent)
  if (match === null) return ROOT_CONTEXT
  const [, traceId = '', spanId = '', flags = '00'] = match
  const spanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(wire?.tracestate === undefined ? {} : { traceState: createTraceState(wire.tracestate) }),
  }
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT
}

// Looked up once: the API's proxy tracer finds the application's provider whenever it registers.
const tracer = trace.getTracer('@code-runtime/nats')

/**
 * The caller's `acquire` span of a one-shot run over NATS: the wait for a runner to claim it (the
 * runner's own backend adds its `acquire` under the same parent). Made only under an active span,
 * as the engine's is: alone it would be a root of its own.
 */
export class ClaimSpan {
  readonly #span
  readonly #startedAt = performance.now()

  constructor() {
    const parent = context.active()
    this.#span = trace.getSpan(parent) === undefined ? undefined : tracer.startSpan('acquire', {}, parent)
  }

  /** A runner took the run and confirmed its start. */
  claimed(runner: string): void {
    if (this.#span?.isRecording() === true) {
      this.#span.setAttributes({
        'code_runtime.substrate.source': 'claimed',
        'code_runtime.substrate.wait_ms': performance.now() - this.#startedAt,
        'code_runtime.runner.id': runner,
      })
    }
    this.#span?.end()
  }

  /** No runner took it (aborted, disposed, none within the queue's wait). */
  failed(errorType: string): void {
    if (this.#span?.isRecording() === true) {
      this.#span.setAttributes({
        'code_runtime.substrate.wait_ms': performance.now() - this.#startedAt,
        'error.type': errorType,
      })
      this.#span.setStatus({ code: SpanStatusCode.ERROR })
    }
    this.#span?.end()
  }
}
