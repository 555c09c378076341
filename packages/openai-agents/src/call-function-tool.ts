/**
 * One call of a program to an Agents SDK function tool, through the tool's own `invoke` (its
 * argument parser, its execute, its output check and timeout), turned into what a program
 * needs: the tool's value, or a rejection carrying the tool's message.
 *
 * `invoke` does not reject when the tool fails: by default `tool()` gives every tool an error
 * function that turns the failure (an execute that threw, arguments its parser refused) into a
 * model-facing string, returned like a result. The one thing `invoke` does on that path and
 * never on success is record the failure on the current trace span (`setError`). So each call
 * runs with a span of its own as the current span, a copy of the `run_code` call's span (nested
 * spans keep their parent), and an error recorded on that copy marks the call as failed: the
 * program then catches the error function's text as the call's error, never a result.
 */
import {
  ModelBehaviorError,
  MultiTracingProcessor,
  NoopSpan,
  NoopTrace,
  withTraceContext,
  type RunContext,
  type TraceContextSnapshot,
} from '@openai/agents'
import type { AnyFunctionTool } from './read-agents-tools.js'

/** What a call needs from the `run_code` call that runs its program. */
export interface FunctionToolCallContext<TContext> {
  /** The run context the Runner gave `run_code`, passed on to the tool as the Runner would. */
  readonly runContext: RunContext<TContext>
  /** The trace context `run_code` ran in (its function span), captured where the Runner called it. */
  readonly trace: TraceContextSnapshot | null
}

/** The span a call runs under: a copy of `run_code`'s, or a recording one when there is none. */
function probeSpanOf(toolName: string, trace: TraceContextSnapshot | null): NonNullable<TraceContextSnapshot['span']> {
  // A copy records errors even of a no-op span (the copy is a plain Span), and shares its ids.
  const span =
    trace?.span ??
    new NoopSpan({ type: 'function', name: toolName, input: '', output: '' }, new MultiTracingProcessor())
  return span.clone()
}

/** The first problem of a validation error that has Standard Schema-like issues (Zod's do). */
function firstIssue(error: unknown): string | undefined {
  const issues = typeof error === 'object' && error !== null ? (error as { issues?: unknown }).issues : undefined
  if (!Array.isArray(issues) || issues.length === 0) return undefined
  const [issue] = issues as { path?: unknown; message?: unknown }[]
  if (typeof issue?.message !== 'string') return undefined
  const path = Array.isArray(issue.path)
    ? issue.path.map(key => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')
    : ''
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : ''
  return `args${path}: ${issue.message}${more}`
}

/** A rejection of `invoke` as the program's error: the tool's message, its validator's first problem. */
function rejectionOf(error: unknown): Error {
  // The SDK's InvalidToolInputError (not exported on its own) keeps the parser's error only
  // where sensitive tool data may be logged (setSensitiveDataLoggingEnabled, OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0).
  if (error instanceof ModelBehaviorError && 'originalError' in error) {
    const problem = firstIssue(error.originalError)
    return new Error(
      problem === undefined
        ? "the tool's validator refused the arguments; check them against the tool's declaration"
        : `the tool's validator refused the arguments: ${problem}`,
    )
  }
  if (error instanceof Error) return error
  return new Error(String(error))
}

/** The text of an error function's fallback: a string as it is, any other value as JSON. */
function fallbackText(output: unknown): string {
  if (typeof output === 'string') return output
  return JSON.stringify(output) ?? String(output)
}

/**
 * Calls `tool` with arguments already checked against its parameters.
 * Resolves with what the tool returned; rejects with the tool's message when it failed, when
 * its error function answered for it, or when it needs approval for these arguments.
 */
export async function callFunctionTool<TContext>(
  tool: AnyFunctionTool<TContext>,
  args: unknown,
  context: FunctionToolCallContext<TContext>,
  signal: AbortSignal,
): Promise<unknown> {
  // Only tools whose approval answered "never" are in the SDK; a policy that changed its mind
  // since must not run the tool without the approval it now asks for.
  if (await tool.needsApproval(context.runContext, args, undefined)) {
    throw new Error(
      "this tool now needs a person's approval, which a program cannot ask for; ask the user, or call it directly",
    )
  }
  const probe = probeSpanOf(tool.name, context.trace)
  const before = probe.error
  let output: unknown
  try {
    output = await withTraceContext({ trace: context.trace?.trace ?? new NoopTrace(), span: probe }, () =>
      tool.invoke(context.runContext, JSON.stringify(args), { signal }),
    )
  } catch (error) {
    throw rejectionOf(error)
  }
  if (probe.error !== before) throw new Error(fallbackText(output))
  return output
}
