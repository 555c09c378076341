/**
 * What a run needs from the thing its program executes in (a worker thread, a child process):
 * send messages to the guest runtime, hear its messages and its death, measure its busy time,
 * and kill it. Backends differ only in how they implement this.
 */
import type { HostToGuestMessage } from '../protocol/messages.js'

/** How a substrate ended without being asked to. */
export type SubstrateExit =
  | { readonly kind: 'out-of-memory' }
  | { readonly kind: 'crashed'; readonly detail: string }
  | { readonly kind: 'exited'; readonly code: number | null }
  /** The substrate stopped itself for exceeding a budget it enforces; `message` names it. */
  | { readonly kind: 'over-budget'; readonly message: string }

/** The one listener a run attaches to its substrate. Calls to it never throw into the substrate. */
export interface SubstrateListener {
  message(raw: unknown): void
  exit(reason: SubstrateExit): void
}

/** A spawned substrate whose guest runtime said it is ready for one program. */
export interface Substrate {
  /** Sends one message to the guest. Never throws; a dead substrate drops it. */
  send(message: HostToGuestMessage): void
  /**
   * Least characters of a `call-part` when a large binding result may be streamed in parts, so
   * the guest parses while the host still checks; absent where every result must travel as one
   * message (a wire whose per-message size limit is the result's budget).
   */
  readonly resultPartChars?: number | undefined
  /** Routes the guest's messages and exit to `listener` (one run at a time). */
  attach(listener: SubstrateListener): void
  /** Starts measuring busy time from now. */
  resetBusyTime(): void
  /** Milliseconds the substrate was busy (not idle-waiting) since {@link resetBusyTime}. */
  busyMs(): number
  /** Kills the substrate at once, even inside a synchronous loop. Idempotent. */
  terminate(): void
  /**
   * Opt-in reuse: after a run that ended cleanly, asks the guest for a fresh context and
   * resolves once it is ready again (rejects if the substrate died). Absent where a substrate
   * cannot be reused.
   */
  recycle?(): Promise<void>
  /**
   * Lets the host process exit while the substrate waits between a session's runs;
   * {@link attach} holds it again. Absent where a waiting substrate holds nothing.
   */
  idle?(): void
  /** Resolves once the substrate has exited, however it ended. */
  readonly exited: Promise<void>
}

/** What one spawn may change from the factory's defaults. */
export interface SpawnOptions {
  /** Heap cap of this substrate (V8 old generation), in MiB, instead of the backend's; a whole-MiB substrate rounds it down. */
  readonly maxOldGenerationSizeMb?: number
  /**
   * True for a persistent session's substrate: it lives across many runs, so no limit of its
   * whole life may stand in for one run's budget (a child's CPU-time rlimit, say).
   */
  readonly persistent?: boolean
}

/** Spawns fresh substrates. */
export interface SubstrateFactory {
  /** Spawns one substrate; resolves when its guest is ready, rejects if it dies first. */
  spawn(options?: SpawnOptions): Promise<Substrate>
}
