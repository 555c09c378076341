/** Test support: a real worker-thread runtime, tracing off (nothing reaches the network), and the run_code text of a model request. */
import { setTracingDisabled, type AgentInputItem } from '@openai/agents'
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

setTracingDisabled(true)

export function startRuntime(): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, {})
}

/** The text of every tool output in a model request's input, in order. */
export function toolOutputTexts(input: string | AgentInputItem[]): string[] {
  if (typeof input === 'string') return []
  return input.flatMap((item) => {
    if (item.type !== 'function_call_result') return []
    const { output } = item
    if (typeof output === 'string') return [output]
    return !Array.isArray(output) && output.type === 'text' ? [output.text] : []
  })
}

/** A promise with its resolve function, for a test that waits on an event, not on time. */
export function createDeferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}
