/**
 * A runner: takes runs from NATS while it has a free slot and runs each on a local backend
 * (worker-thread, process or container), its binding calls sent back to the caller that owns the
 * functions. Claims are a request to a queue group the runner joins only while it has capacity:
 * NATS hands each claim to one runner, a runner never takes more than `concurrency`, and a run is
 * started only after its caller confirmed the claim (so a lost reply never starts a run twice).
 * A caller that falls silent for `lostAfterMs` has its run aborted; on drain the runner takes no
 * new runs, lets the running ones finish for `graceMs`, then aborts the rest.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node'
import { createInbox } from '@nats-io/transport-node'
import type { CodeBindingCall, CodeBindingFunction, CodeBindingNamespace, CodeJsonValue, CodeRunRequest, CodeRunResult, CodeRuntime, CodeSession, StartedCodeRuntime } from '@code-runtime/core'
import { CodeRuntimeError } from '@code-runtime/core'
import { readConfigObject, readIntegerField, refuseConfigField, thrownMessage, type ConfigRecord } from '@code-runtime/core/internal'
import { stringifyJsonValue } from '@code-runtime/core/json'
import { DEFAULT_HEARTBEAT_MS, DEFAULT_LOST_AFTER_MS, readConnectionFields, type NatsConnectionConfig } from './config.js'
import { SilenceMonitor } from './silence-monitor.js'
import { connectNats } from './connection.js'
import { decodeAbortMessage, decodeCallReply, decodeClaimRequest, decodeSessionOpenRequest, decodeStartRequest, encodeEndMessage, encodeMessage, type RunBudgets, type StartRequest } from './protocol.js'
import { claimSubject, loadSubject, runControlSubject, runnerQueue, runReplySubject, sessionSubject, startSubject, SUBJECT_TOKEN_PATTERN } from './subjects.js'

/** Starts the local backend a runner runs programs on, with the budgets of a caller. */
export type StartLocalBackend = (budgets: RunBudgets) => Promise<StartedCodeRuntime<CodeRuntime>>

/** Options of {@link startRunner}. */
export interface RunnerOptions {
  /** How to reach NATS (the same fields as the caller's config: servers, credentials, subjectPrefix). */
  readonly nats: Partial<Omit<NatsConnectionConfig, 'servers'>> & { readonly servers: string | readonly string[] }
  /** Starts the local backend; called once per distinct set of budgets callers use. */
  readonly startBackend: StartLocalBackend
  /** Runs at once; default 4. */
  readonly concurrency?: number
  /** This runner's id in subjects and results; default a fresh unique token. */
  readonly id?: string
  /** How long a claim waits for the caller's start, in milliseconds; default 5 000. */
  readonly claimHoldMs?: number
  readonly heartbeatMs?: number
  readonly lostAfterMs?: number
}

/** What a runner is doing now. */
export interface RunnerLoad {
  readonly runner: string
  /** Runs claimed or running. */
  readonly active: number
  readonly concurrency: number
  readonly draining: boolean
}

/** A started runner. */
export interface Runner {
  readonly id: string
  load(): RunnerLoad
  /** Stops taking runs, lets running ones finish for `graceMs`, aborts the rest, then disconnects. */
  drain(graceMs: number): Promise<void>
}

/** A session this runner holds for a caller. */
interface HeldSession {
  readonly local: CodeSession
  /** Its id across the fleet, named in its failures in place of the backend's own. */
  readonly globalId: string
  readonly localIdPattern: RegExp
  readonly reply: string
  readonly callerSilence: SilenceMonitor
  lastBeatSent: number
  readonly runs: Set<Promise<void>>
  notified: boolean
  readonly watcher: ReturnType<typeof setInterval>
}

/** How often a held session is looked at: its end reason, and whether it is time for a beat. */
const SESSION_WATCH_MS = 25

interface ActiveRun {
  readonly controller: AbortController
  holdTimer?: ReturnType<typeof setTimeout>
  done?: Promise<void>
}

