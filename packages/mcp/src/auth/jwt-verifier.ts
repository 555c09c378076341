/**
 * `--auth-issuer URL --auth-audience URI`: `serve --http` as an OAuth 2.1 resource server (the
 * MCP authorization spec). An access token is a JWT the issuer signed: its signature is checked
 * against the issuer's published keys (JWKS: `--auth-jwks` URL or file, else the `jwks_uri` of
 * the issuer's metadata, RFC 8414 or OpenID discovery), then `iss`, `aud` (this server's resource
 * URI, RFC 8707), `exp` and `nbf` (with a small clock skew), and `sub`, the principal. Only
 * asymmetric algorithms are accepted, never `none` or a shared secret. Verification is `jose`'s;
 * nothing here parses a token by hand.
 */
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose'
import { McpProxyError } from '../errors.js'
import { TokenRefusal, type Principal, type TokenVerifier } from './principal.js'

/** The signature algorithms accepted unless `algorithms` says otherwise: asymmetric ones only. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
])

/** Clock skew allowed on `exp` and `nbf`, in seconds. */
export const DEFAULT_CLOCK_TOLERANCE_S = 30

/** How long the issuer's metadata or keys may take to arrive, in milliseconds. */
const FETCH_TIMEOUT_MS = 10_000

/** Options of {@link createJwtVerifier}. */
export interface JwtVerifierOptions {
  /** The issuer's identifier, exactly as tokens carry it in `iss` (an https URL; http only on loopback). */
  readonly issuer: string
  /** This server's resource URI, which tokens must carry in `aud`. */
  readonly audience: string
  /** Where the issuer's keys are: a URL, or the path of a JWKS file; discovered from the issuer when absent. */
  readonly jwks?: string
  /** Accepted signature algorithms; {@link DEFAULT_JWT_ALGORITHMS} when absent. `none` and `HS*` are refused. */
  readonly algorithms?: readonly string[]
  /** Allowed clock skew on `exp` and `nbf`, in seconds; {@link DEFAULT_CLOCK_TOLERANCE_S} when absent. */
  readonly clockToleranceS?: number
}

function setupError(message: string, field: string, value: unknown): McpProxyError {
  return new McpProxyError('MCP_PROXY_AUTH_SETUP', message, { field, value })
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

/** Parses `text` as a URL the server may fetch keys from: https, or http on loopback. */
function fetchableUrl(text: string, field: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw setupError(`--${field} must be a URL; got ${JSON.stringify(text)}.`, field, text)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw setupError(`--${field} must be an https URL (http only on loopback); got ${text}.`, field, text)
  }
  return url
}

/** The metadata documents that may name the issuer's `jwks_uri`: RFC 8414 first, then OpenID discovery. */
export function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '')
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ]
}

async function fetchJson(url: URL): Promise<unknown> {
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  })
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  return (await response.json()) as unknown
}

/** The issuer's metadata document, as it published it (RFC 8414 or OpenID discovery). */
export type IssuerMetadata = Readonly<Record<string, unknown>> & { readonly issuer: string }

/**
 * Fetches the issuer's metadata, whose `issuer` must be the one configured (RFC 8414 §3.3): the
 * resource server names it to clients (RFC 9728) and finds the issuer's keys in it.
 */
async function discoverIssuer(issuer: URL, issuerText: string): Promise<IssuerMetadata> {
  const failures: string[] = []
  for (const url of metadataUrls(issuer)) {
    let metadata: unknown
    try {
      metadata = await fetchJson(url)
    } catch (error) {
      failures.push(`${url.href}: ${error instanceof Error ? error.message : String(error)}`)
      continue
    }
    const named = (metadata as { issuer?: unknown } | null)?.issuer
    if (named !== issuerText) {
      throw setupError(
        `the metadata at ${url.href} names issuer ${JSON.stringify(named)}, not ${issuerText}.`,
        'auth-issuer',
        issuerText,
      )
    }
    return metadata as IssuerMetadata
  }
  throw setupError(
    `the issuer's metadata cannot be had (${failures.join('; ')}); check --auth-issuer.`,
    'auth-issuer',
    issuerText,
  )
}

function readJwksFile(path: string): JSONWebKeySet {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown
  } catch (error) {
    throw setupError(
      `--auth-jwks ${path} cannot be read as JSON (${error instanceof Error ? error.message : String(error)}).`,
      'auth-jwks',
      path,
    )
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys
  if (!Array.isArray(keys) || keys.length === 0) {
    throw setupError(
      `--auth-jwks ${path} is not a JWK set (an object with a non-empty "keys" array).`,
      'auth-jwks',
      path,
    )
  }
  return parsed as JSONWebKeySet
}

function checkedAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0)
    throw setupError('at least one JWT algorithm must be accepted.', 'algorithms', algorithms)
  for (const algorithm of algorithms) {
    if (!DEFAULT_JWT_ALGORITHMS.includes(algorithm)) {
      throw setupError(
        `the JWT algorithm ${JSON.stringify(algorithm)} is not accepted; choose from ${DEFAULT_JWT_ALGORITHMS.join(', ')}.`,
        'algorithms',
        algorithms,
      )
    }
  }
  return [...algorithms]
}

/** The scopes a token grants: `scope` (space-separated, RFC 9068) or `scp` (a list or a string). */
export function grantedScopes(payload: JWTPayload): string[] {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown }
  if (typeof scope === 'string') return scope.split(' ').filter(part => part !== '')
  if (Array.isArray(scp)) return scp.filter((part): part is string => typeof part === 'string')
  if (typeof scp === 'string') return scp.split(' ').filter(part => part !== '')
  return []
}

/** The refusal for a token jose did not accept, named by jose's stable error codes. */
function refusalOf(error: unknown): TokenRefusal {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown }
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new TokenRefusal('The token has expired.')
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return new TokenRefusal('The token is not valid yet.')
      if (claim === 'aud') return new TokenRefusal('The token is for another audience.')
      if (claim === 'iss') return new TokenRefusal('The token is from another issuer.')
      return new TokenRefusal(`The token's ${String(claim)} claim is not valid.`)
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new TokenRefusal("The token's signature algorithm is not accepted.")
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new TokenRefusal("No key of the issuer matches the token's key id.")
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new TokenRefusal("The token's signature is not the issuer's.")
    case 'ERR_JWKS_TIMEOUT':
      return new TokenRefusal("The issuer's keys could not be had in time; try again.")
    default:
      return new TokenRefusal('The token is not a valid access token here.')
  }
}

/** What {@link createJwtVerifier} made: the verifier, and the issuer's metadata for the server's own. */
export interface JwtVerification {
  readonly verifier: TokenVerifier
  readonly issuerMetadata: IssuerMetadata
}

/**
 * The verifier of the issuer's tokens. Fetches the issuer's metadata and keys now, so that a wrong
 * issuer is said at start, not at the first request. Scopes are the server's to require: the
 * principal lists what the token grants.
 * @throws {McpProxyError} `MCP_PROXY_AUTH_SETUP` for a malformed URL, an issuer whose metadata
 *   cannot be had or names another issuer, an unreadable JWKS file, or an algorithm not accepted.
 */
export async function createJwtVerifier(options: JwtVerifierOptions): Promise<JwtVerification> {
  const issuer = fetchableUrl(options.issuer, 'auth-issuer')
  try {
    new URL(options.audience)
  } catch {
    throw setupError(
      `--auth-audience must be this server's resource URI (its https URL); got ${JSON.stringify(options.audience)}.`,
      'auth-audience',
      options.audience,
    )
  }
  const algorithms = checkedAlgorithms(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)
  const clockTolerance = options.clockToleranceS ?? DEFAULT_CLOCK_TOLERANCE_S
  const issuerMetadata = await discoverIssuer(issuer, options.issuer)
  let keys: JWTVerifyGetKey
  if (options.jwks !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(options.jwks)) {
    keys = createLocalJWKSet(readJwksFile(options.jwks))
  } else {
    const named = options.jwks ?? issuerMetadata.jwks_uri
    if (typeof named !== 'string') {
      throw setupError(`the issuer's metadata has no jwks_uri; pass --auth-jwks.`, 'auth-issuer', options.issuer)
    }
    const jwksUrl = fetchableUrl(named, 'auth-jwks')
    const remote = createRemoteJWKSet(jwksUrl, { timeoutDuration: FETCH_TIMEOUT_MS })
    // Fetched now, so that keys that cannot be had are said at start; jose refetches them later
    // when a token names a key id it does not know (the issuer rotated its keys).
    try {
      await remote.reload()
    } catch (error) {
      throw setupError(
        `the issuer's keys at ${jwksUrl.href} cannot be had (${error instanceof Error ? error.message : String(error)}).`,
        'auth-jwks',
        jwksUrl.href,
      )
    }
    keys = remote
  }
  const verifier: TokenVerifier = {
    async verify(token) {
      let payload: JWTPayload
      try {
        ;({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms,
          clockTolerance,
          requiredClaims: ['exp', 'sub'],
        }))
      } catch (error) {
        throw refusalOf(error)
      }
      const name = payload.sub
      if (typeof name !== 'string' || name === '') throw new TokenRefusal('The token names no subject.')
      const principal: Principal = {
        name,
        scopes: grantedScopes(payload),
        expiresAt: payload.exp as number,
        via: 'jwt',
      }
      return principal
    },
  }
  return { verifier, issuerMetadata }
}
