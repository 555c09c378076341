/**
 * The spans of one run, through `@opentelemetry/api` alone: `run_code` (a child of whatever span
 * is active when the run is called: a framework's own tool span, an MCP server's request) with
 * `check` and `execute` below it, the engine's `acquire` (the wait for a substrate) and one
 * `execute_tool {tool}` per tool call under `execute` (the OpenTelemetry GenAI conventions' name
 * and attributes), and `approval {tool}` under a call while it waits for a person. With no SDK registered by the application, each span is the API's no-op
 * and no attribute is computed. Nothing here registers anything global: the first registration
 * fixes the API's global version, and that is the application's to make.
 *
 * A tool call reaches Code Mode from the backend's message handling (a worker's port, a child's
 * pipe, a NATS subscription), whose async context is not the run's, and parallel calls share it.
 * So a call's parent is never read from the active context: every span is started under the
 * context captured when the run was called, and the tool runs with its own span made active, so
 * whatever spans the tool makes nest under its call.
 *
 * The same ends record the run's metrics (run-metrics.ts): a run's and a call's duration, from
 * the same start.
 *
 * Program text, arguments, results and log text can hold secrets: they are recorded only with
 * `recordContent`, and then cut to {@link MAX_CONTENT_CHARS}.
 */
import { createHash } from 'node:crypto'
import { context, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'
import type { CodeRunResult } from '@code-runtime/core'
import type { ProgramCheck } from '../type-check/program-check.js'
import type { ToolCallApproval } from './tool-approval.js'
import { recordRun, recordToolCall } from './run-metrics.js'

/** What a run's spans record beyond counts, hashes and kinds (`createCodeMode`'s `tracing` option). */
export interface CodeModeTracingOptions {
  /**
   * Record the program's text, each call's arguments and result, and the text of logs (each cut to
   * 8 000 characters). Off by default: these can hold secrets a trace backend should not keep.
   */
  readonly recordContent?: boolean
}

/** Longest program text, argument, result or log text a span records, in characters. */
export const MAX_CONTENT_CHARS = 8_000
/** Most logs of one run recorded as events of its `execute` span; the rest are counted. */
export const MAX_LOG_EVENTS = 32

const TRACER_NAME = '@code-runtime/code-mode'
// Looked up once: the API's proxy tracer finds the application's provider whenever it registers.
const tracer = trace.getTracer(TRACER_NAME)

function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1_000
}

function cut(text: string): string {
  return text.length <= MAX_CONTENT_CHARS ? text : `${text.slice(0, MAX_CONTENT_CHARS)}…`
}

function contentText(value: unknown): string {
  if (typeof value === 'string') return cut(value)
  try {
    return cut(JSON.stringify(value) ?? 'undefined')
  } catch {
    return '[not JSON]'
  }
}

/**
 * The `error.type` of what a tool (or the runtime) threw: its error code or class name, which stay
 * few; never the message, which is free text. (A call stopped by a step of ours, `invalid_arguments`,
 * `declined`, `cancelled` or `refused`, is named by that step instead.)
 */
export function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown }
    if (typeof code === 'string' && code !== '') return code
    if (typeof name === 'string' && name !== '') return name
  }
  return '_OTHER'
}

function endWithError(span: Span, errorType: string): void {
  span.setAttribute('error.type', errorType)
  span.setStatus({ code: SpanStatusCode.ERROR })
  span.end()
}

/** One tool call's span; the tool runs inside {@link ToolCallTrace.run}, with it active. */
export class ToolCallTrace {
  readonly #span: Span
  readonly #context: Context
  readonly #toolName: string
  readonly #recordContent: boolean
  readonly #startedAt = performance.now()

