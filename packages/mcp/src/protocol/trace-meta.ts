/**
 * Trace context in MCP's `params._meta`, where the MCP semantic conventions carry it (`traceparent`,
 * `tracestate`, `baggage`, the W3C names): read from a request we serve, written into a request
 * we send. Both go through `propagation` of `@opentelemetry/api`, so they read and write what the
 * application's propagator does (the `code-runtime` bin registers W3C trace context and baggage);
 * with no propagator registered, nothing is read or written.
 */
import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api'

type MetaRecord = Readonly<Record<string, unknown>>

// A client's `_meta` is untrusted JSON: only its own string fields are offered to the propagator,
// which parses and validates what it reads.
const metaGetter: TextMapGetter<MetaRecord> = {
  keys: meta => Object.keys(meta),
  get: (meta, key) => {
    const value = Object.hasOwn(meta, key) ? meta[key] : undefined
    return typeof value === 'string' ? value : undefined
  },
}

const metaSetter: TextMapSetter<Record<string, string>> = {
  set: (meta, key, value) => {
    meta[key] = value
  },
}

/** The context a request continues: the trace its `_meta` names under `base`, or `base` itself. */
export function contextFromMeta(meta: unknown, base: Context = context.active()): Context {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return base
  return propagation.extract(base, meta as MetaRecord, metaGetter)
}

/** The `_meta` fields that carry `from` to a peer, or `undefined` when there are none to carry. */
export function traceMetaOf(from: Context): Record<string, string> | undefined {
  const meta: Record<string, string> = {}
  propagation.inject(from, meta, metaSetter)
  return Object.keys(meta).length === 0 ? undefined : meta
}
