/**
 * A session on a remote runner (CONTRACT section #sessions), from the caller's side: one runner's
 * slot held for the session's life, every run sent there, and the runner's word on why it ended
 * (expired, lost) kept as `endReason`. A runner that falls silent loses the session: later runs
 * resolve `worker-exit` naming it, as a local session whose substrate died.
 *
 * With the config's `adoptionKey` the session is adoptable (session-adoption.ts): it has an
 * `address` another caller of the deployment may adopt it by, and a memo kept on the runner for
 * that caller. Once adopted elsewhere, this side is `movedAway`: it ended here as `lost`.
 */
import { createInbox, type Subscription } from '@nats-io/transport-node'
import {
  CodeRuntimeError,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionEndReason,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { timerDelayMs, validateRunRequest } from '@code-runtime/core/internal'
import {
  decodeMemoKept,
  decodeSessionEnded,
  decodeSessionOpenReply,
  encodeMessage,
  PROTOCOL_VERSION,
  type SessionOpenReply,
} from './protocol.js'
import { randomId, type SealedChannel } from './message-seal.js'
import { claimRunner, runRemotely, type RemoteRunContext } from './remote-run.js'
import { adoptionProof, formatSessionAddress, MAX_MEMO_BYTES, proofDigest } from './session-adoption.js'
import { runReplySubject, sessionSubject } from './subjects.js'
import { requestWithinSilence, SilenceMonitor } from './silence-monitor.js'
import { activeTraceContext } from './trace-context.js'

/** A session another caller of the deployment can take over: what `openSession` and `adoptSession` give. */
export interface AdoptableSession extends CodeSession {
  /** The token `adoptSession` takes: names the runner, its key and the session; `undefined` when not adoptable. */
  readonly address: string | undefined
  /** True once another caller adopted the session: it ended here (`endReason` `lost`), and goes on there. */
  readonly movedAway: boolean
  /**
   * Keeps `memo` (at most 512 KiB of UTF-8) with the session on its runner, in place of the last
   * one, for whoever adopts it next; resolves once the runner has it.
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` past the bound;
   *   `CODE_RUNTIME_SESSION_CLOSED` when the session ended or moved, or the runner did not answer.
   */
  keepMemo(memo: string): Promise<void>
  /**
   * Lets the session go without ending it (a gateway node that stops, for another to go on): this
   * side stops beating and runs nothing more (as `movedAway`), and the runner keeps the session,
   * as for a caller that fell silent, until someone adopts it or it expires idle. Only an
   * adoptable session can be let go; another is disposed instead. Resolves once nothing of it is
   * in flight here.
   */
  release(): Promise<void>
}

/** Where a session is held, as its caller knows it. */
export interface SessionBinding {
  readonly runner: string
  /** The runner's public key. */
  readonly runnerKey: string
  /** The session's claim id on the runner, the conversation its channel was derived for. */
  readonly claim: string
  readonly reply: string
  readonly channel: SealedChannel
  /** The anchor of an adoptable session. */
  readonly anchor?: string
}

/** Opens a session on a runner with a free slot; rejects as `CodeRuntime.openSession` does. */
export async function openRemoteSession(
  context: RemoteRunContext,
  options: CodeSessionOptions | undefined,
): Promise<RemoteSession> {
  const { connection, config } = context
  const startedAt = performance.now()
  const trace = activeTraceContext()
  for (;;) {
    const claimed = await claimRunner(context, context.disposed, startedAt)
    if ('failure' in claimed) {
      throw new CodeRuntimeError(
        claimed.failure.kind === 'abort' ? 'CODE_RUNTIME_DISPOSED' : 'CODE_RUNTIME_SESSION_START_FAILED',
        claimed.failure.kind === 'abort'
          ? 'This code runtime was disposed; start a new one to run programs.'
          : claimed.failure.message,
      )
    }
    const reply = createInbox(context.inboxPrefix)
    const { adoptionKey } = config
    const anchor = adoptionKey === undefined ? undefined : randomId()
    const session = new RemoteSession(context, {
      runner: claimed.runner,
      runnerKey: claimed.key,
      claim: claimed.conversation,
      reply,
      channel: claimed.channel,
      ...(anchor === undefined ? {} : { anchor }),
    })
    let answer
    try {
      const sealed = claimed.channel.seal(
        'session-open',
        encodeMessage({
          v: PROTOCOL_VERSION,
          session: claimed.conversation,
          reply,
          budgets: { computeMs: config.computeMs, maxWallMs: config.maxWallMs, maxOutputBytes: config.maxOutputBytes },
          options: options ?? {},
          key: context.keys.publicKey,
          ticket: claimed.ticket,
          ...(trace === undefined ? {} : { trace }),
          // Only the proof's hash: the runner can check a proof, never make one.
          ...(anchor === undefined || adoptionKey === undefined
            ? {}
            : { adoption: { anchor, digest: proofDigest(adoptionProof(adoptionKey, anchor)) } }),
        }),
      )
      const opened = claimed.channel.open(
        'session-opened',
        (
          await connection.request(sessionSubject(config.subjectPrefix, claimed.runner, 'open'), sealed, {
            timeout: timerDelayMs(config.lostAfterMs + 10_000),
          })
        ).data,
      )
      answer = opened === undefined ? undefined : decodeSessionOpenReply(opened)
    } catch (error) {
      session.forget()
      throw new CodeRuntimeError(
        'CODE_RUNTIME_SESSION_START_FAILED',
        `The runner ${claimed.runner} did not open the session.`,
        { cause: error },
      )
    }
    if (answer?.ok === false && answer.retry === true) {
      // Nothing was opened (the runner filled up since its offer): claim again.
      session.forget()
      continue
    }
    return settleOpen(session, answer, claimed.runner)
  }
}

/** The session the runner opened, or the runner's refusal thrown as its `CodeRuntimeError`. */
function settleOpen(session: RemoteSession, answer: SessionOpenReply | undefined, runner: string): RemoteSession {
  if (answer?.ok !== true) {
    session.forget()
    const refusal = answer?.refusal
    throw new CodeRuntimeError(
      refusal?.code ?? 'CODE_RUNTIME_SESSION_START_FAILED',
      refusal?.message ?? `The runner ${runner} sent a malformed or forged answer.`,
      refusal?.field === undefined ? {} : { field: refusal.field },
    )
  }
  session.opened(answer.id)
  return session
}

export class RemoteSession implements AdoptableSession {
  id = ''
  readonly address: string | undefined
  private ended: CodeSessionEndReason | undefined
  private moved = false
  private readonly context: RemoteRunContext
  private readonly runner: string
  private readonly claim: string
  private readonly channel: SealedChannel
  private readonly traffic: Subscription
  private readonly heartbeat: ReturnType<typeof setInterval>
  private readonly runnerSilence: SilenceMonitor
  private readonly inFlight = new Set<Promise<CodeRunResult>>()
  private readonly closing = new AbortController()
  /** Told when the session is forgotten (disposed, moved away, or never opened): the runtime stops counting it. */
  onForget: (() => void) | undefined

  constructor(context: RemoteRunContext, binding: SessionBinding) {
    const { runner, claim, reply, channel } = binding
    this.context = context
    this.runner = runner
    this.claim = claim
    this.channel = channel
    this.address =
      binding.anchor === undefined
        ? undefined
        : formatSessionAddress({ runner, key: binding.runnerKey, anchor: binding.anchor })
    this.traffic = context.connection.subscribe(`${reply}.*`, {
      callback: (error, message) => {
        if (error !== null) return
        const kind =
          message.subject === runReplySubject(reply, 'ended')
            ? 'ended'
            : message.subject === runReplySubject(reply, 'beat')
              ? 'beat'
              : undefined
        const body = kind === undefined ? undefined : channel.open(kind, message.data)
        if (body === undefined) {
          if (kind === undefined) context.rejections.rejected++
          return
        }
        this.runnerSilence.heard()
        if (kind === 'ended') {
          const ended = decodeSessionEnded(body)
          if (ended?.reason === 'moved') this.movedToAnotherCaller()
          else if (ended !== undefined && this.ended === undefined) this.ended = ended.reason
        }
      },
    })
    const { config, connection } = context
    this.runnerSilence = new SilenceMonitor({
      lostAfterMs: config.lostAfterMs,
      heartbeatMs: config.heartbeatMs,
      onLost: () => {
        this.ended ??= 'lost'
      },
    })
    this.heartbeat = setInterval(() => {
      try {
        connection.publish(sessionSubject(config.subjectPrefix, runner, 'beat', claim), channel.seal('beat'))
      } catch {
        // Reconnecting: the runner's silence check is the one that counts.
      }
    }, config.heartbeatMs)
  }

  get endReason(): CodeSessionEndReason | undefined {
    return this.ended
  }

  get movedAway(): boolean {
    return this.moved
  }

  /** Called once the runner opened it: the fleet's id of the session, which its failures' `session` fact names. */
  opened(id: string): void {
    this.id = id
    this.runnerSilence.heard()
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.ended === 'disposed')
      throw new CodeRuntimeError('CODE_RUNTIME_SESSION_CLOSED', 'This session was disposed; open a new one.')
    const validated = validateRunRequest(request)
    if (this.moved || (this.ended === 'lost' && this.runnerSilence.isLost)) {
      // Its runner is gone, or serves another caller now: nobody is left to say so, so we do, as a
      // local session whose substrate died.
      return {
        logs: [],
        error: {
          kind: 'worker-exit',
          message: this.moved
            ? 'This session moved to another caller, which adopted it; it runs nothing here. Adopt it back by its address to run in it here.'
            : `This session is lost: its runner ${this.runner} stopped answering, and its variables are gone. Open a new session.`,
          session: { id: this.id, ended: 'lost' },
        },
        usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 0, runner: this.runner },
        calls: [],
      }
    }
    const signal = AbortSignal.any([this.closing.signal, ...(validated.signal === undefined ? [] : [validated.signal])])
    const running = runRemotely(
      { ...validated, signal },
      { ...this.context, disposed: AbortSignal.any([this.context.disposed, this.closing.signal]) },
      {
        runner: this.runner,
        session: this.claim,
        channel: this.channel,
        // An adoptable session whose runner did not take a run is lost to this caller: the next use
        // adopts it again (a runner that still holds it answers), so nothing is lost if it was only slow.
        ...(this.address === undefined ? {} : { onStartUnconfirmed: () => (this.ended ??= 'lost') }),
      },
    )
    this.inFlight.add(running)
    let result: CodeRunResult
    try {
      result = await running
    } finally {
      this.inFlight.delete(running)
    }
    // A run that lost the session because its runner went silent (nobody there to say so) says it itself.
    const ended = this.ended
    if (result.error === undefined || result.error.session !== undefined || (ended !== 'lost' && ended !== 'expired'))
      return result
    return { ...result, error: { ...result.error, session: { id: this.id, ended } } }
  }

  async keepMemo(memo: string): Promise<void> {
    if (typeof memo !== 'string' || Buffer.byteLength(memo, 'utf8') > MAX_MEMO_BYTES)
      throw new CodeRuntimeError(
        'CODE_RUNTIME_INVALID_REQUEST',
        `keepMemo: the memo must be a string of at most ${MAX_MEMO_BYTES} bytes of UTF-8 (512 KiB).`,
        { field: 'memo', rule: `at most ${MAX_MEMO_BYTES} bytes of UTF-8` },
      )
    const closed = (why: string, cause?: unknown): CodeRuntimeError =>
      new CodeRuntimeError('CODE_RUNTIME_SESSION_CLOSED', `The memo was not kept: ${why}.`, {
        ...(cause === undefined ? {} : { cause }),
      })
    if (this.address === undefined) throw closed('the session is not adoptable (no adoptionKey in the config)')
    if (this.moved) throw closed('the session moved to another caller')
    if (this.ended !== undefined) throw closed(`the session ended (${this.ended})`)
    const { connection, config } = this.context
    const sealed = this.channel.seal('memo', encodeMessage({ memo: Buffer.from(memo, 'utf8').toString('base64url') }))
    let answer
    try {
      answer = await requestWithinSilence(config, backstopMs =>
        connection.request(sessionSubject(config.subjectPrefix, this.runner, 'memo', this.claim), sealed, {
          timeout: backstopMs,
        }),
      )
    } catch (error) {
      throw closed(`its runner ${this.runner} did not answer`, error)
    }
    // An unsealed answer is the runner's word that it does not hold the session under this claim.
    const body = this.channel.peek('memo-kept', answer.data)
    if (body === undefined || decodeMemoKept(body) === undefined)
      throw closed(this.moved ? 'the session moved to another caller' : `its runner ${this.runner} does not hold it`)
  }

  async dispose(): Promise<void> {
    if (this.ended === 'disposed') return
    // Moved away: the session goes on with its adopter, which alone may close it.
    const wasMoved = this.moved
    this.ended = 'disposed'
    if (wasMoved) return
    const { connection, config } = this.context
    try {
      // The runner settles the session's runs (in flight as abort, queued refused) before it answers.
      await connection.request(
        sessionSubject(config.subjectPrefix, this.runner, 'close', this.claim),
        this.channel.seal('close'),
        { timeout: timerDelayMs(config.lostAfterMs + 10_000) },
      )
    } catch {
      // A runner that is gone holds nothing; one that is slow ends the session when our heartbeats stop.
      this.closing.abort()
    }
    await Promise.allSettled([...this.inFlight])
    this.forget()
  }

  async release(): Promise<void> {
    if (this.address === undefined) return this.dispose()
    if (this.ended !== undefined) {
      this.forget()
      return
    }
    // Runs in flight end first: a session is let go between runs, never in the middle of one.
    await Promise.allSettled([...this.inFlight])
    this.movedToAnotherCaller()
  }

  /** Another caller adopted the session: it ended here as lost; nothing more is sent or heard. */
  private movedToAnotherCaller(): void {
    if (this.moved) return
    this.moved = true
    if (this.ended === undefined) this.ended = 'lost'
    // A run started as the session moved finds it gone: it settles at once, naming why.
    this.closing.abort('This session moved to another caller, which adopted it.')
    this.forget()
  }

  /** Stops listening and beating. */
  forget(): void {
    clearInterval(this.heartbeat)
    this.runnerSilence.stop()
    this.traffic.unsubscribe()
    this.onForget?.()
    this.onForget = undefined
  }
}
