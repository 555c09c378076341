/**
 * A runner: takes runs from NATS while it has a free slot and runs each on a local backend
 * (worker-thread, process or container), its binding calls sent back to the caller that owns the
 * functions. Claims are a request to a queue group the runner joins only while it has capacity;
 * a claim's answer is an offer (the runner's public key and a ticket) and holds nothing, so a
 * caller that claims and never starts costs nothing. A start takes a slot only with a valid ticket
 * for the caller's inbox, within `maxRunsPerCaller` for that caller. Every later message of the
 * run is sealed with the run's key (message-seal.ts); one that is not is dropped and counted.
 * A caller that falls silent for `lostAfterMs` has its run aborted; on drain the runner takes no
 * new runs, lets the running ones finish for `graceMs`, then aborts the rest.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node'
import { context } from '@opentelemetry/api'
import type { CodeRunRequest, CodeRunResult, CodeSession } from '@code-runtime/core'
import { CodeRuntimeError } from '@code-runtime/core'
import {
  readConfigObject,
  readIntegerField,
  refuseConfigField,
  thrownMessage,
  type ConfigRecord,
} from '@code-runtime/core/internal'
import { BackendPool, type LentBackend, type StartLocalBackend } from './backend-pool.js'
import {
  CONNECTION_FIELDS,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LOST_AFTER_MS,
  readConnectionFields,
  type NatsConnectionConfig,
} from './config.js'
import { SilenceMonitor } from './silence-monitor.js'
import { contextOf } from './trace-context.js'
import { connectNats } from './connection.js'
import {
  callerIdentity,
  ClaimTickets,
  deriveKey,
  KeyAgreement,
  randomId,
  SealedChannel,
  unsealedBody,
  type RejectionCounter,
} from './message-seal.js'
import {
  decodeAbortMessage,
  decodeClaimRequest,
  decodeMemoMessage,
  decodeSessionAdoptRequest,
  decodeSessionOpenRequest,
  decodeStartRequest,
  encodeEndMessage,
  encodeMessage,
  type StartRequest,
} from './protocol.js'
import { RemoteCalls } from './remote-calls.js'
import { decodeMaskedProof, isProofOf, maskProof } from './session-adoption.js'
import { RunnerSlots, type Slot } from './runner-slots.js'
import {
  claimSubject,
  loadSubject,
  runControlSubject,
  runnerQueue,
  runReplySubject,
  sessionSubject,
  startSubject,
  SUBJECT_TOKEN_PATTERN,
} from './subjects.js'

export type { StartLocalBackend } from './backend-pool.js'

/** Options of {@link startRunner}. */
export interface RunnerOptions {
  /** How to reach NATS (the same fields as the caller's config: servers, credentials, TLS, subjectPrefix, inboxPrefix). */
  readonly nats: Partial<Omit<NatsConnectionConfig, 'servers'>> & { readonly servers: string | readonly string[] }
  /** Starts the local backend; called once per distinct set of budgets callers use, at most `maxBackends` alive at once. */
  readonly startBackend: StartLocalBackend
  /** Runs at once; default 4. */
  readonly concurrency?: number
  /** Runs and sessions one caller identity (its inbox prefix's first two tokens) may hold at once; default half of `concurrency`, at least 1. */
  readonly maxRunsPerCaller?: number
  /** Backends (one per distinct budgets) alive at once; default 4. */
  readonly maxBackends?: number
  /** This runner's id in subjects and results; default a fresh random token. */
  readonly id?: string
  /** How long a claim's ticket stays good for its start, in milliseconds (between one and two times this); default 1 000. */
  readonly claimHoldMs?: number
  readonly heartbeatMs?: number
  readonly lostAfterMs?: number
}

