/**
 * What makes a run's messages the run's own: a key only its caller and its runner know, and a
 * seal (HMAC-SHA256 and a sequence number) on every message between them.
 *
 * Each side holds one X25519 key pair for its life. The claim answer carries the runner's public
 * key, the start the caller's; each side derives the run's key from its private key and the
 * other's public key (Diffie–Hellman, then HKDF with the run's id), so a party that reads every
 * message on the bus still cannot compute it. A message is `seal (32 bytes) | sequence (8 bytes) |
 * body`; the seal covers the direction, the message kind, the sequence and the body, so a message
 * cannot be forged, moved to another kind or another run, sent back to its sender, or replayed
 * (each side accepts each sequence once, within a window of the last {@link REPLAY_WINDOW}: a
 * request's answer and a subscription's message of one sender may be handled out of order).
 */
import {
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto'

/** An id nobody can guess or derive from another: 128 bits from the system's random source, as one subject token. */
export function randomId(): string {
  return randomBytes(16).toString('base64url')
}

const SEAL_BYTES = 32
const SEQUENCE_BYTES = 8
const HEADER_BYTES = SEAL_BYTES + SEQUENCE_BYTES
/** How far behind the highest sequence accepted a message may still come, once. */
export const REPLAY_WINDOW = 64
const KEY_INFO = 'code-runtime nats v2 conversation key'
/** A base64url X25519 public key: 32 bytes. */
const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** Peers whose Diffie–Hellman secret is kept; a peer past them is computed again. */
const SHARED_SECRETS_KEPT = 256

/** One side's long-lived X25519 key pair; `publicKey` travels in claims and starts. */
export class KeyAgreement {
  readonly publicKey: string
  readonly #privateKey: KeyObject
  // The secret with each recent peer, least recently used first: a run then costs one HKDF, not a key exchange.
  readonly #shared = new Map<string, Buffer>()

  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('x25519')
    this.#privateKey = privateKey
    this.publicKey = publicKey.export({ format: 'jwk' }).x as string
  }

  /**
   * The key of one conversation (a run, a session) with the holder of `peerPublicKey`; `undefined`
   * when that is not an X25519 public key (or a degenerate one), so a forged key is refused, not thrown.
   */
  conversationKey(peerPublicKey: string, conversation: string): Buffer | undefined {
    const shared = this.#sharedWith(peerPublicKey)
    return shared === undefined ? undefined : deriveKey(shared, conversation)
  }

  #sharedWith(peerPublicKey: string): Buffer | undefined {
    const known = this.#shared.get(peerPublicKey)
    if (known !== undefined) {
      this.#shared.delete(peerPublicKey)
      this.#shared.set(peerPublicKey, known)
      return known
    }
    if (!PUBLIC_KEY_PATTERN.test(peerPublicKey)) return undefined
    let shared: Buffer
    try {
      const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: peerPublicKey }, format: 'jwk' })
      shared = diffieHellman({ privateKey: this.#privateKey, publicKey: peer })
    } catch {
      return undefined
    }
    if (this.#shared.size >= SHARED_SECRETS_KEPT) this.#shared.delete(this.#shared.keys().next().value as string)
    this.#shared.set(peerPublicKey, shared)
    return shared
  }
}

/** A key for a conversation inside another one (a run in a session), from the outer key and the inner id. */
export function deriveKey(secret: Uint8Array, conversation: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, conversation, KEY_INFO, 32))
}

/** The two parties of a run; the seal names the sender, so a message is never accepted back by it. */
export type Party = 'caller' | 'runner'

/** Forged or replayed messages dropped, counted where an operator can read them. */
export interface RejectionCounter {
  rejected: number
}

/**
 * One conversation's seals, as one party sees them: `seal` what this side sends, `open` what the
 * other sends. Sequences start at 1 each way.
 */
export class SealedChannel {
  readonly #key: Buffer
  readonly #self: Party
  readonly #rejections: RejectionCounter
  #sent = 0
  #highest = 0
  // Bit i set: sequence #highest - i was accepted.
  #accepted = 0n

  constructor(key: Buffer, self: Party, rejections: RejectionCounter) {
    this.#key = key
    this.#self = self
    this.#rejections = rejections
  }

