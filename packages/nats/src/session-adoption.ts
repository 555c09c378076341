/**
 * What makes a session adoptable by another caller of the same deployment: a proof only holders
 * of the deployment's `adoptionKey` can compute, and an address that names where the session is.
 *
 * The caller that opens the session picks a random anchor and sends the runner only the SHA-256
 * of the proof, so the runner (and whoever reads its subjects) never learns the proof from the
 * open. An adopter computes the proof from the key and the anchor in the address, and sends it
 * masked with a pad derived from the adoption's own Diffie–Hellman conversation key: only that
 * runner can unmask it, so a proof seen on the bus cannot be used again by a third party.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { CodeRuntimeError } from '@code-runtime/core'
import { deriveKey } from './message-seal.js'
import { SUBJECT_TOKEN_PATTERN } from './subjects.js'

/** Fewest bytes an adoption key may have: the HMAC's own key size. */
export const MIN_ADOPTION_KEY_BYTES = 32
/** Most UTF-8 bytes a session's memo may have. */
export const MAX_MEMO_BYTES = 512 * 1024

const PROOF_LABEL = 'code-runtime session adoption\0'
const PROOF_BYTES = 32
/** A base64url SHA-256 (or proof): 32 bytes. */
const DIGEST_PATTERN = /^[A-Za-z0-9_-]{43}$/
const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/
/** Between the address's parts: a character neither a subject token nor base64url uses. */
const ADDRESS_SEPARATOR = '.'

/** The proof that opens the session anchored at `anchor` to an adopter: HMAC-SHA256 under the deployment's key. */
export function adoptionProof(adoptionKey: Uint8Array, anchor: string): Buffer {
  return createHmac('sha256', adoptionKey).update(`${PROOF_LABEL}${anchor}`).digest()
}

/** What the runner keeps of a proof: its SHA-256, base64url, as `session-open` carries it. */
export function proofDigest(proof: Uint8Array): string {
  return createHash('sha256').update(proof).digest('base64url')
}

/** True for a base64url SHA-256, as `session-open` carries one. */
export function isDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST_PATTERN.test(value)
}

/** True when `proof` hashes to `digest`, compared in constant time. */
export function isProofOf(proof: Uint8Array, digest: string): boolean {
  const expected = Buffer.from(digest, 'base64url')
  const given = createHash('sha256').update(proof).digest()
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/**
 * The proof masked (or unmasked: the same operation) for one adoption's conversation: XOR with a
 * pad derived from its key. Each adoption is a fresh conversation id, so a pad is used once.
 */
export function maskProof(proof: Uint8Array, conversationKey: Uint8Array): Buffer {
  const pad = deriveKey(conversationKey, 'session adoption proof')
  return Buffer.from(Array.from({ length: PROOF_BYTES }, (_unused, index) => (proof[index] ?? 0) ^ (pad[index] ?? 0)))
}

/** A masked proof as it travels: base64url of 32 bytes; anything else is not one. */
export function decodeMaskedProof(value: unknown): Buffer | undefined {
  return isDigest(value) ? Buffer.from(value, 'base64url') : undefined
}

/** Where an adoptable session is: its runner, the runner's public key, and the session's anchor. */
export interface SessionAddress {
  readonly runner: string
  readonly key: string
  readonly anchor: string
}

/** The address as one opaque token: `<runner>.<key>.<anchor>`, at most 195 characters. */
export function formatSessionAddress(address: SessionAddress): string {
  return [address.runner, address.key, address.anchor].join(ADDRESS_SEPARATOR)
}

/**
 * The parts of an address `formatSessionAddress` wrote.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` for anything else.
 */
export function parseSessionAddress(address: unknown): SessionAddress {
  const parts = typeof address === 'string' && address.length <= 200 ? address.split(ADDRESS_SEPARATOR) : []
  const [runner, key, anchor] = parts
  if (
    parts.length !== 3 ||
    runner === undefined ||
    !SUBJECT_TOKEN_PATTERN.test(runner) ||
    key === undefined ||
    !PUBLIC_KEY_PATTERN.test(key) ||
    anchor === undefined ||
    !SUBJECT_TOKEN_PATTERN.test(anchor)
  ) {
    throw new CodeRuntimeError(
      'CODE_RUNTIME_INVALID_REQUEST',
      "adoptSession: the address is not a session's address; pass session.address as the session's holder read it.",
      { field: 'address' },
    )
  }
  return { runner, key, anchor }
}