function readRunnerNumbers(options: RunnerOptions): { concurrency: number; claimHoldMs: number; heartbeatMs: number; lostAfterMs: number } {
  const record = options as unknown as ConfigRecord
  const label = 'runner'
  return {
    concurrency: readIntegerField(label, record, 'concurrency', { default: 4, min: 1, max: 4096 }),
    claimHoldMs: readIntegerField(label, record, 'claimHoldMs', { default: 5_000, min: 10, max: 600_000 }),
    heartbeatMs: readIntegerField(label, record, 'heartbeatMs', { default: DEFAULT_HEARTBEAT_MS, min: 10, max: 60_000 }),
    lostAfterMs: readIntegerField(label, record, 'lostAfterMs', { default: DEFAULT_LOST_AFTER_MS, min: 20, max: 600_000 }),
  }
}

/**
 * Connects to NATS and starts taking runs.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` for bad options; `CODE_RUNTIME_UNAVAILABLE`
 *   when NATS cannot be reached.
 */
export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const connectionConfig = readConnectionFields('runner.nats', readConfigObject('runner.nats', options.nats, ['servers', 'user', 'pass', 'token', 'subjectPrefix']))
  const { concurrency, claimHoldMs, heartbeatMs, lostAfterMs } = readRunnerNumbers(options)
  const id = options.id ?? (createInbox().split('.').at(-1) as string)
  if (!SUBJECT_TOKEN_PATTERN.test(id)) refuseConfigField('runner', 'id', 'must be one subject token: letters, digits, - and _', id)
  if (typeof options.startBackend !== 'function') refuseConfigField('runner', 'startBackend', 'must be a function (budgets) => a started runtime', options.startBackend)
  const prefix = connectionConfig.subjectPrefix
  const connection: NatsConnection = await connectNats(connectionConfig, `code-runtime runner ${id}`)

  const active = new Map<string, ActiveRun>()
  const backends = new Map<string, Promise<StartedCodeRuntime<CodeRuntime>>>()
  let draining = false
  let claims: Subscription | undefined

  const backendFor = (budgets: RunBudgets): Promise<StartedCodeRuntime<CodeRuntime>> => {
    const key = `${budgets.computeMs}/${budgets.maxWallMs}/${budgets.maxOutputBytes}`
    let backend = backends.get(key)
    if (backend === undefined) {
      backend = options.startBackend(budgets)
      backends.set(key, backend)
      backend.catch(() => backends.delete(key))
    }
    return backend
  }

  // In the claim queue group only while a slot is free: NATS then never offers this runner a run it cannot take.
  const listenForClaims = (): void => {
    if (claims !== undefined || draining || active.size >= concurrency) return
    claims = connection.subscribe(claimSubject(prefix), { queue: runnerQueue(prefix), callback: (error, message) => {
      if (error === null) onClaim(message)
    } })
  }
  const stopListening = (): void => {
    claims?.unsubscribe()
    claims = undefined
  }
  const release = (run: string): void => {
    const entry = active.get(run)
    if (entry?.holdTimer !== undefined) clearTimeout(entry.holdTimer)
    active.delete(run)
    listenForClaims()
  }

  function onClaim(message: Msg): void {
    const claim = decodeClaimRequest(message.data)
    if (claim === undefined || message.reply === undefined) return
    if (draining || active.size >= concurrency || active.has(claim.run)) {
      message.respond(encodeMessage({ ok: false, reason: 'busy' }))
      return
    }
    const entry: ActiveRun = { controller: new AbortController() }
    // A caller that claimed and never started gives the slot back.
    entry.holdTimer = setTimeout(() => release(claim.run), claimHoldMs)
    active.set(claim.run, entry)
    if (active.size >= concurrency) stopListening()
    message.respond(encodeMessage({ ok: true, runner: id }))
  }

  const starts = connection.subscribe(startSubject(prefix, id), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      const start = decodeStartRequest(message.data)
      if (start?.session !== undefined) {
        const held = sessions.get(start.session)
        if (held === undefined) {
          message.respond(encodeMessage({ ok: false, message: 'no such session is held here' }))
          return
        }
        message.respond(encodeMessage({ ok: true }))
        const run = execute(start, new AbortController(), held).catch(() => undefined)
        held.runs.add(run)
        void run.finally(() => held.runs.delete(run))
        return
      }
      const entry = start === undefined ? undefined : active.get(start.run)
      if (start === undefined || entry === undefined || entry.holdTimer === undefined) {
        message.respond(encodeMessage({ ok: false, message: start === undefined ? 'the start request does not decode' : 'no claim of this run is held (it expired, or the run already started)' }))
        return
      }
      clearTimeout(entry.holdTimer)
      delete entry.holdTimer
      message.respond(encodeMessage({ ok: true }))
      entry.done = execute(start, entry.controller).catch(() => undefined).finally(() => release(start.run))
    },
  })

  // Sessions: a claim turned into a session keeps its slot until the session is closed, ends, or its caller falls silent.
  const sessions = new Map<string, HeldSession>()
  const endSession = (claim: string): void => {
    const held = sessions.get(claim)
    if (held === undefined) return
    clearInterval(held.watcher)
    held.callerSilence.stop()
    sessions.delete(claim)
    release(claim)
  }
  const sessionOpens = connection.subscribe(sessionSubject(prefix, id, 'open'), {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      void openSession(message)
    },
  })
  async function openSession(message: Msg): Promise<void> {
    const open = decodeSessionOpenRequest(message.data)
    const entry = open === undefined ? undefined : active.get(open.session)
    if (open === undefined || entry === undefined || entry.holdTimer === undefined) {
      message.respond(encodeMessage({ ok: false, refusal: { code: 'CODE_RUNTIME_SESSION_START_FAILED', message: 'The runner holds no claim for this session (it expired).' } }))
      return
    }
    clearTimeout(entry.holdTimer)
    delete entry.holdTimer
    let local: CodeSession
    try {
      local = await (await backendFor(open.budgets)).runtime.openSession(open.options)
    } catch (error) {
      release(open.session)
      const refusal = CodeRuntimeError.is(error)
        ? { code: error.code, message: error.message, ...error.field === undefined ? {} : { field: error.field } }
        : { code: 'CODE_RUNTIME_SESSION_START_FAILED', message: `The runner ${id} could not open the session: ${thrownMessage(error)}` }
      message.respond(encodeMessage({ ok: false, refusal }))
      return
    }
    // Named across the fleet: the backend's own id is unique only on this runner.
    const globalId = `${id}/${local.id}`
    // Watched often, so that an expiry reaches the caller about when it happens; beats go at heartbeatMs.
    const held: HeldSession = { local, globalId, localIdPattern: new RegExp(`${local.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`, 'g'), reply: open.reply, callerSilence: new SilenceMonitor({ lostAfterMs, heartbeatMs, onLost: () => endHeldSession(open.session) }), lastBeatSent: 0, runs: new Set(), notified: false, watcher: setInterval(() => watch(held), SESSION_WATCH_MS) }
    sessions.set(open.session, held)
    message.respond(encodeMessage({ ok: true, id: globalId }))
  }
  /** A held session whose caller fell silent: its slot is freed and its variables are dropped. */
  function endHeldSession(claim: string): void {
    const held = sessions.get(claim)
    endSession(claim)
    void held?.local.dispose()
  }
  /** Tells the caller, once, that the session ended on its own (expired, lost). */
  function notifyEnd(held: HeldSession): void {
    const reason = held.local.endReason
    if (held.notified || (reason !== 'expired' && reason !== 'lost')) return
    held.notified = true
    try {
      connection.publish(runReplySubject(held.reply, 'ended'), encodeMessage({ reason }))
    } catch {
      // Reconnecting: its later runs say it.
    }
  }
  function watch(held: HeldSession): void {
    notifyEnd(held)
    if (performance.now() - held.lastBeatSent >= heartbeatMs) {
      held.lastBeatSent = performance.now()
      try {
        connection.publish(runReplySubject(held.reply, 'beat'))
      } catch {
        // Reconnecting: the caller's silence check is the one that counts.
      }
    }
  }
  const sessionControl = connection.subscribe(`${prefix}.runner.${id}.session.*.*`, {
    callback: (error, message) => {
      // A permission refused (or a subscription closed) arrives as an error with no message.
      if (error !== null) return
      const [claim, kind] = message.subject.split('.').slice(-2)
      const held = claim === undefined ? undefined : sessions.get(claim)
      if (kind === 'beat') {
        held?.callerSilence.heard()
        return
      }
      if (kind !== 'close' || claim === undefined) return
      if (held === undefined) {
        message.respond(encodeMessage({ ok: true }))
        return
      }
      void held.local.dispose().then(() => Promise.allSettled([...held.runs])).then(() => {
        endSession(claim)
        message.respond(encodeMessage({ ok: true }))
      })
    },
  })

  async function execute(start: StartRequest, controller: AbortController, held?: HeldSession): Promise<void> {
    const silence = new SilenceMonitor({ lostAfterMs, heartbeatMs, onLost: () => controller.abort('The caller is gone (no heartbeat); the run was stopped.') })
    const control = connection.subscribe(`${prefix}.runner.${id}.run.${start.run}.*`, {
      callback: (error, message) => {
        // A permission refused (or a subscription closed) arrives as an error with no message.
        if (error !== null) return
        if (message.subject === runControlSubject(prefix, id, start.run, 'beat')) silence.heard()
        else if (message.subject === runControlSubject(prefix, id, start.run, 'abort')) controller.abort(decodeAbortMessage(message.data)?.reason ?? 'Aborted by the caller.')
      },
    })
    const publish = (kind: 'log' | 'beat', body?: object): void => {
      try {
        connection.publish(runReplySubject(start.reply, kind), body === undefined ? undefined : encodeMessage(body))
      } catch {
        // Reconnecting: the caller's heartbeat check settles the run.
      }
    }
    const publishEnd = (result: CodeRunResult): void => {
      try {
        connection.publish(runReplySubject(start.reply, 'end'), encodeEndMessage(result))
      } catch (error) {
        // Past the server's max_payload, most often: the caller learns why instead of a lost runner.
        const message = `The run's result could not be sent back through NATS (${thrownMessage(error)}); return or log less.`
        try {
          connection.publish(runReplySubject(start.reply, 'end'), encodeEndMessage({ logs: [], error: { kind: 'output-limit', message }, usage: result.usage, calls: [] }))
        } catch {
          // Nothing more to tell; the caller's heartbeat check settles the run.
        }
      }
    }
    const calls = { next: 0 }
    const heartbeat = setInterval(() => publish('beat'), heartbeatMs)
    try {
      const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = {
        program: start.program,
        bindings: start.namespaces.map((namespace, index) => remoteNamespace(namespace, index, start, calls, controller.signal)),
        signal: controller.signal,
        onLog: (text) => publish('log', { text }),
      }
      if (start.recordCallValues !== undefined) request.recordCallValues = start.recordCallValues
      if (start.reuseKey !== undefined) request.reuseKey = start.reuseKey
      if (held === undefined) {
        publishEnd(await (await backendFor(start.budgets)).runtime.run(request))
      } else {
        held.callerSilence.heard()
        let result: CodeRunResult
        try {
          result = await held.local.run(request)
        } catch (error) {
          // Misuse the caller must see as such (a closed session): its code, not a run failure.
          if (!CodeRuntimeError.is(error)) throw error
          connection.publish(runReplySubject(start.reply, 'refused'), encodeMessage({ code: error.code, message: error.message.replace(held.localIdPattern, held.globalId) }))
          return
        }
        // Said before the result, so the caller's session knows it ended by the time the run settles.
        notifyEnd(held)
        publishEnd(result.error === undefined ? result : { ...result, error: { ...result.error, message: result.error.message.replace(held.localIdPattern, held.globalId) } })
      }
    } catch (error) {
      publishEnd({ logs: [], error: { kind: 'worker-exit', message: `The runner ${id} could not run the program: ${thrownMessage(error)}` }, usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 0 }, calls: [] })
    } finally {
      clearInterval(heartbeat)
      silence.stop()
      control.unsubscribe()
    }
  }

  /**
   * The caller's namespace on this side: each member asks the caller over NATS, and asks again
   * every `lostAfterMs` while no answer came (an answer lost while NATS restarted is sent again;
   * the caller never makes one call twice). It stops asking when the run is stopped.
   */
  function remoteNamespace(namespace: StartRequest['namespaces'][number], index: number, start: StartRequest, calls: { next: number }, signal: AbortSignal): CodeBindingNamespace {
    const functions: Record<string, CodeBindingFunction> = Object.create(null) as Record<string, CodeBindingFunction>
    for (const member of namespace.members) {
      functions[member] = async (args: unknown, call?: CodeBindingCall): Promise<CodeJsonValue> => {
        const body = encodeMessage({ id: calls.next++, namespace: index, member, argsJson: stringifyJsonValue(args as CodeJsonValue), ...call === undefined ? {} : { index: call.index } })
        let answer
        for (;;) {
          if (signal.aborted) throw new Error(`${namespace.global}.${member}: the run was stopped.`)
          try {
            answer = decodeCallReply((await connection.request(runReplySubject(start.reply, 'call'), body, { timeout: lostAfterMs })).data)
            break
          } catch (error) {
            // Not yet answered (a slow tool), or the answer was lost: ask again, unless nobody listens.
            if (/no responders/i.test(thrownMessage(error)) && !connection.isClosed()) await new Promise((resolve) => setTimeout(resolve, heartbeatMs))
            if (connection.isClosed()) throw new Error(`${namespace.global}.${member}: the call could not reach the caller (${thrownMessage(error)}).`)
          }
        }
        if (answer === undefined) throw new Error(`${namespace.global}.${member}: the caller's answer does not decode.`)
        if (!answer.ok) throw new Error(answer.message)
        return JSON.parse(answer.valueJson) as CodeJsonValue
      }
    }
    return namespace.errorClass === undefined ? { global: namespace.global, functions } : { global: namespace.global, functions, errorClass: namespace.errorClass }
  }

  const load = (): RunnerLoad => ({ runner: id, active: active.size, concurrency, draining })
  // Every runner answers `<prefix>.load` (ask with requestMany) with its load: what an autoscaler reads.
  const loads = connection.subscribe(loadSubject(prefix), { callback: (error, message) => {
    // A permission refused (or a subscription closed) arrives as an error with no message.
    if (error !== null) return
    message.respond(encodeMessage(load()))
  } })

  listenForClaims()
  await connection.flush()

  return {
    id,
    load,
    async drain(graceMs) {
      draining = true
      stopListening()
      const running = (): Promise<void>[] => [...active.values()].flatMap((entry) => entry.done === undefined ? [] : [entry.done])
      const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())
      await Promise.race([Promise.all(running()), grace])
      for (const entry of active.values()) entry.controller.abort('The runner is shutting down.')
      await Promise.all(running())
      for (const [claim, held] of sessions) {
        endSession(claim)
        await held.local.dispose().catch(() => undefined)
      }
      starts.unsubscribe()
      sessionOpens.unsubscribe()
      sessionControl.unsubscribe()
      loads.unsubscribe()
      await connection.drain().catch(() => undefined)
      await Promise.all([...backends.values()].map((backend) => backend.then((started) => started.dispose(), () => undefined)))
    },
  }
}
