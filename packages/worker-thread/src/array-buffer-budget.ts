/**
 * The array-buffer budget (`maxArrayBufferMb`): memory outside the V8 heap that one worker may
 * hold. Shared by both sides: the guest measures and stops itself, the host names the budget.
 */
import v8 from 'node:v8'

/**
 * The exit code a worker uses to say it stopped itself for holding more array-buffer memory than
 * its budget. Node's own exit codes stay below 14; the program cannot reach `process`.
 */
export const ARRAY_BUFFER_EXIT_CODE = 86

/** The failure message of a run stopped by the budget: names the field and its value. */
export function arrayBufferBudgetMessage(maxArrayBufferMb: number): string {
  return `The program held more than ${maxArrayBufferMb} MiB of ArrayBuffer and typed-array memory (maxArrayBufferMb) and was stopped. Hold fewer or smaller buffers at once.`
}

/**
 * Bytes this thread's isolate holds outside its heap: array buffers, plus a few MiB of Node's
 * own. Per isolate, so per worker (`process.memoryUsage().arrayBuffers` is too, on Node 20, but
 * costs ~20 µs against ~0.5 µs here). It includes buffers the program dropped that V8 has not
 * collected yet; see {@link collectGarbage}.
 */
export function externalMemoryBytes(): number {
  const external = v8.getHeapStatistics().external_memory as number | undefined
  return typeof external === 'number' ? external : process.memoryUsage().arrayBuffers
}

/** Any class: `queryObjects` needs a constructor to count; only its full collection matters here. */
class CollectionProbe {}

/**
 * Runs a full garbage collection, so that buffers the program already dropped stop counting.
 * `v8.queryObjects` (Node 20.13+, experimental) is the one public API that collects on demand;
 * it costs a few hundred milliseconds, so it runs only when a measurement is over the budget.
 * Returns false where it is unavailable.
 */
export function collectGarbage(): boolean {
  const queryObjects = (v8 as { queryObjects?: (constructor: unknown, options: { format: 'count' }) => unknown })
    .queryObjects
  if (typeof queryObjects !== 'function') return false
  try {
    queryObjects(CollectionProbe, { format: 'count' })
    return true
  } catch {
    return false
  }
}
