/**
 * One call a program makes, run through the AI SDK tool's own `execute` with the options the SDK
 * would give it, built from the run_code call that ran the program: a tool call id of its own,
 * the conversation's messages, the run's abort signal, the tool's context and the sandbox.
 */
import type { ModelMessage, ToolExecutionOptions } from 'ai'
import type { SdkToolEntry } from './read-tool-set.js'
import { checkToolContext } from './tool-schema.js'

/** What the run_code call passes on to every call of its program. */
export interface RunCallSource {
  /** The run_code call's id; each inner call's id is derived from it. */
  readonly toolCallId: string
  readonly messages: ModelMessage[]
  /** run_code's context: each tool's context under the tool's name, as `toolsContext` holds it. */
  readonly context: unknown
  readonly sandbox: ToolExecutionOptions<unknown>['experimental_sandbox']
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  )
}

/** The calls of one run: numbers them, so each inner call has its own id. */
export class RunCalls {
  readonly #source: RunCallSource
  #count = 0

  constructor(source: RunCallSource) {
    this.#source = source
  }

  /**
   * Runs one call of the program: the tool's context checked against its `contextSchema`, then its
   * execute. A streaming execute (an async iterable of preliminary results) resolves with its last
   * value, the one the SDK would record as the tool's result.
   * @throws what the tool throws, so the program catches it as the call's error.
   */
  /** What a tool's `needsApproval` function is given for a call of this run (before the call has its own id). */
  approvalOptions(name: string): { toolCallId: string; messages: ModelMessage[]; context: unknown } {
    return {
      toolCallId: `${this.#source.toolCallId}:${name}:approval`,
      messages: this.#source.messages,
      context: this.#contextOf(name),
    }
  }

  /** The tool's own entry of run_code's context (its context as `toolsContext` would hold it). */
  #contextOf(name: string): unknown {
    const { context } = this.#source
    return typeof context === 'object' && context !== null && Object.hasOwn(context, name)
      ? (context as Readonly<Record<string, unknown>>)[name]
      : undefined
  }

  async call(entry: SdkToolEntry, input: unknown, signal: AbortSignal): Promise<unknown> {
    this.#count += 1
    const { toolCallId, messages, sandbox } = this.#source
    const ownContext = this.#contextOf(entry.name)
    const options: ToolExecutionOptions<unknown> = {
      toolCallId: `${toolCallId}:${entry.name}:${this.#count}`,
      messages,
      abortSignal: signal,
      context: await checkToolContext(entry.name, entry.contextSchema, ownContext),
      ...(sandbox === undefined ? {} : { experimental_sandbox: sandbox }),
    }
    const result = entry.execute(input, options)
    if (!isAsyncIterable(result)) return await result
    let last: unknown
    for await (const output of result) last = output
    return last
  }
}
