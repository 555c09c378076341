/**
 * The `acquire` span: how a run got its substrate, through `@opentelemetry/api` alone. It starts
 * under the context active when the run (or the session's opening) was called, so it nests under
 * whatever span the caller made active there (Code Mode's `execute`), and says where the substrate
 * came from (`code_runtime.substrate.source`: one spawned ahead and `ready`, one the run waited to
 * be `spawned`, one `recycled` after an earlier run of its reuse key) and how long the run waited
 * for it (`code_runtime.substrate.wait_ms`, the span's own duration as a figure a query can read).
 *
 * It is made only under an active span: alone, without the run it belongs to, it would be a root
 * of its own in every trace (a NATS runner, whose runs' trace context stays with the caller, would
 * send one per run). So with no SDK registered by the application (no context manager, no active
 * span) the cost on a run is one look-up of the active context. Nothing here registers anything
 * global.
 */
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api'

/** Where a run's substrate came from. */
export type SubstrateSource = 'ready' | 'spawned' | 'recycled'

// Looked up once: the API's proxy tracer finds the application's provider whenever it registers.
const tracer = trace.getTracer('@code-runtime/engine')

/** One run's (or one session's) wait for its substrate, from its start to {@link acquired} or {@link failed}. */
export class AcquireSpan {
  readonly #span: Span | undefined
  readonly #startedAt: number
  readonly #persistent: boolean

  /** Starts under the context active now: the caller's. `persistent` for a session's own substrate. */
  constructor(persistent: boolean) {
    const parent = context.active()
    this.#span = trace.getSpan(parent) === undefined ? undefined : tracer.startSpan('acquire', {}, parent)
    this.#startedAt = this.#span === undefined ? 0 : performance.now()
    this.#persistent = persistent
  }

  acquired(source: SubstrateSource): void {
    const span = this.#span
    if (span === undefined) return
    if (span.isRecording())
      span.setAttributes({
        'code_runtime.substrate.source': source,
        'code_runtime.substrate.wait_ms': performance.now() - this.#startedAt,
        'code_runtime.substrate.persistent': this.#persistent,
      })
    span.end()
  }

  /** No substrate came: the run was aborted or the runtime disposed (`abort`), or the spawn failed. */
  failed(errorType: string): void {
    const span = this.#span
    if (span === undefined) return
    if (span.isRecording()) {
      span.setAttributes({
        'code_runtime.substrate.wait_ms': performance.now() - this.#startedAt,
        'code_runtime.substrate.persistent': this.#persistent,
        'error.type': errorType,
      })
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
    span.end()
  }
}
