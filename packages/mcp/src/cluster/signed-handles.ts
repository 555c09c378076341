/**
 * Session handles any gateway node can read: the handle names where the session lives (its
 * runner's address, from `@code-runtime/nats`) and carries a MAC over that address and the
 * principal it was given to, under a key every node shares. No node keeps a table of handles, so
 * a client's next call may land on any node; a handle altered, made up, or sent by another
 * principal does not verify, and names nothing. The address is not secret (it names a runner and
 * a random anchor; taking the session over needs a proof only gateway nodes can make).
 *
 * Shape: `c` + 22 characters of MAC + the address in base64url, all within the characters
 * `run_code`'s `session` field takes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

const PREFIX = 'c'
const MAC_CHARS = 22

export class SignedHandles {
  readonly #key: Uint8Array

  constructor(key: Uint8Array) {
    this.#key = key
  }

  #mac(address: string, principal: string): string {
    return createHmac('sha256', this.#key)
      .update(`session handle\0${principal}\0${address}`)
      .digest('base64url')
      .slice(0, MAC_CHARS)
  }

  /** The handle of the session at `address`, for `principal`. */
  seal(address: string, principal: string): string {
    return `${PREFIX}${this.#mac(address, principal)}${Buffer.from(address, 'utf8').toString('base64url')}`
  }

  /** The address `handle` names, when it is a handle this deployment gave `principal`; otherwise `undefined`. */
  open(handle: string, principal: string): string | undefined {
    if (!handle.startsWith(PREFIX) || handle.length <= PREFIX.length + MAC_CHARS) return undefined
    const mac = handle.slice(PREFIX.length, PREFIX.length + MAC_CHARS)
    const encoded = handle.slice(PREFIX.length + MAC_CHARS)
    if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined
    const address = Buffer.from(encoded, 'base64url').toString('utf8')
    // Only the one encoding of an address verifies: a re-encoded variant is another handle.
    if (Buffer.from(address, 'utf8').toString('base64url') !== encoded) return undefined
    const expected = Buffer.from(this.#mac(address, principal))
    const given = Buffer.from(mac)
    return given.length === expected.length && timingSafeEqual(given, expected) ? address : undefined
  }
}
