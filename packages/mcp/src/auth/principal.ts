/**
 * Who asked: the identity a verified bearer token stands for on a shared `serve --http`. Every
 * run, session, approval and audit line belongs to one. Verifiers make them; nothing else does.
 */

/** A caller the server has authenticated. */
export interface Principal {
  /** The stable name: a JWT's `sub`, or the name of a key in the keys file. */
  readonly name: string
  /** The scopes the token grants (empty for a key of the keys file, which grants the whole server). */
  readonly scopes: readonly string[]
  /** When the token stops being valid, in seconds since the epoch (absent for a key, which does not expire). */
  readonly expiresAt?: number
  /** How the caller was authenticated. */
  readonly via: 'jwt' | 'key'
}

/**
 * A token that is not valid here (missing, malformed, expired, not ours): RFC 6750's
 * `invalid_token`, answered with 401. A valid token without a required scope is the server's to
 * answer (403), not the verifier's.
 */
export class TokenRefusal extends Error {
  readonly reason = 'invalid_token'

  constructor(message: string) {
    super(message)
    this.name = 'TokenRefusal'
  }
}

/** Turns a bearer token into the principal it stands for, or refuses it. */
export interface TokenVerifier {
  /** @throws {TokenRefusal} for a token that is not valid here, never anything else for a bad token. */
  verify(token: string): Promise<Principal>
}
