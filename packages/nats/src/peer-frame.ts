/**
 * The frames of the peer bus (peer-bus.ts), and what makes them a node's own: an HMAC-SHA256
 * under a key derived from the deployment's shared key. A request is
 * `mac (32) | nonce (16) | timestamp ms (8) | body`; an answer is the same with a status byte
 * before the body. The MAC covers the direction, the target node, the kind and everything after
 * itself, and an answer's also the nonce of the request it answers, so an answer cannot be taken
 * for another request's, nor a request sent to another node or kind.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

const MAC_BYTES = 32
const NONCE_BYTES = 16
const TIME_BYTES = 8
/** Bytes a request adds to its body; an answer adds one more (its status). */
export const REQUEST_OVERHEAD_BYTES = MAC_BYTES + NONCE_BYTES + TIME_BYTES
const ANSWER_HEADER_BYTES = REQUEST_OVERHEAD_BYTES + 1

/** Where a request is going: the node that serves it and the kind of request. */
export interface PeerRoute {
  readonly node: string
  readonly kind: string
}

/** A request as the receiver reads it, once its MAC verified. */
export interface PeerRequest {
  readonly nonce: Buffer
  readonly timeMs: number
  readonly body: Uint8Array
}

/** An answer, once its MAC verified: the handler's bytes, or the message it threw. */
export type PeerAnswer =
  { readonly ok: true; readonly body: Uint8Array } | { readonly ok: false; readonly message: string }

/** The MAC key, so the shared key itself never keys anything of the wire. */
export function derivePeerKey(key: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', key, 'code-runtime peer bus', 'code-runtime peer bus v1 mac', 32))
}

function mac(
  key: Buffer,
  direction: 'request' | 'answer',
  route: PeerRoute,
  bound: Uint8Array,
  rest: Uint8Array,
): Buffer {
  return createHmac('sha256', key)
    .update(`${direction}\n${route.node}\n${route.kind}\n`)
    .update(bound)
    .update(rest)
    .digest()
}

function frame(
  key: Buffer,
  direction: 'request' | 'answer',
  route: PeerRoute,
  bound: Uint8Array,
  prefix: Uint8Array,
  body: Uint8Array,
): { frame: Uint8Array; nonce: Buffer } {
  const nonce = randomBytes(NONCE_BYTES)
  const message = new Uint8Array(MAC_BYTES + NONCE_BYTES + TIME_BYTES + prefix.length + body.length)
  message.set(nonce, MAC_BYTES)
  new DataView(message.buffer).setFloat64(MAC_BYTES + NONCE_BYTES, Date.now())
  message.set(prefix, REQUEST_OVERHEAD_BYTES)
  message.set(body, REQUEST_OVERHEAD_BYTES + prefix.length)
  message.set(mac(key, direction, route, bound, message.subarray(MAC_BYTES)), 0)
  return { frame: message, nonce }
}

function verified(
  key: Buffer,
  direction: 'request' | 'answer',
  route: PeerRoute,
  bound: Uint8Array,
  data: Uint8Array,
  headerBytes: number,
): boolean {
  if (data.length < headerBytes) return false
  return timingSafeEqual(mac(key, direction, route, bound, data.subarray(MAC_BYTES)), data.subarray(0, MAC_BYTES))
}

export function encodePeerRequest(
  key: Buffer,
  route: PeerRoute,
  body: Uint8Array,
): { frame: Uint8Array; nonce: Buffer } {
  return frame(key, 'request', route, new Uint8Array(0), new Uint8Array(0), body)
}

/** The request, or `undefined` when its MAC does not verify for this node and kind. */
export function decodePeerRequest(key: Buffer, route: PeerRoute, data: Uint8Array): PeerRequest | undefined {
  if (!verified(key, 'request', route, new Uint8Array(0), data, REQUEST_OVERHEAD_BYTES)) return undefined
  return {
    nonce: Buffer.from(data.subarray(MAC_BYTES, MAC_BYTES + NONCE_BYTES)),
    timeMs: new DataView(data.buffer, data.byteOffset, data.length).getFloat64(MAC_BYTES + NONCE_BYTES),
    body: data.subarray(REQUEST_OVERHEAD_BYTES),
  }
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export function encodePeerAnswer(
  key: Buffer,
  route: PeerRoute,
  requestNonce: Uint8Array,
  answer: PeerAnswer,
): Uint8Array {
  const body = answer.ok ? answer.body : encoder.encode(answer.message)
  return frame(key, 'answer', route, requestNonce, Uint8Array.of(answer.ok ? 0 : 1), body).frame
}

/** The answer to the request of `requestNonce`, or `undefined` when it is not one (forged, or for another request). */
export function decodePeerAnswer(
  key: Buffer,
  route: PeerRoute,
  requestNonce: Uint8Array,
  data: Uint8Array,
): PeerAnswer | undefined {
  if (!verified(key, 'answer', route, requestNonce, data, ANSWER_HEADER_BYTES)) return undefined
  const status = data[REQUEST_OVERHEAD_BYTES]
  const body = data.subarray(ANSWER_HEADER_BYTES)
  if (status === 0) return { ok: true, body: Uint8Array.from(body) }
  return status === 1 ? { ok: false, message: decoder.decode(body) } : undefined
}
