/**
 * Test support, imported first by every test file: LangSmith tracing off (LangChain traces to
 * LangSmith when these are set, and these tests run offline), and a real worker-thread runtime.
 */
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

export const NO_TRACING_ENV = {
  LANGSMITH_TRACING: 'false',
  LANGCHAIN_TRACING_V2: 'false',
  LANGCHAIN_TRACING: 'false',
} as const
Object.assign(process.env, NO_TRACING_ENV)

export function startRuntime(): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, {})
}

/** A promise with its resolve function, for a check that waits on an event, not on time. */
export function createDeferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(settle => {
    resolve = settle
  })
  return { promise, resolve }
}