/** What a runner is doing now. */
export interface RunnerLoad {
  readonly runner: string
  /** Runs and sessions running. */
  readonly active: number
  readonly concurrency: number
  readonly draining: boolean
  /** Messages dropped because their seal, ticket or sequence did not verify: forged or replayed. */
  readonly rejectedMessages: number
  /** Local backends alive. */
  readonly backends: number
}

/** A started runner. */
export interface Runner {
  readonly id: string
  load(): RunnerLoad
  /** Stops taking runs, lets running ones finish for `graceMs`, aborts the rest, then disconnects. */
  drain(graceMs: number): Promise<void>
}

/**
 * A session this runner holds for a caller. An adoptable one may be rebound to another caller's
 * conversation (its claim id, channel, reply subject and silence watch change; its slot does not).
 */
interface HeldSession {
  readonly local: CodeSession
  readonly backend: LentBackend
  channel: SealedChannel
  /** Its id across the fleet, in its failures' `session` fact in place of the backend's own. */
  readonly globalId: string
  /** The claim id its caller names it by now. */
  claim: string
  /** The claim it was opened under, which names its slot for good. */
  readonly slot: string
  readonly identity: string
  reply: string
  callerSilence: SilenceMonitor
  lastBeatSent: number
  readonly runs: Set<Promise<void>>
  notified: boolean
  closing: boolean
  readonly watcher: ReturnType<typeof setInterval>
  readonly adoption?: {
    readonly anchor: string
    readonly digest: string
    memo?: string
    /** Every claim id an adopter used for it, so a replayed adoption is refused. */
    readonly claims: Set<string>
  }
}

/** Claim ids of sessions adopted away whose former holder's beats are ignored, not counted as forged. */
const MOVED_CLAIMS_KEPT = 1_024

/** How often a held session is looked at: its end reason, and whether it is time for a beat. */
const SESSION_WATCH_MS = 25

interface RunnerNumbers {
  readonly concurrency: number
  readonly maxRunsPerCaller: number
  readonly maxBackends: number
  readonly claimHoldMs: number
  readonly heartbeatMs: number
  readonly lostAfterMs: number
}

function readRunnerNumbers(options: RunnerOptions): RunnerNumbers {
  const record = options as unknown as ConfigRecord
  const label = 'runner'
  const concurrency = readIntegerField(label, record, 'concurrency', { default: 4, min: 1, max: 4096 })
  return {
    concurrency,
    maxRunsPerCaller: readIntegerField(label, record, 'maxRunsPerCaller', {
      default: Math.max(1, Math.ceil(concurrency / 2)),
      min: 1,
      max: 4096,
    }),
    maxBackends: readIntegerField(label, record, 'maxBackends', { default: 4, min: 1, max: 256 }),
    claimHoldMs: readIntegerField(label, record, 'claimHoldMs', { default: 1_000, min: 10, max: 600_000 }),
    heartbeatMs: readIntegerField(label, record, 'heartbeatMs', {
      default: DEFAULT_HEARTBEAT_MS,
      min: 10,
      max: 60_000,
    }),
    lostAfterMs: readIntegerField(label, record, 'lostAfterMs', {
      default: DEFAULT_LOST_AFTER_MS,
      min: 20,
      max: 600_000,
    }),
  }
}

/**
 * Connects to NATS and starts taking runs.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` for bad options; `CODE_RUNTIME_UNAVAILABLE`
 *   when NATS cannot be reached.
 */
