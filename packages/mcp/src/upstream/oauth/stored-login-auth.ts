/**
 * How `serve`, `run`, `list` and the others use a stored login: the SDK transport's `AuthProvider`
 * (a `token()` before each request, an `onUnauthorized()` on a 401) over the token store. Nobody
 * is asked anything here: without a login, or with a refresh token the authorization server
 * refused (`invalid_grant`), the server needs `code-runtime auth login NAME`, and that is what
 * the error says. The access token is refreshed ahead of its expiry and on a 401, under the
 * server's lock, reading the store again inside it: when another process refreshed first, its
 * tokens are taken, not refreshed a second time (a rotating refresh token works once). A
 * transient failure (the network, a 5xx) is retried and never deletes anything.
 *
 * The refresh uses the SDK's `refreshAuthorization` with the discovery the login stored, so it
 * needs no discovery of its own; the SDK's `auth()` would start a new authorization (a browser)
 * when a refresh fails, which a server must never wait for.
 */
import {
  computeScopeUnion,
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
  type AuthProvider,
  type OAuthClientInformationMixed,
} from '@modelcontextprotocol/client'
import { McpProxyError } from '../../errors.js'
import type { HttpServerConfig } from '../server-config.js'
import { storedTokensFrom, type StoredLogin, type StoredTokens } from './stored-login.js'
import type { TokenStore } from './token-store.js'

/** A token is refreshed when less than this is left of it, or a quarter of its lifetime if that is less. */
const REFRESH_AHEAD_MS = 60_000
/** Waits before the second and third try of a refresh that failed for a transient reason. */
const RETRY_DELAYS_MS = [200, 800] as const

/** True when less than the refresh margin is left of `tokens`. */
function isDue(tokens: StoredTokens, now: number): boolean {
  if (tokens.expiresAt === undefined) return false
  const margin = Math.min(REFRESH_AHEAD_MS, Math.max(0, tokens.expiresAt - tokens.obtainedAt) / 4)
  return tokens.expiresAt - now <= margin
}

