/**
 * The door of `serve --http`: a request's bearer token, verified, becomes the principal it stands
 * for; a request without one, or with one not valid here, is answered 401 with a
 * `WWW-Authenticate` challenge (naming the server's RFC 9728 metadata under OAuth), and a valid
 * token without the required scope 403 `insufficient_scope`. The challenge and the scope check
 * are the SDK's (`requireBearerAuth`); which tokens are valid is ours (auth/).
 */
import { OAuthError, OAuthErrorCode, requireBearerAuth, type AuthInfo } from '@modelcontextprotocol/server'
import { TokenRefusal, type Principal, type TokenVerifier } from '../auth/principal.js'

/** A request let in: who it is, and what the SDK hands the handlers. */
export interface AdmittedRequest {
  readonly principal: Principal
  readonly authInfo: AuthInfo
}

/** The gate of every MCP request: a principal, or the answer that refuses the request. */
export type TokenGate = (request: Request) => Promise<AdmittedRequest | Response>

/** The principal the server names callers by when it runs without authentication (loopback only, unless told otherwise). */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({ name: 'anonymous', scopes: [], via: 'key' })

/**
 * How long one verification of a key holds for the SDK, in seconds. The SDK refuses a token without
 * an expiry; a key has none, and every request verifies it again.
 */
const KEY_VERIFICATION_S = 300

/** Options of {@link tokenGate}. */
export interface TokenGateOptions {
  readonly verifier: TokenVerifier
  /** Scopes a token must grant (403 otherwise); none for a keys file. */
  readonly requiredScopes?: readonly string[]
  /** The server's RFC 9728 metadata, named in every challenge (OAuth only). */
  readonly resourceMetadataUrl?: string
}

/** The gate of a server that authenticates its callers. */
export function tokenGate(options: TokenGateOptions): TokenGate {
  // Our verifier's principals, by the token verification they came from: the SDK may hand back a
  // copy of what the verifier returned, never something else with the same `extra`.
  const principals = new WeakMap<object, Principal>()
  const gate = requireBearerAuth({
    verifier: {
      async verifyAccessToken(token) {
        let principal: Principal
        try {
          principal = await options.verifier.verify(token)
        } catch (error) {
          if (error instanceof TokenRefusal) throw new OAuthError(OAuthErrorCode.InvalidToken, error.message)
          throw error
        }
        const extra = {}
        principals.set(extra, principal)
        const authInfo: AuthInfo = {
          token,
          clientId: principal.name,
          scopes: [...principal.scopes],
          expiresAt: principal.expiresAt ?? Math.floor(Date.now() / 1000) + KEY_VERIFICATION_S,
          extra,
        }
        return authInfo
      },
    },
    ...(options.requiredScopes === undefined || options.requiredScopes.length === 0
      ? {}
      : { requiredScopes: [...options.requiredScopes] }),
    ...(options.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: options.resourceMetadataUrl }),
  })
  return async request => {
    const answer = await gate(request)
    if (answer instanceof Response) return answer
    const principal = answer.extra === undefined ? undefined : principals.get(answer.extra)
    // The SDK hands back what our verifier made; anything else is not a caller we know.
    if (principal === undefined) return new Response('Unauthorized', { status: 401 })
    return { principal, authInfo: answer }
  }
}

/** The gate of a server without authentication: everyone is {@link ANONYMOUS_PRINCIPAL}. */
export function openGate(): TokenGate {
  const authInfo: AuthInfo = { token: '', clientId: ANONYMOUS_PRINCIPAL.name, scopes: [] }
  return () => Promise.resolve({ principal: ANONYMOUS_PRINCIPAL, authInfo })
}
