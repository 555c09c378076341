/**
 * The limits the host hands each worker at spawn (as `workerData`) and the worker enforces
 * itself. Decoded defensively: a worker started without them enforces nothing beyond the heap cap.
 */

/** Limits a worker enforces from inside. */
export interface WorkerLimits {
  /** Array-buffer memory the worker may hold, in bytes (`maxArrayBufferMb` × 2^20). */
  readonly maxArrayBufferBytes: number
}

const UNLIMITED: WorkerLimits = Object.freeze({ maxArrayBufferBytes: Number.POSITIVE_INFINITY })

/** Reads the limits from `workerData`. Never throws. */
export function readWorkerLimits(data: unknown): WorkerLimits {
  if (typeof data !== 'object' || data === null) return UNLIMITED
  const bytes = (data as { maxArrayBufferBytes?: unknown }).maxArrayBufferBytes
  if (typeof bytes !== 'number' || !(bytes > 0)) return UNLIMITED
  return Object.freeze({ maxArrayBufferBytes: bytes })
}