/** A network failure or the authorization server's own trouble: worth trying again, never a reason to forget a login. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof OAuthError)) return true
  return error.code === OAuthErrorCode.ServerError || error.code === OAuthErrorCode.TemporarilyUnavailable
}

/** The words of a failure to refresh, without the server's own text (which could echo what it was sent). */
function describeRefreshFailure(error: unknown): string {
  if (error instanceof OAuthError) {
    const status = /^HTTP (\d{3})/.exec(error.message)?.[1]
    return status === undefined ? error.code : `HTTP ${status}`
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code
  return typeof cause === 'string' ? cause : 'no answer'
}

/** The one `AuthProvider` of a `url` server without an `Authorization` header of its own. */
export class StoredLoginAuth implements AuthProvider {
  readonly #server: HttpServerConfig
  readonly #store: TokenStore
  readonly #loginCommand: string
  #login: StoredLogin | undefined
  /** The access token the last request carried: a 401 means this one failed. */
  #sent: string | undefined
  #refreshing: Promise<void> | undefined

  /** @param loginCommand what the person runs to log in, e.g. `code-runtime auth login files --config servers.json`. */
  constructor(server: HttpServerConfig, store: TokenStore, loginCommand: string) {
    this.#server = server
    this.#store = store
    this.#loginCommand = loginCommand
  }

  async token(): Promise<string | undefined> {
    // Read the store until there are tokens: a login made while we run is used without a restart.
    if (this.#login?.tokens === undefined) this.#login = await this.#store.loginOf(this.#server.url)
    const tokens = this.#login?.tokens
    if (tokens === undefined) {
      this.#sent = undefined
      return undefined
    }
    if (isDue(tokens, Date.now())) {
      try {
        await this.#refresh(tokens.accessToken)
      } catch (error) {
        // Still valid for a moment, perhaps: a 401 will say, and its refresh try again.
        if (!McpProxyError.is(error) || error.code !== 'MCP_PROXY_LOGIN_FAILED') throw error
      }
    }
    this.#sent = this.#login?.tokens?.accessToken
    return this.#sent
  }

  async onUnauthorized(): Promise<void> {
    if (this.#sent === undefined) {
      // Perhaps a login appeared since; else the server needs one.
      this.#login = await this.#store.loginOf(this.#server.url)
      if (this.#login?.tokens === undefined) throw this.#loginRequired('needs a login')
      return
    }
    await this.#refresh(this.#sent)
  }

  /** Keeps `scope`, which the server asked for with a 403, for the next `auth login` to ask for too. */
  async noteWantedScope(scope: string): Promise<void> {
    await this.#store.withLock(this.#server.url, async () => {
      const login = await this.#store.loginOf(this.#server.url)
      if (login === undefined) return
      const wantedScope = computeScopeUnion(login.wantedScope, scope)
      if (wantedScope !== undefined && wantedScope !== login.wantedScope)
        await this.#store.save({ ...login, wantedScope })
    })
  }

  /** `lead` says why, as in `needs a login` or `log in again, ...`. */
  #loginRequired(lead: string): McpProxyError {
    return new McpProxyError(
      'MCP_PROXY_LOGIN_REQUIRED',
      `server "${this.#server.name}" ${lead}: run \`${this.#loginCommand}\`.`,
      {
        server: this.#server.name,
      },
    )
  }

  /** One refresh at a time in this process; the lock makes it one at a time across processes. */
  #refresh(staleAccessToken: string): Promise<void> {
    this.#refreshing ??= this.#store
      .withLock(this.#server.url, () => this.#refreshLocked(staleAccessToken))
      .finally(() => {
        this.#refreshing = undefined
      })
    return this.#refreshing
  }

  async #refreshLocked(staleAccessToken: string): Promise<void> {
    const login = await this.#store.loginOf(this.#server.url)
    this.#login = login
    const tokens = login?.tokens
    if (login === undefined || tokens === undefined) throw this.#loginRequired('needs a login')
    // Another process (or a new login) got fresh tokens while we waited for the lock.
    if (tokens.accessToken !== staleAccessToken && !isDue(tokens, Date.now())) return
    if (tokens.refreshToken === undefined)
      throw this.#loginRequired('needs a login again (its access token expired and there is no refresh token)')
    const client: OAuthClientInformationMixed = {
      ...login.client,
      ...(this.#server.oauth?.clientSecret === undefined ? {} : { client_secret: this.#server.oauth.clientSecret }),
    }
    let lastError: unknown
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt += 1) {
      if (attempt > 0) await new Promise(resolve => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 1]))
      try {
        const fresh = await refreshAuthorization(login.discovery.authorizationServerUrl, {
          ...(login.discovery.authorizationServerMetadata === undefined
            ? {}
            : { metadata: login.discovery.authorizationServerMetadata }),
          clientInformation: client,
          refreshToken: tokens.refreshToken,
          ...(login.resource === '' ? {} : { resource: login.resource }),
        })
        const refreshed: StoredLogin = { ...login, tokens: storedTokensFrom(fresh, Date.now()) }
        await this.#store.save(refreshed)
        this.#login = refreshed
        return
      } catch (error) {
        if (!isTransient(error)) {
          // The refresh token is dead: forget the tokens, keep the registration for the next login.
          const { tokens: _dead, ...withoutTokens } = login
          await this.#store.save(withoutTokens)
          this.#login = withoutTokens
          throw this.#loginRequired(
            `needs you to log in again (the authorization server refused its refresh token: ${(error as OAuthError).code})`,
          )
        }
        lastError = error
      }
    }
    throw new McpProxyError(
      'MCP_PROXY_LOGIN_FAILED',
      `server "${this.#server.name}": its login could not be refreshed (${describeRefreshFailure(lastError)}, ${RETRY_DELAYS_MS.length + 1} tries); the login is kept, try again later.`,
      { server: this.#server.name, cause: lastError },
    )
  }
}
