/**
 * A bus between the callers of one deployment (gateway nodes): a node serves kinds of request
 * on `<prefix>.gateway.<node>.<kind>` and asks other nodes by name, the answer coming back on an
 * inbox of the asker's own prefix (so a tenant's permissions hold). Every request and answer is
 * authenticated (peer-frame.ts) under the key every node shares; a receiver drops forged, stale
 * (outside ±60 s) and replayed requests unread, and an asker ignores answers that are not its
 * request's, and keeps waiting, so a forged answer sent first never wins.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node'
import { CodeRuntimeError } from '@code-runtime/core'
import { readConfigObject, refuseConfigField, thrownMessage, timerDelayMs } from '@code-runtime/core/internal'
import { CONNECTION_FIELDS, readAdoptionKey, readConnectionFields, type NatsConnectionConfig } from './config.js'
import { connectNats } from './connection.js'
import { randomId } from './message-seal.js'
import {
  decodePeerAnswer,
  decodePeerRequest,
  derivePeerKey,
  encodePeerAnswer,
  encodePeerRequest,
  REQUEST_OVERHEAD_BYTES,
  type PeerRoute,
} from './peer-frame.js'
import { SUBJECT_TOKEN_PATTERN } from './subjects.js'

/** How far a request's timestamp may be from the receiver's clock. */
export const PEER_CLOCK_SKEW_MS = 60_000
/** How long a request's nonce is remembered: past it, the request is stale anyway. */
const NONCE_KEPT_MS = 2 * PEER_CLOCK_SKEW_MS
/** The server's default `max_payload`, used until the server said its own. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024

/** Options of {@link connectPeerBus}. */
export interface PeerBusOptions {
  /** How to reach NATS, as a caller's config does; `inboxPrefix` is honoured for answers. */
  readonly nats: Partial<Omit<NatsConnectionConfig, 'servers'>> & { readonly servers: string | readonly string[] }
  /** This node's name: one subject token, unique in the deployment. */
  readonly node: string
  /** The deployment's shared secret (at least 32 bytes), the same on every node. */
  readonly key: Uint8Array
}

/** A node on the peer bus. */
export interface PeerBus {
  readonly node: string
  /** Requests dropped unread (forged, stale, replayed) and answers ignored (forged, or another request's). */
  readonly rejectedMessages: number
  /**
   * Answers requests of `kind` (a subject token) sent to this node; the handler's bytes are the
   * answer. A throwing handler answers a failure the asker rejects with. `signal` fires on close.
   * Resolves once the NATS server routes those requests here (before, an asker finds no
   * responders); it never rejects: a connection gone meanwhile shows in `ask`.
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` for a bad kind or one served already.
   */
  serve(kind: string, handler: (body: Uint8Array, signal: AbortSignal) => Promise<Uint8Array>): Promise<void>
  /**
   * Asks `node`; rejects with {@link PeerUnreachable} when no node `node` serves `kind` (no
   * responders) or it did not answer within `timeoutMs`, with {@link PeerFailed} when its handler
   * threw (its message), with the signal's reason when aborted, and with `CODE_RUNTIME_INVALID_REQUEST`
   * when the request would pass the server's `max_payload`.
   */
  ask(
    node: string,
    kind: string,
    body: Uint8Array,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<Uint8Array>
  /** Stops serving (handlers' signals fire), then disconnects. */
  close(): Promise<void>
}

/** The node asked is not there, or did not answer in time. */
export class PeerUnreachable extends Error {
  readonly node: string
  constructor(node: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'PeerUnreachable'
    this.node = node
  }
}

/** The node asked answered that its handler failed; the message is the handler's. */
export class PeerFailed extends Error {
  readonly node: string
  constructor(node: string, message: string) {
    super(message)
    this.name = 'PeerFailed'
    this.node = node
  }
}

function invalid(message: string, field: string): CodeRuntimeError {
  return new CodeRuntimeError('CODE_RUNTIME_INVALID_REQUEST', message, { field })
}

function gatewaySubject(prefix: string, route: PeerRoute): string {
  return `${prefix}.gateway.${route.node}.${route.kind}`
}

/** Nonces of requests accepted recently, each forgotten once its request would be stale anyway. */
class RecentNonces {
  // Insertion order is arrival order, so the oldest are first.
  readonly #until = new Map<string, number>()

