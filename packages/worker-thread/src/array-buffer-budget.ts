/**
 * The array-buffer budget (`maxArrayBufferMb`): memory outside the V8 heap that one worker may
 * hold. Shared by both sides: the guest measures and stops itself, the host names the budget.
 */
import { getHeapStatistics } from 'node:v8'

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
 * collected yet; V8 collects them once they add up to about 64 MiB.
 */
export function externalMemoryBytes(): number {
  const external = getHeapStatistics().external_memory as number | undefined
  return typeof external === 'number' ? external : process.memoryUsage().arrayBuffers
}
