/**
 * Persistent sessions (CONTRACT section #sessions): a REPL-style kernel that keeps a program's
 * top-level declarations from one run to the next, for one caller, in a substrate of its own.
 * This module is the vocabulary; each backend implements it behind `CodeRuntime.openSession`.
 */
import type { CodeRunRequest, CodeRunResult } from './types.js'

/** The most top-level names a session keeps when its options do not say (`maxKeptNames`). */
export const DEFAULT_MAX_KEPT_NAMES = 1_000

/**
 * What `openSession` takes. Every field is optional; the backend's config gives the defaults
 * (`sessionIdleMs`, and the run budgets every run of the session is held to).
 */
export interface CodeSessionOptions {
  /**
   * End the session after this many milliseconds without a run in flight. A later `run()`
   * resolves with a `worker-exit` failure that says the session expired.
   */
  readonly idleMs?: number
  /**
   * The heap the session's state may hold, in bytes: the cap of its substrate's V8 old generation,
   * at most the backend's `maxOldGenerationSizeMb`. Past it the session ends (`worker-exit`,
   * naming the budget); the host and other sessions are unaffected.
   */
  readonly maxHeapBytes?: number
  /** Busy-time budget of each run of the session, in milliseconds (default: the backend's `computeMs`). */
  readonly computeMs?: number
  /** Wall-clock ceiling of each run of the session, in milliseconds (default: the backend's `maxWallMs`). */
  readonly maxWallMs?: number
  /**
   * The most top-level names the session keeps (default 1 000). A run that would keep more new
   * names than are left is refused as a whole (`exception`, naming the limit): it keeps nothing.
   * Declaring a kept name again costs nothing; a reset (a new session) starts from none.
   */
  readonly maxKeptNames?: number
}

/** Why a session no longer runs programs. */
export type CodeSessionEndReason =
  /** The caller called `dispose()`, or the runtime was disposed. */
  | 'disposed'
  /** No run came within `idleMs`. */
  | 'expired'
  /** Its substrate died or had to be stopped: out of memory, a crash, a budget hit while computing. */
  | 'lost'

/**
 * One open session. Runs take the same request and give the same result as `CodeRuntime.run`,
 * one at a time: a run called while another is in flight starts when that one settles.
 */
export interface CodeSession {
  /** Opaque, unique within the process; named in the failure of a run on a lost session. */
  readonly id: string
  /** `undefined` while the session takes runs; afterwards, why it stopped. */
  readonly endReason: CodeSessionEndReason | undefined
  /**
   * Runs one program in the session's context. Resolves for every program outcome; on a session
   * that expired or was lost it resolves with a `worker-exit` failure whose `session` fact names it.
   * @throws {CodeRuntimeError} (as a rejection) `CODE_RUNTIME_SESSION_CLOSED` after `dispose()`,
   *   and the same misuse codes as `CodeRuntime.run`.
   */
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /**
   * Ends the session: a run in flight settles as `abort`, queued runs reject with
   * `CODE_RUNTIME_SESSION_CLOSED`, and the promise resolves once the substrate has exited.
   * Idempotent.
   */
  dispose(): Promise<void>
}
