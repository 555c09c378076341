/**
 * The runner's side of a run's binding calls: the caller's namespaces rebuilt as functions that
 * ask the caller over NATS, each answer taken only when the caller sealed it.
 */
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/transport-node'
import type { CodeBindingCall, CodeBindingFunction, CodeBindingNamespace, CodeJsonValue } from '@code-runtime/core'
import { stringifyJsonValue } from '@code-runtime/core/json'
import type { SealedChannel } from './message-seal.js'
import { decodeCallReply, encodeMessage, type CallReply, type StartRequest } from './protocol.js'
import type { SilenceMonitor } from './silence-monitor.js'
import { runReplySubject } from './subjects.js'

/**
 * A run's binding calls, sent to its caller: each call published sealed to the caller's reply
 * subject with this run's own answer inbox, and asked again every `lostAfterMs` while no answer
 * came (an answer lost while NATS restarted is sent again; the caller never makes one call twice).
 * An answer is taken only when it is sealed by the caller and names a call still waiting, so a
 * forged answer is dropped and the real one still counts.
 */
export class RemoteCalls {
  readonly #connection: NatsConnection
  readonly #reply: string
  readonly #channel: SealedChannel
  readonly #lostAfterMs: number
  readonly #answerInbox: string
  readonly #answers: Subscription
  readonly #waiting = new Map<number, (answer: CallReply) => void>()
  #next = 0

  constructor(
    connection: NatsConnection,
    inboxPrefix: string | undefined,
    reply: string,
    channel: SealedChannel,
    lostAfterMs: number,
    callerSilence: SilenceMonitor,
  ) {
    this.#connection = connection
    this.#reply = reply
    this.#channel = channel
    this.#lostAfterMs = lostAfterMs
    this.#answerInbox = createInbox(inboxPrefix)
    this.#answers = connection.subscribe(this.#answerInbox, {
      callback: (error, message) => {
        if (error !== null) return
        const body = channel.open('answer', message.data)
        const answer = body === undefined ? undefined : decodeCallReply(body)
        if (answer === undefined) return
        callerSilence.heard()
        this.#waiting.get(answer.id)?.(answer)
      },
    })
  }

  /** The caller's namespace on this side: each member asks the caller. It stops asking when the run is stopped. */
  namespace(namespace: StartRequest['namespaces'][number], index: number, signal: AbortSignal): CodeBindingNamespace {
    const functions: Record<string, CodeBindingFunction> = Object.create(null) as Record<string, CodeBindingFunction>
    for (const member of namespace.members) {
      functions[member] = async (args: unknown, call?: CodeBindingCall): Promise<CodeJsonValue> => {
        const answer = await this.#ask(
          index,
          member,
          args as CodeJsonValue,
          call,
          signal,
          `${namespace.global}.${member}`,
        )
        if (!answer.ok) throw new Error(answer.message)
        return JSON.parse(answer.valueJson) as CodeJsonValue
      }
    }
    return namespace.errorClass === undefined
      ? { global: namespace.global, functions }
      : { global: namespace.global, functions, errorClass: namespace.errorClass }
  }

  stop(): void {
    this.#answers.unsubscribe()
  }

  #ask(
    namespace: number,
    member: string,
    args: CodeJsonValue,
    call: CodeBindingCall | undefined,
    signal: AbortSignal,
    label: string,
  ): Promise<CallReply> {
    const id = this.#next++
    const body = encodeMessage({
      id,
      namespace,
      member,
      argsJson: stringifyJsonValue(args),
      ...(call === undefined ? {} : { index: call.index }),
    })
    return new Promise<CallReply>((resolve, reject) => {
      const send = (): void => {
        if (this.#connection.isClosed()) {
          finish()
          reject(new Error(`${label}: the call could not reach the caller (the connection is closed).`))
          return
        }
        try {
          this.#connection.publish(runReplySubject(this.#reply, 'call'), this.#channel.seal('call', body), {
            reply: this.#answerInbox,
          })
        } catch {
          // Reconnecting: asked again below.
        }
      }
      const again = setInterval(send, this.#lostAfterMs)
      const onAbort = (): void => {
        finish()
        reject(new Error(`${label}: the run was stopped.`))
      }
      const finish = (): void => {
        clearInterval(again)
        signal.removeEventListener('abort', onAbort)
        this.#waiting.delete(id)
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.#waiting.set(id, answer => {
        finish()
        resolve(answer)
      })
      send()
    })
  }
}
