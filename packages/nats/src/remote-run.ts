/**
 * One run on a remote runner, from the caller's side, as one state machine: claim a runner with a
 * free slot (waiting up to `maxQueueMs`), send it the program, answer its binding calls with the
 * caller's own functions, pass its live logs on, and settle with its result. A runner that falls
 * silent for `lostAfterMs` settles the run `worker-exit` naming it; the run is never retried
 * (a binding call may already have had its effect), and is never sent to two runners.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node'
import { CodeRuntimeError, type CodeRunFailure, type CodeRunResult } from '@code-runtime/core'
import { thrownMessage, timerDelayMs, type ValidatedRunRequest } from '@code-runtime/core/internal'
import {
  formatLosslessJsonRefusal,
  safeLosslessJsonText,
  safeSnapshotLosslessJson,
  OutputLedger,
} from '@code-runtime/core/json'
import type { NatsRuntimeConfig } from './config.js'
import { deriveKey, randomId, SealedChannel, type KeyAgreement, type RejectionCounter } from './message-seal.js'
import { requestWithinSilence, SilenceMonitor } from './silence-monitor.js'
import {
  decodeRefusal,
  decodeCallRequest,
  decodeClaimReply,
  decodeEndMessage,
  decodeLogMessage,
  decodeStartReply,
  encodeMessage,
  PROTOCOL_VERSION,
  type CallAnswer,
  type CallRequest,
  type NamespaceDescriptor,
  type StartRequest,
} from './protocol.js'
import { claimSubject, runControlSubject, startSubject } from './subjects.js'
import { activeTraceContext, ClaimSpan } from './trace-context.js'

/** Waits between claims while every runner is busy: short at first, then a steady pace. */
const CLAIM_BACKOFF_MS = [20, 50, 100, 200, 250] as const

/** What a remote run needs besides the request. */
export interface RemoteRunContext {
  readonly connection: NatsConnection
  readonly config: NatsRuntimeConfig
  /** Fires when the runtime is disposed: the run settles as `abort`. */
  readonly disposed: AbortSignal
  /** This caller's key pair, whose public half goes in every start. */
  readonly keys: KeyAgreement
  /** Where forged or replayed messages are counted. */
  readonly rejections: RejectionCounter
  /** The first tokens of this caller's inboxes (its identity on the runners). */
  readonly inboxPrefix: string
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}

/**
 * A failure settled here, not by the runner (an abort before the start, no free runner, a lost
 * runner): charged against the output cap like any other, with the logs received so far.
 */
function failed(
  maxOutputBytes: number,
  error: CodeRunFailure,
  logs: readonly string[],
  wallMs: number,
  runner?: string,
): CodeRunResult {
  const ledger = new OutputLedger(maxOutputBytes)
  for (const entry of logs) ledger.appendLog(entry)
  const outcome = ledger.isOverflowed ? ledger.settleOverflow() : ledger.settleFailure(error.kind, error.message)
  return {
    ...outcome,
    usage: {
      wallMs,
      busyMs: 0,
      bindingCalls: 0,
      outputBytes: ledger.outputBytes,
      ...(runner === undefined ? {} : { runner }),
    },
    calls: [],
  }
}

function describeNamespaces(request: ValidatedRunRequest): NamespaceDescriptor[] {
  return request.namespaces.map(namespace => ({
    global: namespace.global,
    members: [...namespace.functions.keys()],
    ...(namespace.errorClass === undefined
      ? {}
      : {
          errorClass: { name: namespace.errorClass.name, memberNameProperty: namespace.errorClass.memberNameProperty },
        }),
  }))
}

/** A runner's offer for one conversation: where to start it, and the channel its messages are sealed on. */
export interface ClaimedRunner {
  readonly runner: string
  /** The runner's public key, which an adoptable session's address names. */
  readonly key: string
  readonly conversation: string
  readonly ticket: string
  readonly channel: SealedChannel
}

/**
 * Asks for a runner with a free slot for a fresh conversation id (a run or a session): the
 * runner's offer, or why none was had (`timeout` past maxQueueMs, `abort` when `stop` fired). An
 * offer holds nothing on the runner; its start may be refused `retry`, and then one claims again.
 */
