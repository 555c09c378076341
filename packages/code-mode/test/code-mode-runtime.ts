/** Test support: a real worker-thread runtime for Code Mode tests. */
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime, type WorkerThreadConfigInput } from '@code-runtime/worker-thread'

export function startRuntime(
  config: WorkerThreadConfigInput = {},
): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, config)
}

/**
 * Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first,
 * including when it was aborted before the call (an `abort` listener added then never fires).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const rejectWithReason = (): void =>
      reject(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason)))
    if (signal?.aborted === true) {
      rejectWithReason()
      return
    }
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        rejectWithReason()
      },
      { once: true },
    )
  })
}

/** A promise with its settle functions, for a check that waits on an event, not on time. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
}

export function createDeferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(settle => {
    resolve = settle
  })
  return { promise, resolve }
}
