/**
 * Host functions the checks bind: they record every call, so a check can tell whether the
 * runtime called the host at all, and with exactly what.
 */
import type { CodeBindingFunction, CodeBindingNamespace, CodeJsonValue } from '../types.js'

/** A promise with its settle functions, for host functions a check resolves by hand. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(reason: unknown): void
}

/** Creates a {@link Deferred}. */
export function createDeferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((resolvePromise, rejectPromise) => {
    resolve = resolvePromise
    reject = rejectPromise
  })
  return { promise, resolve, reject }
}

/** A host function and the argument lists it was called with. */
export interface RecordedFunction {
  readonly fn: CodeBindingFunction
  /** Every call's full argument list, in call order. */
  readonly calls: unknown[][]
}

/**
 * Wraps `respond` in a host function that records its calls.
 * @param respond computes the resolution from the first argument; by default it echoes it.
 */
export function recordCalls(
  respond: (args: unknown) => Promise<CodeJsonValue> | CodeJsonValue = args => args as CodeJsonValue,
): RecordedFunction {
  const calls: unknown[][] = []
  const fn = async (...args: unknown[]): Promise<CodeJsonValue> => {
    calls.push(args)
    return await respond(args[0])
  }
  return { fn, calls }
}

/** The namespace `tools` with one recorded member `echo` that resolves its argument. */
export function echoTools(): { readonly namespace: CodeBindingNamespace; readonly echo: RecordedFunction } {
  const echo = recordCalls()
  return { namespace: { global: 'tools', functions: { echo: echo.fn } }, echo }
}

/**
 * A host function that aborts `controller` with `reason` `delayMs` after the program first calls
 * it, and resolves `null`. Letting the program say when it is running keeps abort checks free of
 * guesses about start-up time.
 */
export function abortWhenCalled(controller: AbortController, reason: unknown, delayMs: number): RecordedFunction {
  return recordCalls(() => {
    setTimeout(() => controller.abort(reason), delayMs)
    return null
  })
}
