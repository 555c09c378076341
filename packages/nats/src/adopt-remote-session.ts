/**
 * Taking over an adoptable session from another caller of the deployment (a gateway node that
 * died, or that holds it while the next call landed here): one `session-adopt` request to the
 * runner the address names, as a new conversation of this caller's own, carrying the proof
 * (session-adoption.ts). On success the runner rebinds the session to that conversation, tells
 * its former holder it moved, and answers with the session's id and the memo kept with it.
 */
import { createInbox } from '@nats-io/transport-node'
import { CodeRuntimeError } from '@code-runtime/core'
import { timerDelayMs } from '@code-runtime/core/internal'
import { randomId, SealedChannel } from './message-seal.js'
import { decodeSessionAdoptReply, encodeMessage, PROTOCOL_VERSION, type SessionAdoptReply } from './protocol.js'
import { sleep, type RemoteRunContext } from './remote-run.js'
import { RemoteSession } from './remote-session.js'
import { adoptionProof, maskProof, parseSessionAddress } from './session-adoption.js'
import { sessionSubject } from './subjects.js'

/** How long past `lostAfterMs` an adopter waits for the runner's answer. */
const ADOPT_ANSWER_GRACE_MS = 5_000
/** Waits between tries while the session runs a program: short at first, then steady. */
const BUSY_BACKOFF_MS = [50, 100, 200, 250] as const

/** An adopted session and the memo its last holder kept with it. */
export interface AdoptedSession {
  readonly session: RemoteSession
  readonly memo: string | undefined
}

/**
 * Adopts the session at `address`, waiting (up to four times `lostAfterMs`) while it runs a program.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` for a malformed address;
 *   `CODE_RUNTIME_SESSION_CLOSED` ("session lost") when its runner does not hold it for this
 *   caller or does not answer; `CODE_RUNTIME_SESSION_START_FAILED` when it stayed busy.
 */
export async function adoptRemoteSession(
  context: RemoteRunContext,
  adoptionKey: Uint8Array,
  address: string,
): Promise<AdoptedSession> {
  const { runner, key: runnerKey, anchor } = parseSessionAddress(address)
  const { config, connection } = context
  const lost = (why: string, cause?: unknown): CodeRuntimeError =>
    new CodeRuntimeError(
      'CODE_RUNTIME_SESSION_CLOSED',
      `Adoption failed, session lost: its runner ${runner} ${why}. Open a new session.`,
      cause === undefined ? {} : { cause },
    )
  const proof = adoptionProof(adoptionKey, anchor)
  const busyUntil = performance.now() + config.lostAfterMs * 4
  for (let attempt = 0; ; attempt++) {
    if (context.disposed.aborted)
      throw new CodeRuntimeError(
        'CODE_RUNTIME_DISPOSED',
        'This code runtime was disposed; start a new one to run programs.',
      )
    // Each try is a conversation of its own: a fresh claim id, key and reply subject.
    const claim = randomId()
    const secret = context.keys.conversationKey(runnerKey, claim)
    if (secret === undefined) throw lost('named in the address has no usable public key')
    const channel = new SealedChannel(secret, 'caller', context.rejections)
    const reply = createInbox(context.inboxPrefix)
    // Listening before the request: the runner's first beat may come before its answer.
    const session = new RemoteSession(context, { runner, runnerKey, claim, reply, channel, anchor })
    let answer: SessionAdoptReply | undefined
    try {
      const sealed = channel.seal(
        'session-adopt',
        encodeMessage({
          v: PROTOCOL_VERSION,
          session: claim,
          reply,
          key: context.keys.publicKey,
          anchor,
          proof: maskProof(proof, secret).toString('base64url'),
        }),
      )
      const answered = await connection.request(sessionSubject(config.subjectPrefix, runner, 'adopt'), sealed, {
        timeout: timerDelayMs(config.lostAfterMs + ADOPT_ANSWER_GRACE_MS),
      })
      const body = channel.open('session-adopted', answered.data)
      answer = body === undefined ? undefined : decodeSessionAdoptReply(body)
    } catch (error) {
      session.forget()
      // No responders (the runner is gone) or no answer in time.
      throw lost('did not answer (it stopped, or is unreachable)', error)
    }
    if (answer?.ok === true) {
      session.opened(answer.id)
      return {
        session,
        memo: answer.memo === undefined ? undefined : Buffer.from(answer.memo, 'base64url').toString('utf8'),
      }
    }
    session.forget()
    if (answer?.reason !== 'busy') throw lost('does not hold it for this caller (it ended, or the runner stopped)')
    if (performance.now() >= busyUntil)
      throw new CodeRuntimeError(
        'CODE_RUNTIME_SESSION_START_FAILED',
        `The session is busy: a program has been running in it for over ${config.lostAfterMs * 4} ms (four times lostAfterMs); adopt it once that run ended.`,
      )
    await sleep(BUSY_BACKOFF_MS[Math.min(attempt, BUSY_BACKOFF_MS.length - 1)] as number, context.disposed)
  }
}