export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const connectionConfig = readConnectionFields(
    'runner.nats',
    readConfigObject('runner.nats', options.nats, CONNECTION_FIELDS),
  )
  const { concurrency, maxRunsPerCaller, maxBackends, claimHoldMs, heartbeatMs, lostAfterMs } =
    readRunnerNumbers(options)
  const id = options.id ?? randomId()
  if (!SUBJECT_TOKEN_PATTERN.test(id))
    refuseConfigField('runner', 'id', 'must be one subject token: letters, digits, - and _', id)
  if (typeof options.startBackend !== 'function')
    refuseConfigField(
      'runner',
      'startBackend',
      'must be a function (budgets) => a started runtime',
      options.startBackend,
    )
  const prefix = connectionConfig.subjectPrefix
  const connection: NatsConnection = await connectNats(connectionConfig, `code-runtime runner ${id}`)
  const inboxPrefix = connectionConfig.inboxPrefix

  const keys = new KeyAgreement()
  const tickets = new ClaimTickets(claimHoldMs)
  const rejections: RejectionCounter = { rejected: 0 }
  const backends = new BackendPool(options.startBackend, maxBackends)
  const slots = new RunnerSlots({
    concurrency,
    maxRunsPerCaller,
    rememberStartsMs: 2 * claimHoldMs,
    onFull: () => stopListening(),
    onFree: () => listenForClaims(),
  })
  let claims: Subscription | undefined

  // In the claim queue group only while a slot is free: NATS then never offers this runner a run it cannot take.
  function listenForClaims(): void {
    if (claims !== undefined || slots.isFull) return
    claims = connection.subscribe(claimSubject(prefix), {
      queue: runnerQueue(prefix),
      callback: (error, message) => {
        if (error === null) onClaim(message)
      },
    })
  }
  function stopListening(): void {
    claims?.unsubscribe()
    claims = undefined
  }
  const release = (conversation: string): void => slots.release(conversation)

  function onClaim(message: Msg): void {
    const claim = decodeClaimRequest(message.data)
    if (claim === undefined || message.reply === undefined) return
    if (slots.isFullFor(callerIdentity(message.reply))) {
      message.respond(encodeMessage({ ok: false, reason: 'busy' }))
      return
    }
    // The ticket goes to the claim's inbox: only a caller that can read that inbox can start with it.
    message.respond(
      encodeMessage({
        ok: true,
        runner: id,
        key: keys.publicKey,
        ticket: tickets.issue(claim.run, callerIdentity(message.reply)),
      }),
    )
  }

  /**
   * The channel of a conversation its caller opens (a one-shot run, a session), once its first
   * message verifies and is not a replay; a slot taken for it, or the refusal sent back sealed.
   */
  function admit(
    message: Msg,
    kind: 'start' | 'session-open',
    conversation: string,
    reply: string,
    key: string,
    ticket: string,
  ): { channel: SealedChannel; slot: Slot } | undefined {
    const secret = keys.conversationKey(key, conversation)
    if (secret === undefined) {
      rejections.rejected++
      return undefined
    }
    const channel = new SealedChannel(secret, 'runner', rejections)
    if (channel.open(kind, message.data) === undefined) return undefined
    if (!slots.isFirstStart(conversation)) {
      rejections.rejected++
      return undefined
    }
    const identity = callerIdentity(reply)
    const refusal = !tickets.verify(ticket, conversation, identity)
      ? 'the claim expired or was not made for this inbox'
      : slots.isFullFor(identity)
        ? 'the runner is full'
        : undefined
    if (refusal !== undefined) {
      respondSealed(message, channel, `${kind}ed`, {
        ok: false,
        retry: true,
        message: refusal,
        refusal: { code: 'CODE_RUNTIME_SESSION_START_FAILED', message: refusal },
      })
      return undefined
    }
    return { channel, slot: slots.take(conversation, identity) }
  }

  const respondSealed = (message: Msg, channel: SealedChannel, kind: string, body: object): void => {
    try {
      message.respond(channel.seal(kind, encodeMessage(body)))
    } catch {
      // Reconnecting: the caller's wait for the answer settles it.
    }
  }

  const starts = connection.subscribe(startSubject(prefix, id), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      const body = unsealedBody(message.data)
      const start = body === undefined ? undefined : decodeStartRequest(body)
      if (start === undefined) {
        rejections.rejected++
        return
      }
      if (start.session !== undefined) {
        startSessionRun(message, start, start.session)
        return
      }
      const admitted = admit(message, 'start', start.run, start.reply, start.key ?? '', start.ticket ?? '')
      if (admitted === undefined) return
      respondSealed(message, admitted.channel, 'started', { ok: true })
      admitted.slot.done = execute(start, admitted.channel, admitted.slot.controller)
        .catch(() => undefined)
        .finally(() => release(start.run))
    },
  })

  function startSessionRun(message: Msg, start: StartRequest, session: string): void {
    const held = sessions.get(session)
    // A session not held here, or a start its caller did not seal: nobody this runner can answer.
    if (held?.channel.open('start', message.data) === undefined) {
      // A former holder's run as its session moves away is no forgery: it learns of the move.
      if (held === undefined && !movedClaims.has(session)) rejections.rejected++
      return
    }
    const channel = new SealedChannel(deriveKey(held.channel.key, start.run), 'runner', rejections)
    respondSealed(message, channel, 'started', { ok: true })
    const run = execute(start, channel, new AbortController(), held).catch(() => undefined)
    held.runs.add(run)
    void run.finally(() => held.runs.delete(run))
  }

  // Sessions: a slot turned into a session keeps it until the session is closed, ends, or its caller falls silent.
  const sessions = new Map<string, HeldSession>()
  // Adoptable sessions by anchor, the name an adopter knows them by.
  const anchored = new Map<string, HeldSession>()
  const movedClaims = new Set<string>()
  const endSession = (claim: string): void => {
    const held = sessions.get(claim)
    if (held === undefined) return
    clearInterval(held.watcher)
    held.callerSilence.stop()
    sessions.delete(claim)
    if (held.adoption !== undefined) anchored.delete(held.adoption.anchor)
    held.backend.release()
    release(held.slot)
  }
  const sessionOpens = connection.subscribe(sessionSubject(prefix, id, 'open'), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      void openSession(message)
    },
  })
  async function openSession(message: Msg): Promise<void> {
    const body = unsealedBody(message.data)
    const open = body === undefined ? undefined : decodeSessionOpenRequest(body)
    if (open === undefined) {
      rejections.rejected++
      return
    }
    const admitted = admit(message, 'session-open', open.session, open.reply, open.key, open.ticket)
    if (admitted === undefined) return
    const { channel, slot } = admitted
    let backend: LentBackend | undefined
    let local: CodeSession
    try {
      backend = await backends.acquire(open.budgets, slot.controller.signal)
      // Under the caller's trace, so the backend's `acquire` of the session joins it.
      const opening = backend
      local = await context.with(contextOf(open.trace), () => opening.runtime.openSession(open.options))
    } catch (error) {
      backend?.release()
      release(open.session)
      const refusal = CodeRuntimeError.is(error)
        ? { code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }) }
        : {
            code: 'CODE_RUNTIME_SESSION_START_FAILED',
            message: `The runner ${id} could not open the session: ${thrownMessage(error)}`,
          }
      respondSealed(message, channel, 'session-opened', { ok: false, refusal })
      return
    }
    // Named across the fleet: the backend's own id is unique only on this runner.
    const globalId = `${id}/${local.id}`
    // Watched often, so that an expiry reaches the caller about when it happens; beats go at heartbeatMs.
    const held: HeldSession = {
      local,
      backend,
      channel,
      globalId,
      claim: open.session,
      slot: open.session,
      identity: callerIdentity(open.reply),
      reply: open.reply,
      callerSilence: watchCaller(open.session, open.adoption !== undefined),
      lastBeatSent: 0,
      runs: new Set(),
      notified: false,
      closing: false,
      watcher: setInterval(() => watch(held), SESSION_WATCH_MS),
      ...(open.adoption === undefined ? {} : { adoption: { ...open.adoption, claims: new Set([open.session]) } }),
    }
    sessions.set(open.session, held)
    if (held.adoption !== undefined) anchored.set(held.adoption.anchor, held)
    respondSealed(message, channel, 'session-opened', { ok: true, id: globalId })
  }
  /**
   * The watch over a session's caller. An adoptable session outlives a silent caller (a gateway
   * node that died): it stays, orphaned, until adopted, closed, or its backend session ends on its
   * own (`watch` frees it then). Any other session ends with its caller's silence.
   */
  function watchCaller(claim: string, isAdoptable: boolean): SilenceMonitor {
    return new SilenceMonitor({
      lostAfterMs,
      heartbeatMs,
      onLost: () => {
        if (!isAdoptable) endHeldSession(claim)
      },
    })
  }
  /** A held session whose caller fell silent: its slot is freed and its variables are dropped. */
  function endHeldSession(claim: string): void {
    const held = sessions.get(claim)
    endSession(claim)
    void held?.local.dispose()
  }
  const publishSealed = (
    reply: string,
    channel: SealedChannel,
    kind: 'log' | 'beat' | 'ended' | 'refused',
    body?: object,
  ): void => {
    try {
      connection.publish(
        runReplySubject(reply, kind),
        channel.seal(kind, body === undefined ? undefined : encodeMessage(body)),
      )
    } catch {
      // Reconnecting: the caller's silence check is the one that counts.
    }
  }
  /** Tells the caller, once, that the session ended on its own (expired, lost). */
  function notifyEnd(held: HeldSession): void {
    const reason = held.local.endReason
    if (held.notified || (reason !== 'expired' && reason !== 'lost')) return
    held.notified = true
    publishSealed(held.reply, held.channel, 'ended', { reason })
  }
  function watch(held: HeldSession): void {
    notifyEnd(held)
    // Orphaned and ended on its own (idle expiry): nobody can use it any more, so its slot is freed.
    if (held.adoption !== undefined && held.local.endReason !== undefined && held.callerSilence.isLost) {
      endHeldSession(held.claim)
      return
    }
    if (performance.now() - held.lastBeatSent >= heartbeatMs) {
      held.lastBeatSent = performance.now()
      publishSealed(held.reply, held.channel, 'beat')
    }
  }
  const sessionControl = connection.subscribe(`${prefix}.runner.${id}.session.*.*`, {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      const [claim, kind] = message.subject.split('.').slice(-2)
      const held = claim === undefined ? undefined : sessions.get(claim)
      if (
        held === undefined ||
        (kind !== 'beat' && kind !== 'close' && kind !== 'memo') ||
        held.channel.open(kind, message.data) === undefined
      ) {
        if (held === undefined && (kind === 'close' || kind === 'memo')) {
          // Closed already, moved, or never held: nothing to do, and nothing to seal it with.
          message.respond(encodeMessage({ ok: kind === 'close' }))
        } else if (held === undefined && !(claim !== undefined && movedClaims.has(claim))) {
          rejections.rejected++
        }
        return
      }
      held.callerSilence.heard()
      if (kind === 'beat' || claim === undefined) return
      if (kind === 'memo') {
        keepMemo(message, held)
        return
      }
      held.closing = true
      void held.local
        .dispose()
        .then(() => Promise.allSettled([...held.runs]))
        .then(() => {
          endSession(claim)
          respondSealed(message, held.channel, 'closed', { ok: true })
        })
    },
  })

  function keepMemo(message: Msg, held: HeldSession): void {
    const body = unsealedBody(message.data)
    const memo = body === undefined ? undefined : decodeMemoMessage(body)
    if (memo === undefined || held.adoption === undefined) {
      respondSealed(message, held.channel, 'memo-kept', { ok: false })
      return
    }
    held.adoption.memo = memo.memo
    respondSealed(message, held.channel, 'memo-kept', { ok: true })
  }

  const sessionAdopts = connection.subscribe(sessionSubject(prefix, id, 'adopt'), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error === null) adoptSession(message)
    },
  })
  /**
   * Rebinds an adoptable session to its adopter's conversation. Every refusal the adopter must
   * not tell apart (no such anchor, a wrong proof, another identity, a session ending) is the same
   * `unknown`, counted as rejected; `busy` goes only to an adopter that proved itself.
   */
  function adoptSession(message: Msg): void {
    const body = unsealedBody(message.data)
    const adopt = body === undefined ? undefined : decodeSessionAdoptRequest(body)
    const secret = adopt === undefined ? undefined : keys.conversationKey(adopt.key, adopt.session)
    if (adopt === undefined || secret === undefined) {
      rejections.rejected++
      return
    }
    const channel = new SealedChannel(secret, 'runner', rejections)
    if (channel.open('session-adopt', message.data) === undefined) return
    const held = anchored.get(adopt.anchor)
    const proof = decodeMaskedProof(adopt.proof)
    const adoption = held?.adoption
    if (
      held === undefined ||
      adoption === undefined ||
      proof === undefined ||
      !isProofOf(maskProof(proof, secret), adoption.digest) ||
      callerIdentity(adopt.reply) !== held.identity ||
      held.closing ||
      held.local.endReason !== undefined ||
      adoption.claims.has(adopt.session) ||
      sessions.has(adopt.session)
    ) {
      rejections.rejected++
      respondSealed(message, channel, 'session-adopted', { ok: false, reason: 'unknown' })
      return
    }
    adoption.claims.add(adopt.session)
    if (held.runs.size > 0) {
      respondSealed(message, channel, 'session-adopted', { ok: false, reason: 'busy' })
      return
    }
    // The former holder hears it on its own channel, so it fails its next run at once.
    publishSealed(held.reply, held.channel, 'ended', { reason: 'moved' })
    sessions.delete(held.claim)
    movedClaims.add(held.claim)
    if (movedClaims.size > MOVED_CLAIMS_KEPT) movedClaims.delete(movedClaims.values().next().value as string)
    held.callerSilence.stop()
    held.claim = adopt.session
    held.channel = channel
    held.reply = adopt.reply
    held.callerSilence = watchCaller(adopt.session, true)
    sessions.set(adopt.session, held)
    respondSealed(message, channel, 'session-adopted', {
      ok: true,
      id: held.globalId,
      ...(adoption.memo === undefined ? {} : { memo: adoption.memo }),
    })
  }

  async function execute(
    start: StartRequest,
    channel: SealedChannel,
    controller: AbortController,
    held?: HeldSession,
  ): Promise<void> {
    const silence = new SilenceMonitor({
      lostAfterMs,
      heartbeatMs,
      onLost: () => controller.abort('The caller is gone (no heartbeat); the run was stopped.'),
    })
    const beatSubject = runControlSubject(prefix, id, start.run, 'beat')
    const abortSubject = runControlSubject(prefix, id, start.run, 'abort')
    const control = connection.subscribe(`${prefix}.runner.${id}.run.${start.run}.*`, {
      callback: (error, message) => {
        // A permission refused (or a subscription closed) arrives as an error with no message.
        if (error !== null) return
        const kind = message.subject === beatSubject ? 'beat' : message.subject === abortSubject ? 'abort' : undefined
        const body = kind === undefined ? undefined : channel.open(kind, message.data)
        if (body === undefined) return
        silence.heard()
        if (kind === 'abort') controller.abort(decodeAbortMessage(body)?.reason ?? 'Aborted by the caller.')
      },
    })
    const calls = new RemoteCalls(connection, inboxPrefix, start.reply, channel, lostAfterMs, silence)
    const publishEnd = (result: CodeRunResult): void => {
      try {
        connection.publish(runReplySubject(start.reply, 'end'), channel.seal('end', encodeEndMessage(result)))
      } catch (error) {
        // Past the server's max_payload, most often: the caller learns why instead of a lost runner.
        const message = `The run's result could not be sent back through NATS (${thrownMessage(error)}); return or log less.`
        try {
          connection.publish(
            runReplySubject(start.reply, 'end'),
            channel.seal(
              'end',
              encodeEndMessage({ logs: [], error: { kind: 'output-limit', message }, usage: result.usage, calls: [] }),
            ),
          )
        } catch {
          // Nothing more to tell; the caller's heartbeat check settles the run.
        }
      }
    }
    const heartbeat = setInterval(() => publishSealed(start.reply, channel, 'beat'), heartbeatMs)
    // What the backend does for the run (its `acquire`) joins the caller's trace, when it sent one.
    const callerContext = contextOf(start.trace)
    let backend: LentBackend | undefined
    try {
      const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = {
        program: start.program,
        bindings: start.namespaces.map((namespace, index) => calls.namespace(namespace, index, controller.signal)),
        signal: controller.signal,
        onLog: text => publishSealed(start.reply, channel, 'log', { text }),
      }
      if (start.recordCallValues !== undefined) request.recordCallValues = start.recordCallValues
      if (start.reuseKey !== undefined) request.reuseKey = start.reuseKey
      if (held === undefined) {
        backend = await backends.acquire(start.budgets, controller.signal)
        const lent = backend
        publishEnd(await context.with(callerContext, () => lent.runtime.run(request)))
      } else {
        held.callerSilence.heard()
        let result: CodeRunResult
        try {
          result = await context.with(callerContext, () => held.local.run(request))
        } catch (error) {
          // Misuse the caller must see as such (a closed session): its code, not a run failure.
          if (!CodeRuntimeError.is(error)) throw error
          publishSealed(start.reply, channel, 'refused', { code: error.code, message: error.message })
          return
        }
        // Said before the result, so the caller's session knows it ended by the time the run settles.
        notifyEnd(held)
        // The backend names its session by its own id, unique only on this runner; the caller knows the fleet's.
        const ended = result.error?.session
        publishEnd(
          ended === undefined || result.error === undefined
            ? result
            : { ...result, error: { ...result.error, session: { id: held.globalId, ended: ended.ended } } },
        )
      }
    } catch (error) {
      publishEnd({
        logs: [],
        error: controller.signal.aborted
          ? { kind: 'abort', message: String(controller.signal.reason) }
          : { kind: 'worker-exit', message: `The runner ${id} could not run the program: ${thrownMessage(error)}` },
        usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 0 },
        calls: [],
      })
    } finally {
      backend?.release()
      clearInterval(heartbeat)
      silence.stop()
      calls.stop()
      control.unsubscribe()
    }
  }

  const load = (): RunnerLoad => ({
    runner: id,
    active: slots.size,
    concurrency,
    draining: slots.isDraining,
    rejectedMessages: rejections.rejected,
    backends: backends.size,
  })
  // Every runner answers `<prefix>.load` (ask with requestMany) with its load: what an autoscaler reads.
  const loads = connection.subscribe(loadSubject(prefix), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      message.respond(encodeMessage(load()))
    },
  })

  listenForClaims()
  await connection.flush()

  return {
    id,
    load,
    async drain(graceMs) {
      slots.drain()
      stopListening()
      const running = (): Promise<void>[] =>
        [...slots.values()].flatMap(slot => (slot.done === undefined ? [] : [slot.done]))
      const grace = new Promise<void>(resolve => setTimeout(resolve, graceMs).unref())
      await Promise.race([Promise.all(running()), grace])
      for (const slot of slots.values()) slot.controller.abort('The runner is shutting down.')
      await Promise.all(running())
      for (const [claim, held] of sessions) {
        endSession(claim)
        await held.local.dispose().catch(() => undefined)
      }
      starts.unsubscribe()
      sessionOpens.unsubscribe()
      sessionAdopts.unsubscribe()
      sessionControl.unsubscribe()
      loads.unsubscribe()
      await connection.drain().catch(() => undefined)
      await backends.dispose()
    },
  }
}