  constructor(parent: Context, toolName: string, callId: string | undefined, recordContent: boolean) {
    this.#span = tracer.startSpan(`execute_tool ${toolName}`, {}, parent)
    this.#context = trace.setSpan(parent, this.#span)
    this.#toolName = toolName
    this.#recordContent = recordContent
    if (this.#span.isRecording()) {
      const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': toolName }
      if (callId !== undefined) attributes['gen_ai.tool.call.id'] = callId
      this.#span.setAttributes(attributes)
    }
  }

  /** Records the arguments the tool gets (only with `recordContent`). */
  arguments(args: unknown): void {
    if (this.#recordContent && this.#span.isRecording())
      this.#span.setAttribute('gen_ai.tool.call.arguments', contentText(args))
  }

  /** Runs `work` with this call's span active: what the tool starts nests under it. */
  run<T>(work: () => T): T {
    return context.with(this.#context, work)
  }

  /** Runs the wait for a person's approval inside an `approval {tool}` span, recording its decision. */
  async approval(wait: () => Promise<void>, decisionOf: () => ToolCallApproval | undefined): Promise<void> {
    const span = tracer.startSpan(`approval ${this.#toolName}`, {}, this.#context)
    const record = (): void => {
      const decided = decisionOf()
      if (decided !== undefined && span.isRecording())
        span.setAttributes({
          'code_runtime.approval.decision': decided.decision,
          'code_runtime.approval.decided_by': decided.decidedBy,
        })
    }
    try {
      await context.with(trace.setSpan(this.#context, span), wait)
    } catch (error) {
      record()
      endWithError(span, decisionOf()?.decision === 'cancelled' ? 'cancelled' : 'declined')
      throw error
    }
    record()
    span.end()
  }

  succeed(value: unknown): void {
    if (this.#recordContent && this.#span.isRecording())
      this.#span.setAttribute('gen_ai.tool.call.result', contentText(value))
    this.#span.end()
    recordToolCall(this.#toolName, undefined, secondsSince(this.#startedAt))
  }

  fail(errorType: string): void {
    endWithError(this.#span, errorType)
    recordToolCall(this.#toolName, errorType, secondsSince(this.#startedAt))
  }
}

/** The `check` span of a run. */
export class CheckTrace {
  readonly #span: Span

  constructor(parent: Context) {
    this.#span = tracer.startSpan('check', {}, parent)
  }

  /** The verdict: how many diagnostics, and whether the program was refused. */
  answered(check: ProgramCheck): void {
    if (this.#span.isRecording())
      this.#span.setAttributes({
        'code_runtime.check.refused': check.refused,
        'code_runtime.check.diagnostics': check.errors.length + check.hints.length,
      })
    this.#span.end()
  }

  /** The checker could not answer (past its limits, or failed): the program runs unchecked. */
  unanswered(): void {
    endWithError(this.#span, 'check_failed')
  }
}

/** The `execute` span of a run: the program in the runtime, its logs as events. */
export class ExecuteTrace {
  readonly #span: Span
  readonly #recordContent: boolean
  /** The parent of the run's tool calls. */
  readonly #context: Context
  #isEnded = false

  constructor(parent: Context, recordContent: boolean) {
    this.#span = tracer.startSpan('execute', {}, parent)
    this.#context = trace.setSpan(parent, this.#span)
    this.#recordContent = recordContent
  }

  /**
   * Runs `work` (the call into the runtime) with this span active: what the runtime makes on its
   * way in, the engine's `acquire` span of the wait for a substrate, nests under it.
   */
  activeDuring<T>(work: () => T): T {
    return context.with(this.#context, work)
  }

  /** The span of the call at `index` of the run's call record, a child of this one whatever context is active. */
  toolCall(toolName: string, index: number | undefined): ToolCallTrace {
    // This span's id names the run: with the index, a call id unique in its trace.
    const callId =
      index === undefined || !this.#span.isRecording() ? undefined : `${this.#span.spanContext().spanId}.${index}`
    return new ToolCallTrace(this.#context, toolName, callId, this.#recordContent)
  }

  ended(result: CodeRunResult): void {
    if (this.#isEnded) return
    this.#isEnded = true
    const span = this.#span
    if (span.isRecording()) {
      const { logs } = result
      const shown = Math.min(logs.length, MAX_LOG_EVENTS)
      for (let index = 0; index < shown; index++) {
        const text = logs[index] as string
        span.addEvent(
          'log',
          this.#recordContent
            ? { 'code_runtime.log.chars': text.length, 'code_runtime.log.text': cut(text) }
            : { 'code_runtime.log.chars': text.length },
        )
      }
      span.setAttributes({ 'code_runtime.logs': logs.length, 'code_runtime.logs.not_recorded': logs.length - shown })
    }
    if (result.error === undefined) span.end()
    else endWithError(span, result.error.kind)
  }

  /** The run was stopped because the check refused the program, or the runtime threw. */
  failed(errorType: string): void {
    if (this.#isEnded) return
    this.#isEnded = true
    endWithError(this.#span, errorType)
  }
}

/** Facts about a run only known once it has run. */
export interface RunTraceEnd {
  readonly errorKind: string | undefined
  readonly usage: CodeRunResult['usage'] | undefined
  readonly calls: number
}

/** The `run_code` span of one run, and the context its children start under. */
export class RunTrace {
  readonly #span: Span
  readonly #recordContent: boolean
  readonly #backend: string | undefined
  readonly #startedAt = performance.now()
  readonly context: Context

  /** Starts under the context active now: the caller's. */
  constructor(
    code: string,
    facts: { backend: string | undefined; typeCheck: string },
    options: CodeModeTracingOptions,
  ) {
    const parent = context.active()
    this.#span = tracer.startSpan('run_code', {}, parent)
    this.context = trace.setSpan(parent, this.#span)
    this.#recordContent = options.recordContent === true
    this.#backend = facts.backend
    if (this.#span.isRecording()) {
      // The hash names a program across runs and traces without showing it.
      const attributes: Attributes = {
        'code_runtime.program.sha256': createHash('sha256').update(code).digest('hex'),
        'code_runtime.program.chars': code.length,
        'code_runtime.type_check': facts.typeCheck,
      }
      if (facts.backend !== undefined) attributes['code_runtime.backend'] = facts.backend
      if (this.#recordContent) attributes['code_runtime.program.text'] = cut(code)
      this.#span.setAttributes(attributes)
    }
  }

  /** Names the session the run ran in, once it is open. */
  inSession(sessionId: string): void {
    if (this.#span.isRecording()) this.#span.setAttribute('code_runtime.session.id', sessionId)
  }

  check(): CheckTrace {
    return new CheckTrace(this.context)
  }

  execute(): ExecuteTrace {
    return new ExecuteTrace(this.context, this.#recordContent)
  }

  end(facts: RunTraceEnd): void {
    const span = this.#span
    if (span.isRecording()) {
      const attributes: Attributes = { 'code_runtime.calls': facts.calls }
      const usage = facts.usage
      if (usage !== undefined) {
        attributes['code_runtime.usage.wall_ms'] = usage.wallMs
        attributes['code_runtime.usage.busy_ms'] = usage.busyMs
        attributes['code_runtime.usage.output_bytes'] = usage.outputBytes
        if (usage.endHeapBytes !== undefined) attributes['code_runtime.usage.end_heap_bytes'] = usage.endHeapBytes
        if (usage.runner !== undefined) attributes['code_runtime.runner'] = usage.runner
      }
      span.setAttributes(attributes)
    }
    if (facts.errorKind === undefined) span.end()
    else endWithError(span, facts.errorKind)
    recordRun(this.#backend, facts.errorKind, secondsSince(this.#startedAt))
  }

  /** The run threw (a closed session, a runtime that failed): a host-side error, not an outcome. */
  threw(error: unknown): void {
    const errorType = errorTypeOf(error)
    endWithError(this.#span, errorType)
    recordRun(this.#backend, errorType, secondsSince(this.#startedAt))
  }
}