export async function claimRunner(
  context: RemoteRunContext,
  stop: AbortSignal,
  startedAt: number,
): Promise<ClaimedRunner | { readonly failure: CodeRunFailure }> {
  const { connection, config } = context
  const elapsed = (): number => performance.now() - startedAt
  for (let attempt = 0; ; attempt++) {
    if (stop.aborted) return { failure: { kind: 'abort', message: 'aborted' } }
    const left = config.maxQueueMs - elapsed()
    if (left <= 0) {
      return {
        failure: {
          kind: 'timeout',
          message: `No runner had a free slot within ${config.maxQueueMs} ms (maxQueueMs); nothing ran. Try again, or add runners.`,
        },
      }
    }
    try {
      const conversation = randomId()
      const answer = decodeClaimReply(
        (
          await connection.request(
            claimSubject(config.subjectPrefix),
            encodeMessage({ v: PROTOCOL_VERSION, run: conversation }),
            { timeout: Math.min(left, config.lostAfterMs) },
          )
        ).data,
      )
      const key = answer?.ok === true ? context.keys.conversationKey(answer.key, conversation) : undefined
      if (answer?.ok === true && key !== undefined)
        return {
          runner: answer.runner,
          key: answer.key,
          conversation,
          ticket: answer.ticket,
          channel: new SealedChannel(key, 'caller', context.rejections),
        }
    } catch {
      // No runner listens (all busy, or none yet), or none answered in time: wait and ask again.
    }
    await sleep(
      Math.min(
        CLAIM_BACKOFF_MS[Math.min(attempt, CLAIM_BACKOFF_MS.length - 1)] as number,
        Math.max(1, config.maxQueueMs - elapsed()),
      ),
      stop,
    )
  }
}

/** Where a session's runs go: its runner, the session's claim id there, and the session's channel. */
export interface SessionTarget {
  readonly runner: string
  readonly session: string
  readonly channel: SealedChannel
  /** Told when the runner did not confirm the start: it may be gone, and the session with it. */
  readonly onStartUnconfirmed?: () => void
}

/**
 * Runs `request` on a runner (claimed for it, or the session's); resolves for every outcome, like
 * `CodeRuntime.run`. A session run the runner refuses (the session was closed) rejects with the
 * runner's `CodeRuntimeError`.
 */
