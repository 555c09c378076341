/**
 * One abort signal per outgoing MCP request. The SDK (1.x) listens on the signal a request is
 * given and never stops listening: when that signal fires later, it sends
 * `notifications/cancelled` for a request that was answered long ago. The signals we hold are a
 * run's, and every run's signal fires when the run ends, so each answered approval question and
 * each finished upstream call would be "cancelled" after the fact (clients report each as an
 * error). A request therefore gets a signal of its own, which follows the caller's only until the
 * request settles.
 */

/**
 * Sends a request with a signal of its own: aborted when `signal` fires while the request is
 * pending, never after it has settled.
 * @example
 * await withRequestSignal(runSignal, (signal) => client.callTool(params, undefined, { signal }))
 */
export async function withRequestSignal<T>(signal: AbortSignal, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController()
  const forward = (): void => own.abort(signal.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  try {
    return await send(own.signal)
  } finally {
    signal.removeEventListener('abort', forward)
  }
}
