/**
 * What one login to one remote server leaves in the token store: the client registration, the
 * tokens, and what discovery found (the authorization server's metadata, the resource), so a
 * refresh needs no discovery. A file read back is decoded here, once, into our own record; a
 * file that does not decode is refused as a whole, never half-used.
 */
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client'
import { isObjectRecord } from '@code-runtime/core/internal'

/** The tokens of a login, with the moment the access token expires (absent: the server did not say). */
export interface StoredTokens {
  readonly accessToken: string
  readonly tokenType: string
  readonly refreshToken?: string
  readonly scope?: string
  /** When they were issued, in milliseconds since the epoch. */
  readonly obtainedAt: number
  /** Milliseconds since the epoch. */
  readonly expiresAt?: number
}

/** One login, keyed by server URL + issuer + resource. */
export interface StoredLogin {
  readonly serverUrl: string
  /** The authorization server's `issuer`. */
  readonly issuer: string
  /** The RFC 8707 resource indicator sent; '' when the server published none. */
  readonly resource: string
  /** The client as registered (dynamically, or from the config's `oauth.clientId`). */
  readonly client: StoredOAuthClientInformation
  /** The redirect URI the client was registered with. */
  readonly redirectUrl: string
  readonly discovery: OAuthDiscoveryState
  /** Absent once a refresh was refused (`invalid_grant`): the registration is kept for the next login. */
  readonly tokens?: StoredTokens
  /** Scopes the server asked for since (403 `insufficient_scope`), which the next login adds to its request. */
  readonly wantedScope?: string
  /** Milliseconds since the epoch. */
  readonly loggedInAt: number
}

/** The SDK's token answer as we keep it: the lifetime becomes a moment, so it means the same when read later. */
export function storedTokensFrom(tokens: StoredOAuthTokens, now: number): StoredTokens {
  return Object.freeze({
    accessToken: tokens.access_token,
    tokenType: tokens.token_type,
    ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
    obtainedAt: now,
    ...(typeof tokens.expires_in === 'number' ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
  })
}

function optionalString(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key]
  return typeof value === 'string' ? value : undefined
}

function decodeTokens(raw: unknown): StoredTokens | undefined {
  if (!isObjectRecord(raw)) return undefined
  const accessToken = optionalString(raw, 'accessToken')
  const tokenType = optionalString(raw, 'tokenType')
  if (accessToken === undefined || tokenType === undefined) return undefined
  const refreshToken = optionalString(raw, 'refreshToken')
  const scope = optionalString(raw, 'scope')
  const { expiresAt, obtainedAt } = raw
  if (typeof obtainedAt !== 'number') return undefined
  return Object.freeze({
    accessToken,
    tokenType,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
    obtainedAt,
    ...(typeof expiresAt === 'number' && Number.isFinite(expiresAt) ? { expiresAt } : {}),
  })
}

/** A stored login from a file's parsed JSON, or undefined when it is not one. */
export function decodeStoredLogin(raw: unknown): StoredLogin | undefined {
  if (!isObjectRecord(raw) || raw.version !== 1) return undefined
  const serverUrl = optionalString(raw, 'serverUrl')
  const issuer = optionalString(raw, 'issuer')
  const resource = optionalString(raw, 'resource')
  const redirectUrl = optionalString(raw, 'redirectUrl')
  const { client, discovery, loggedInAt } = raw
  const wantedScope = optionalString(raw, 'wantedScope')
  if (serverUrl === undefined || issuer === undefined || resource === undefined || redirectUrl === undefined)
    return undefined
  if (!isObjectRecord(client) || typeof client.client_id !== 'string') return undefined
  if (!isObjectRecord(discovery) || typeof discovery.authorizationServerUrl !== 'string') return undefined
  if (typeof loggedInAt !== 'number') return undefined
  const tokens = raw.tokens === undefined ? undefined : decodeTokens(raw.tokens)
  if (raw.tokens !== undefined && tokens === undefined) return undefined
  return Object.freeze({
    serverUrl,
    issuer,
    resource,
    redirectUrl,
    client: client as unknown as StoredOAuthClientInformation,
    discovery: discovery as unknown as OAuthDiscoveryState,
    ...(tokens === undefined ? {} : { tokens }),
    ...(wantedScope === undefined ? {} : { wantedScope }),
    loggedInAt,
  })
}

/** The JSON a stored login is written as. */
export function encodeStoredLogin(login: StoredLogin): string {
  return `${JSON.stringify({ version: 1, ...login }, null, 2)}\n`
}
