/**
 * The `requestState` of a paused run's round: what the client echoes back to resume it. It passes
 * through the client, so it is signed (HMAC-SHA256, the SDK's codec) with a key every node that
 * may receive the retry holds, and says only which run, which round, until when and for whom (a
 * keyed tag of the principal, never the name). A state is refused when its signature is wrong
 * (`forged`: altered, or signed with another key), it is past its run's budget (`expired`), it
 * names another principal's run (`other-principal`), its round was claimed already (`replayed`),
 * or its run is not here (`unknown-run`). The SDK answers every refusal with the same wire error;
 * the reason goes to the server's audit log.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server'
import type { ClaimRefusal } from './paused-runs.js'

/** Shortest key accepted, in bytes: the codec's own floor (256 bits). */
export const MIN_STATE_KEY_BYTES = 32

/** What a state carries (signed, readable by the client: nothing secret). */
interface StatePayload {
  /** The run's id. */
  readonly r: string
  /** The round. */
  readonly n: number
  /** Until when it may be claimed, epoch milliseconds. */
  readonly u: number
  /** A keyed tag of the principal it was given to. */
  readonly p: string
  /** The gateway node that holds the run, in a deployment of several (absent on a single node). */
  readonly o?: string
}

/** A state that passed its checks: the round of which run it claims. */
export interface ResumedRound {
  readonly runId: string
  readonly round: number
  /** The gateway node that holds the run, when the state names one. */
  readonly node?: string
}

/** Why a state was refused. */
export type StateRefusal = 'forged' | ClaimRefusal

/** Thrown for a refused state; the SDK turns any throw into its fixed `Invalid or expired requestState`. */
export class RefusedRequestState extends Error {
  readonly reason: StateRefusal
  constructor(reason: StateRefusal) {
    super(`requestState refused: ${reason}`)
    this.reason = reason
  }
}

/** Signs and reads the states of one deployment (one key). */
export class RequestStates {
  readonly #key: Uint8Array
  readonly #codec: RequestStateCodec<StatePayload>

  /**
   * @param key shared by every node that may receive a retry; at least 32 bytes.
   * @param maxValidMs the longest a state may be valid (the runs' wall ceiling plus a margin).
   */
  constructor(key: Uint8Array, maxValidMs: number) {
    if (key.byteLength < MIN_STATE_KEY_BYTES) {
      throw new RangeError(`A state key must be at least ${MIN_STATE_KEY_BYTES} bytes; got ${key.byteLength}.`)
    }
    this.#key = key
    this.#codec = createRequestStateCodec<StatePayload>({ key, ttlSeconds: Math.ceil(maxValidMs / 1000) + 1 })
  }

  /** A random key, for a server whose runs only it resumes. */
  static randomKey(): Uint8Array {
    return new Uint8Array(randomBytes(MIN_STATE_KEY_BYTES))
  }

  #principalTag(principal: string): string {
    return createHmac('sha256', this.#key)
      .update(`code-runtime.principal:${principal}`)
      .digest('base64url')
      .slice(0, 22)
  }

  /** The state of round `round` of run `runId`, held by gateway node `node` (when several), for `principal`, valid until `until` (epoch ms). */
  mint(runId: string, round: number, principal: string, until: number, node?: string): Promise<string> {
    return this.#codec.mint({
      r: runId,
      n: round,
      u: until,
      p: this.#principalTag(principal),
      ...(node === undefined ? {} : { o: node }),
    })
  }

  /**
   * Reads a state echoed by `principal`'s retry.
   * @throws {RefusedRequestState} `forged`, `expired` or `other-principal`; the claim itself (replays,
   *   runs not here) is the caller's.
   */
  async read(state: string, principal: string): Promise<ResumedRound> {
    let payload: StatePayload
    try {
      // The codec needs no context: the principal is bound by the tag inside.
      payload = await this.#codec.verify(state, undefined as never)
    } catch (error) {
      throw new RefusedRequestState(error instanceof Error && error.message === 'expired' ? 'expired' : 'forged')
    }
    if (
      typeof payload !== 'object' ||
      payload === null ||
      typeof payload.r !== 'string' ||
      !Number.isSafeInteger(payload.n) ||
      typeof payload.u !== 'number' ||
      typeof payload.p !== 'string' ||
      (payload.o !== undefined && typeof payload.o !== 'string')
    ) {
      throw new RefusedRequestState('forged')
    }
    if (payload.p !== this.#principalTag(principal)) throw new RefusedRequestState('other-principal')
    if (Date.now() > payload.u) throw new RefusedRequestState('expired')
    return { runId: payload.r, round: payload.n, ...(payload.o === undefined ? {} : { node: payload.o }) }
  }
}
