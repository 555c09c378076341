/**
 * The SDK's `OAuthClientProvider` for one `auth login`: it holds in memory what the SDK's `auth()`
 * hands it between the authorization request and the code exchange (the PKCE verifier, the
 * discovery it made, the client it registered, the tokens it got), and records the authorization
 * URL instead of redirecting, since the login decides how the person reaches it. Nothing is
 * written to the store until the exchange has succeeded: a login that fails leaves the previous
 * one as it was.
 */
import { randomBytes } from 'node:crypto'
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import { PACKAGE_INFO } from '../../package-info.js'

/** What one login collected, read once the exchange is done. */
export interface LoginOutcome {
  readonly client: StoredOAuthClientInformation
  readonly tokens: StoredOAuthTokens
  readonly issuer: string
  readonly discovery: OAuthDiscoveryState
  readonly resource: string
}

export class LoginProvider implements OAuthClientProvider {
  readonly #redirectUrl: string
  readonly #isConfidential: boolean
  #client: StoredOAuthClientInformation | undefined
  #codeVerifier: string | undefined
  #discovery: OAuthDiscoveryState | undefined
  #tokens: StoredOAuthTokens | undefined
  #issuer: string | undefined
  #resource = ''
  /** The state of the authorization request in flight; a redirect carrying another is refused. */
  #state: string | undefined
  /** The authorization URL `auth()` built, for the login to show or open. */
  authorizationUrl: URL | undefined

  /**
   * @param client a client the config names, or the one an earlier login registered for this
   *   redirect URI; undefined to register one (or use `clientMetadataUrl`).
   */
  /** The client ID metadata document the config names, for an authorization server that takes them. */
  readonly clientMetadataUrl?: string

  constructor(
    redirectUrl: string,
    client: StoredOAuthClientInformation | undefined,
    clientMetadataUrl: string | undefined,
  ) {
    this.#redirectUrl = redirectUrl
    this.#client = client
    this.#isConfidential = client?.client_secret !== undefined
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl
  }

  get redirectUrl(): string {
    return this.#redirectUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: PACKAGE_INFO.name,
      redirect_uris: [this.#redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.#isConfidential ? 'client_secret_post' : 'none',
    }
  }

  /** A fresh, unguessable state per authorization request (32 random bytes). */
  state(): string {
    this.#state = randomBytes(32).toString('base64url')
    return this.#state
  }

  /** The state the last authorization request carried. */
  get expectedState(): string | undefined {
    return this.#state
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.#client = client
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens
  }

  saveTokens(tokens: StoredOAuthTokens, context?: { issuer: string }): void {
    this.#tokens = tokens
    if (context !== undefined) this.#issuer = context.issuer
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error('no authorization request was made')
    return this.#codeVerifier
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery
  }

  saveResourceUrl(resource: string): void {
    this.#resource = resource
  }

  /** A client the authorization server no longer knows is registered again on the next try. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.#client = undefined
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined
    if (scope === 'all' || scope === 'verifier') this.#codeVerifier = undefined
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined
  }

  /** What the login got, once `auth()` answered AUTHORIZED. */
  outcome(): LoginOutcome {
    const client = this.#client
    const tokens = this.#tokens
    const discovery = this.#discovery
    if (client === undefined || tokens === undefined || discovery === undefined)
      throw new Error('the login did not finish')
    return {
      client,
      tokens,
      discovery,
      issuer:
        this.#issuer ??
        tokens.issuer ??
        discovery.authorizationServerMetadata?.issuer ??
        discovery.authorizationServerUrl,
      resource: this.#resource,
    }
  }
}