  /** True the first time `nonce` is seen within the window. */
  isFirst(nonce: Buffer, now: number): boolean {
    for (const [seen, until] of this.#until) {
      if (until > now) break
      this.#until.delete(seen)
    }
    const text = nonce.toString('base64url')
    if (this.#until.has(text)) return false
    this.#until.set(text, now + NONCE_KEPT_MS)
    return true
  }
}

/**
 * Connects this node to the peer bus.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` for a bad node, key or connection field;
 *   `CODE_RUNTIME_UNAVAILABLE` when NATS cannot be reached.
 */
export async function connectPeerBus(options: PeerBusOptions): Promise<PeerBus> {
  const label = 'peerBus'
  const config = readConnectionFields(
    `${label}.nats`,
    readConfigObject(`${label}.nats`, options.nats, CONNECTION_FIELDS),
  )
  const { node } = options
  if (typeof node !== 'string' || !SUBJECT_TOKEN_PATTERN.test(node))
    refuseConfigField(label, 'node', 'must be one subject token: letters, digits, - and _', node)
  const key = readAdoptionKey(label, options.key, 'key')
  if (key === undefined) refuseConfigField(label, 'key', 'must be a Uint8Array of at least 32 random bytes', undefined)
  const macKey = derivePeerKey(key)
  const prefix = config.subjectPrefix
  const inboxPrefix = config.inboxPrefix ?? `_INBOX.${randomId()}`
  const connection: NatsConnection = await connectNats(config, `code-runtime gateway ${node}`, inboxPrefix)
  const rejections = { rejected: 0 }
  const nonces = new RecentNonces()
  const closing = new AbortController()
  const served = new Map<string, Subscription>()

  const maxPayload = (): number => connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES

  async function answer(
    message: Msg,
    route: PeerRoute,
    nonce: Buffer,
    handler: (body: Uint8Array, signal: AbortSignal) => Promise<Uint8Array>,
    body: Uint8Array,
  ): Promise<void> {
    let outcome: { ok: true; body: Uint8Array } | { ok: false; message: string }
    try {
      const bytes = await handler(body, closing.signal)
      outcome =
        bytes.length + REQUEST_OVERHEAD_BYTES + 1 > maxPayload()
          ? {
              ok: false,
              message: `The answer is ${bytes.length} bytes, past the NATS server's max_payload (${maxPayload()} bytes).`,
            }
          : { ok: true, body: bytes }
    } catch (error) {
      outcome = { ok: false, message: thrownMessage(error) }
    }
    try {
      message.respond(encodePeerAnswer(macKey, route, nonce, outcome))
    } catch {
      // Closed or reconnecting: the asker's timeout settles it.
    }
  }

  return {
    node,
    get rejectedMessages() {
      return rejections.rejected
    },

    serve(kind, handler) {
      if (typeof kind !== 'string' || !SUBJECT_TOKEN_PATTERN.test(kind))
        throw invalid('serve: kind must be one subject token: letters, digits, - and _.', 'kind')
      if (served.has(kind)) throw invalid(`serve: the kind ${kind} is served already on this node.`, 'kind')
      const route = { node, kind }
      served.set(
        kind,
        connection.subscribe(gatewaySubject(prefix, route), {
          callback: (error, message) => {
            // A permission refused (or a subscription closed) arrives as an error with no message.
            if (error !== null || closing.signal.aborted) return
            const request = decodePeerRequest(macKey, route, message.data)
            const now = Date.now()
            if (
              request === undefined ||
              message.reply === undefined ||
              !(Math.abs(now - request.timeMs) <= PEER_CLOCK_SKEW_MS) ||
              !nonces.isFirst(request.nonce, now)
            ) {
              rejections.rejected++
              return
            }
            void answer(message, route, request.nonce, handler, request.body)
          },
        }),
      )
      return connection.flush().catch(() => undefined)
    },

    ask(target, kind, body, { timeoutMs, signal }) {
      if (typeof target !== 'string' || !SUBJECT_TOKEN_PATTERN.test(target))
        return Promise.reject(invalid('ask: node must be one subject token.', 'node'))
      if (typeof kind !== 'string' || !SUBJECT_TOKEN_PATTERN.test(kind))
        return Promise.reject(invalid('ask: kind must be one subject token.', 'kind'))
      if (body.length + REQUEST_OVERHEAD_BYTES > maxPayload())
        return Promise.reject(
          invalid(
            `ask: the body is ${body.length} bytes; with its ${REQUEST_OVERHEAD_BYTES} bytes of header it passes the NATS server's max_payload (${maxPayload()} bytes).`,
            'body',
          ),
        )
      if (signal?.aborted === true) return Promise.reject(signal.reason)
      const route = { node: target, kind }
      const { frame, nonce } = encodePeerRequest(macKey, route, body)
      // An inbox of our own for this request alone: every message on it is looked at, and only
      // the answer that verifies for this request's nonce settles it.
      const inbox = createInbox(inboxPrefix)
      return new Promise<Uint8Array>((resolve, reject) => {
        const finish = (settle: () => void): void => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          subscription.unsubscribe()
          settle()
        }
        const onAbort = (): void => finish(() => reject(signal?.reason))
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(new PeerUnreachable(target, `The node ${target} did not answer within ${timeoutMs} ms.`)),
            ),
          timerDelayMs(timeoutMs),
        )
        signal?.addEventListener('abort', onAbort, { once: true })
        const subscription: Subscription = connection.subscribe(inbox, {
          callback: (error, message) => {
            if (error !== null) return
            // The server's "no responders": nobody serves this node and kind.
            if (message.data.length === 0 && message.headers?.code === 503) {
              finish(() => reject(new PeerUnreachable(target, `No node ${target} serves ${kind} (no responders).`)))
              return
            }
            const answered = decodePeerAnswer(macKey, route, nonce, message.data)
            if (answered === undefined) {
              rejections.rejected++
              return
            }
            finish(() => (answered.ok ? resolve(answered.body) : reject(new PeerFailed(target, answered.message))))
          },
        })
        try {
          connection.publish(gatewaySubject(prefix, route), frame, { reply: inbox })
        } catch (error) {
          finish(() =>
            reject(
              new PeerUnreachable(target, `The request to ${target} could not be sent: ${thrownMessage(error)}.`, {
                cause: error,
              }),
            ),
          )
        }
      })
    },

    async close() {
      if (closing.signal.aborted) return
      closing.abort(new Error('The peer bus closed.'))
      for (const subscription of served.values()) subscription.unsubscribe()
      served.clear()
      await connection.drain().catch(() => undefined)
    },
  }
}
