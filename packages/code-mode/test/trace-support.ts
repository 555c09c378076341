/**
 * Test support for tracing: the OpenTelemetry SDK as an application would register it (a tracer
 * provider with the in-memory exporter, the async-hooks context manager), registered in the test
 * process only, and the span tree read back from the exporter.
 */
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'

/** Registers the SDK globally (once per test process) and returns the exporter every span reaches. */
export function registerTestTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
  return exporter
}

/** The finished spans, indexed: by id, and each span's children. */
export class SpanTree {
  readonly spans: readonly ReadableSpan[]
  readonly #byId = new Map<string, ReadableSpan>()
  readonly #children = new Map<string, ReadableSpan[]>()

  constructor(spans: readonly ReadableSpan[]) {
    this.spans = spans
    for (const span of spans) this.#byId.set(span.spanContext().spanId, span)
    for (const span of spans) {
      const parentId = span.parentSpanContext?.spanId
      if (parentId === undefined) continue
      const siblings = this.#children.get(parentId) ?? []
      siblings.push(span)
      this.#children.set(parentId, siblings)
    }
  }

  parentOf(span: ReadableSpan): ReadableSpan | undefined {
    const parentId = span.parentSpanContext?.spanId
    return parentId === undefined ? undefined : this.#byId.get(parentId)
  }

  childrenOf(span: ReadableSpan): readonly ReadableSpan[] {
    return this.#children.get(span.spanContext().spanId) ?? []
  }

  /** Spans whose parent is named but was never exported: the orphans a broken context makes. */
  orphans(): readonly ReadableSpan[] {
    return this.spans.filter(span => span.parentSpanContext !== undefined && this.parentOf(span) === undefined)
  }

  named(name: string): readonly ReadableSpan[] {
    return this.spans.filter(span => span.name === name)
  }

  /** The chain of span names from `span` up to its root, e.g. `execute_tool lookup < execute < run_code`. */
  pathOf(span: ReadableSpan): string {
    const names: string[] = []
    for (let at: ReadableSpan | undefined = span; at !== undefined; at = this.parentOf(at)) names.push(at.name)
    return names.join(' < ')
  }
}

/** Every attribute value of every span and event, as text: what a trace backend would store. */
export function recordedText(spans: readonly ReadableSpan[]): string {
  const values: unknown[] = []
  for (const span of spans) {
    values.push(span.name, ...Object.values(span.attributes), span.status.message)
    for (const event of span.events) values.push(event.name, ...Object.values(event.attributes ?? {}))
  }
  return values.map(value => String(value)).join('\n')
}