  /** The key, for conversations nested in this one. */
  get key(): Buffer {
    return this.#key
  }

  /** The message `body` of `kind`, sealed by this side. */
  seal(kind: string, body: Uint8Array = new Uint8Array(0)): Uint8Array {
    const sequence = ++this.#sent
    const message = new Uint8Array(HEADER_BYTES + body.length)
    new DataView(message.buffer).setBigUint64(SEAL_BYTES, BigInt(sequence))
    message.set(body, HEADER_BYTES)
    message.set(this.#mac(this.#self, kind, message), 0)
    return message
  }

  /**
   * The body of a message of `kind` sent by the other side, or `undefined` (counted as rejected)
   * when its seal does not verify or its sequence is not past the last one accepted.
   */
  open(kind: string, data: Uint8Array): Uint8Array | undefined {
    const body = this.peek(kind, data)
    if (body === undefined) this.#rejections.rejected++
    return body
  }

  /** As `open`, without counting a rejection: for messages that may be meant for another conversation. */
  peek(kind: string, data: Uint8Array): Uint8Array | undefined {
    if (data.length < HEADER_BYTES) return undefined
    const expected = this.#mac(this.#self === 'caller' ? 'runner' : 'caller', kind, data)
    if (!timingSafeEqual(expected, data.subarray(0, SEAL_BYTES))) return undefined
    const sequence = Number(new DataView(data.buffer, data.byteOffset, data.length).getBigUint64(SEAL_BYTES))
    if (!this.#accept(sequence)) return undefined
    return data.subarray(HEADER_BYTES)
  }

  /** Records `sequence` as heard; false when it was heard before or is too old to tell. */
  #accept(sequence: number): boolean {
    if (sequence > this.#highest) {
      const shift = sequence - this.#highest
      this.#accepted =
        shift >= REPLAY_WINDOW ? 1n : ((this.#accepted << BigInt(shift)) | 1n) & ((1n << BigInt(REPLAY_WINDOW)) - 1n)
      this.#highest = sequence
      return true
    }
    const behind = this.#highest - sequence
    if (sequence <= 0 || behind >= REPLAY_WINDOW) return false
    const bit = 1n << BigInt(behind)
    if ((this.#accepted & bit) !== 0n) return false
    this.#accepted |= bit
    return true
  }

  // The seal covers the sequence and the body: everything after the seal itself.
  #mac(sender: Party, kind: string, message: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(`${sender}\n${kind}\n`).update(message.subarray(SEAL_BYTES)).digest()
  }
}

/** The body of a sealed message, unverified: for a start, whose key comes from its own body. */
export function unsealedBody(data: Uint8Array): Uint8Array | undefined {
  return data.length < HEADER_BYTES ? undefined : data.subarray(HEADER_BYTES)
}

/**
 * A runner's ticket for a claim: proof, at the start, that the caller read the claim's answer on
 * the inbox it names (NATS lets a tenant read only its own), bound to the run and to a time window.
 * Stateless on the runner: a claim holds nothing until its start comes.
 */
export class ClaimTickets {
  readonly #secret = randomBytes(32)
  readonly #windowMs: number

  constructor(windowMs: number) {
    this.#windowMs = windowMs
  }

  issue(run: string, identity: string, now = performance.now()): string {
    return this.#ticket(run, identity, Math.floor(now / this.#windowMs))
  }

  /** True when `ticket` was issued for this run and identity in this window or the one before. */
  verify(ticket: string, run: string, identity: string, now = performance.now()): boolean {
    const window = Math.floor(now / this.#windowMs)
    const given = Buffer.from(ticket)
    return [window, window - 1].some(candidate => {
      const expected = Buffer.from(this.#ticket(run, identity, candidate))
      return expected.length === given.length && timingSafeEqual(expected, given)
    })
  }

  #ticket(run: string, identity: string, window: number): string {
    return createHmac('sha256', this.#secret).update(`${run}\n${identity}\n${window}`).digest('base64url')
  }
}

/**
 * Who a reply subject belongs to: its first two tokens, `_INBOX.<tenant>` in the layout
 * docs/SCALING.md gives each tenant. Claims and runs are limited per identity.
 */
export function callerIdentity(reply: string): string {
  return reply.split('.').slice(0, 2).join('.')
}