export async function runRemotely(
  request: ValidatedRunRequest,
  context: RemoteRunContext,
  target?: SessionTarget,
): Promise<CodeRunResult> {
  const { connection, config } = context
  const startedAt = performance.now()
  const elapsed = (): number => performance.now() - startedAt
  const stop = AbortSignal.any([context.disposed, ...(request.signal === undefined ? [] : [request.signal])])
  const abortMessage = (): string =>
    String(request.signal?.aborted === true ? request.signal.reason : 'The runtime was disposed during the run.')
  if (stop.aborted) return failed(config.maxOutputBytes, { kind: 'abort', message: abortMessage() }, [], elapsed())

  let run = ''
  let channel: SealedChannel | undefined
  const reply = createInbox(context.inboxPrefix)
  const logs: string[] = []
  let settled = false
  let settle!: (result: CodeRunResult) => void
  const outcome = new Promise<CodeRunResult>(resolve => {
    settle = result => {
      if (settled) return
      settled = true
      resolve(result)
    }
  })
  let runner: string | undefined = target?.runner
  let silence: SilenceMonitor | undefined
  let rejection: CodeRuntimeError | undefined

  // The caller's observer may throw or reject: that must not reach NATS's callback, nor the run.
  const deliverLog = (text: string): void => {
    try {
      const returned: unknown = request.onLog?.(text)
      if (returned instanceof Promise) returned.catch(() => undefined)
    } catch {
      // Ignored, as every backend ignores a failing observer.
    }
  }

  const answerCall = async (message: Msg, sealed: SealedChannel, call: CallRequest): Promise<void> => {
    const respond = (body: CallAnswer): void => {
      if (message.reply === undefined) return
      try {
        message.respond(sealed.seal('answer', encodeMessage({ id: call.id, ...body })))
      } catch (error) {
        // Most often a value past the server's max_payload: the call fails, the run goes on.
        try {
          message.respond(
            sealed.seal(
              'answer',
              encodeMessage({
                id: call.id,
                ok: false,
                message: `The tool's answer could not be sent to the runner (${thrownMessage(error)}).`,
              }),
            ),
          )
        } catch {
          // The connection is gone: heartbeats settle the run.
        }
      }
    }
    if (settled) return respond({ ok: false, message: 'The run has ended.' })
    // The runner asks again when an answer may have been lost (NATS restarting): the same call is
    // answered again, never made twice.
    let answer = answers.get(call.id)
    if (answer === undefined) {
      answer = makeCall(call)
      answers.set(call.id, answer)
    }
    const reply = await answer
    respond(settled ? { ok: false, message: 'The run has ended.' } : reply)
  }

  const answers = new Map<number, Promise<CallAnswer>>()
  const makeCall = async (call: CallRequest): Promise<CallAnswer> => {
    const namespace = request.namespaces[call.namespace]
    const binding = namespace?.functions.get(call.member)
    if (namespace === undefined || binding === undefined)
      return { ok: false, message: 'The runner asked for a call the run does not have.' }
    let parsed: unknown
    try {
      parsed = JSON.parse(call.argsJson)
    } catch {
      return { ok: false, message: 'The runner sent arguments that are not JSON.' }
    }
    const args = safeSnapshotLosslessJson(parsed, { rootLabel: 'args' })
    if (!args.ok)
      return {
        ok: false,
        message: `${namespace.global}.${call.member}: the arguments are not lossless JSON: ${formatLosslessJsonRefusal(args.error)}`,
      }
    let resolution: unknown
    try {
      resolution = await Reflect.apply(
        binding,
        undefined,
        call.index === undefined ? [args.value] : [args.value, Object.freeze({ index: call.index })],
      )
    } catch (thrown) {
      return { ok: false, message: thrownMessage(thrown) }
    }
    const text = safeLosslessJsonText(resolution, { rootLabel: 'value' })
    if (!text.ok)
      return {
        ok: false,
        message: `${namespace.global}.${call.member} resolved a value that is not lossless JSON: ${formatLosslessJsonRefusal(text.error)}`,
      }
    return { ok: true, valueJson: text.value }
  }

  // Subscribed before the claim: nothing the runner sends can come before we listen. Only what
  // the run's runner sealed is heard; anything else is dropped and counted.
  const traffic: Subscription = connection.subscribe(`${reply}.>`, {
    callback: (error, message) => {
      if (error !== null || settled) return
      const kind = message.subject.slice(reply.length + 1)
      const sealed = channel
      const data = sealed === undefined ? undefined : sealed.open(kind, message.data)
      if (sealed === undefined || data === undefined) {
        if (sealed === undefined) context.rejections.rejected++
        return
      }
      silence?.heard()
      if (kind === 'log') {
        const log = decodeLogMessage(data)
        if (log === undefined) return
        logs.push(log.text)
        deliverLog(log.text)
      } else if (kind === 'call') {
        const call = decodeCallRequest(data)
        if (call !== undefined) void answerCall(message, sealed, call)
      } else if (kind === 'refused') {
        const refused = decodeRefusal(data)
        rejection = new CodeRuntimeError(
          refused?.code ?? 'CODE_RUNTIME_SESSION_CLOSED',
          refused?.message ?? 'The session was closed.',
        )
        settle(failed(config.maxOutputBytes, { kind: 'abort', message: 'refused' }, [], elapsed(), runner))
      } else if (kind === 'end') {
        const end = decodeEndMessage(data)
        if (end === undefined) {
          settle(
            failed(
              config.maxOutputBytes,
              {
                kind: 'worker-exit',
                message: `The runner ${runner ?? '?'} sent a result that does not decode; the run is lost.`,
              },
              logs,
              elapsed(),
              runner,
            ),
          )
          return
        }
        settle({
          ...end.result,
          usage: { ...end.result.usage, wallMs: elapsed(), ...(runner === undefined ? {} : { runner }) },
        })
      }
    },
  })

  const timers: ReturnType<typeof setInterval>[] = []
  const onStop = (): void => {
    if (runner === undefined || channel === undefined) return
    try {
      connection.publish(
        runControlSubject(config.subjectPrefix, runner, run, 'abort'),
        channel.seal('abort', encodeMessage({ reason: abortMessage() })),
      )
    } catch {
      // The connection is gone; the runner aborts on its own once our heartbeats stop.
    }
    // The runner answers an abort at once with what the program printed; should it not, we do.
    timers.push(
      setTimeout(
        () =>
          settle(failed(config.maxOutputBytes, { kind: 'abort', message: abortMessage() }, logs, elapsed(), runner)),
        config.lostAfterMs,
      ),
    )
  }
  stop.addEventListener('abort', onStop, { once: true })

  try {
    // Read where the run was called: the caller's `execute` span, if it traces.
    const trace = activeTraceContext()
    const body = {
      v: PROTOCOL_VERSION,
      reply,
      program: request.program,
      namespaces: describeNamespaces(request),
      budgets: { computeMs: config.computeMs, maxWallMs: config.maxWallMs, maxOutputBytes: config.maxOutputBytes },
      ...(request.recordCallValuesBytes === undefined
        ? {}
        : { recordCallValues: { maxBytes: request.recordCallValuesBytes } }),
      ...(request.reuseKey === undefined ? {} : { reuseKey: request.reuseKey }),
      ...(trace === undefined ? {} : { trace }),
    }
    // Claim one runner with a free slot and start there, or wait for one up to maxQueueMs (a session
    // has its own). A start refused `retry` ran nothing, so it is claimed again, under a fresh id.
    // One span for the whole wait, claims refused `retry` included; a session's run claims nothing.
    const claimSpan = target === undefined ? new ClaimSpan() : undefined
    for (;;) {
      let sealedStart: Uint8Array
      if (target === undefined) {
        const claimed = await claimRunner(context, stop, startedAt)
        if ('failure' in claimed) {
          claimSpan?.failed(claimed.failure.kind)
          return failed(
            config.maxOutputBytes,
            claimed.failure.kind === 'abort' ? { kind: 'abort', message: abortMessage() } : claimed.failure,
            [],
            elapsed(),
          )
        }
        runner = claimed.runner
        run = claimed.conversation
        channel = claimed.channel
        const start: StartRequest = { ...body, run, key: context.keys.publicKey, ticket: claimed.ticket }
        sealedStart = channel.seal('start', encodeMessage(start))
      } else {
        run = randomId()
        channel = new SealedChannel(deriveKey(target.channel.key, run), 'caller', context.rejections)
        const start: StartRequest = { ...body, run, session: target.session }
        sealedStart = target.channel.seal('start', encodeMessage(start))
      }
      const startedOn: string = runner ?? ''
      let started
      try {
        // The runner answers at once; an answer late only because this process was busy is still its answer.
        const answer = await requestWithinSilence(config, backstopMs =>
          connection.request(startSubject(config.subjectPrefix, startedOn), sealedStart, { timeout: backstopMs }),
        )
        const opened = channel.open('started', answer.data)
        started = opened === undefined ? undefined : decodeStartReply(opened)
      } catch (error) {
        // The runner may or may not have started it: it is told to stop, and the run is not retried.
        claimSpan?.failed('worker-exit')
        onStop()
        target?.onStartUnconfirmed?.()
        return failed(
          config.maxOutputBytes,
          {
            kind: 'worker-exit',
            message: `The runner ${startedOn} did not confirm the start of the run (${thrownMessage(error)}); it was told to stop, and nothing is retried.`,
          },
          [],
          elapsed(),
          startedOn,
        )
      }
      if (started?.ok === true) break
      if (started?.retry !== true || target !== undefined) {
        claimSpan?.failed('worker-exit')
        return failed(
          config.maxOutputBytes,
          {
            kind: 'worker-exit',
            message: `The runner ${startedOn} refused the run: ${started?.message ?? 'a malformed or forged answer'}.`,
          },
          [],
          elapsed(),
          startedOn,
        )
      }
      runner = undefined
    }
    claimSpan?.claimed(runner ?? '')
    const runChannel: SealedChannel = channel
    if (stop.aborted) onStop()

    const claimedRunner: string = runner ?? ''
    timers.push(
      setInterval(() => {
        try {
          connection.publish(
            runControlSubject(config.subjectPrefix, claimedRunner, run, 'beat'),
            runChannel.seal('beat'),
          )
        } catch {
          // Reconnecting: the runner's silence check is the one that counts.
        }
      }, config.heartbeatMs),
    )
    silence = new SilenceMonitor({
      lostAfterMs: config.lostAfterMs,
      heartbeatMs: config.heartbeatMs,
      onLost: silentMs =>
        settle(
          failed(
            config.maxOutputBytes,
            {
              kind: 'worker-exit',
              message: `The runner ${claimedRunner} stopped answering (silent for ${Math.round(silentMs)} ms, lostAfterMs ${config.lostAfterMs}); the run is lost and not retried, since its binding calls may already have had effects.`,
            },
            logs,
            elapsed(),
            claimedRunner,
          ),
        ),
    })
    // A backstop past the runner's own wall ceiling: a run never outlives it by much, whatever happens.
    timers.push(
      setTimeout(
        () =>
          settle(
            failed(
              config.maxOutputBytes,
              { kind: 'timeout', message: `Stopped after ${config.maxWallMs} ms of wall time (maxWallMs).` },
              logs,
              elapsed(),
              claimedRunner,
            ),
          ),
        timerDelayMs(config.maxWallMs + config.lostAfterMs),
      ),
    )
    const result = await outcome
    if (rejection !== undefined) throw rejection
    return result
  } finally {
    settled = true
    stop.removeEventListener('abort', onStop)
    for (const timer of timers) clearTimeout(timer)
    silence?.stop()
    traffic.unsubscribe()
  }
}
