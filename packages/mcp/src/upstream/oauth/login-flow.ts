/**
 * `code-runtime auth login NAME`: one OAuth authorization-code login to one remote server, built
 * on the SDK's `auth()`, which does RFC 9728 discovery, the authorization server's metadata,
 * dynamic registration when no client is known, PKCE, and the RFC 8707 `resource`. What is ours:
 * the probe that finds the server's challenge (`login-probe.ts`), the scope asked for (the
 * config's `oauth.scopes`, else the challenge's together with what the last login was granted
 * and what the server asked for since, else the server's `scopes_supported`, which `auth()`
 * reads, else none), the state checked
 * before the code is used, at most three authorization attempts, and the login saved under the
 * server's lock once it has worked.
 */
import { auth, computeScopeUnion, isHttpsUrl, type StoredOAuthClientInformation } from '@modelcontextprotocol/client'
import { McpProxyError } from '../../errors.js'
import type { HttpServerConfig } from '../server-config.js'
import type { RedirectReceiver } from './authorization-redirect.js'
import { LoginProvider } from './login-provider.js'
import { probeLoginChallenge } from './login-probe.js'
import { isSameState } from './pending-redirects.js'
import { storedTokensFrom, type StoredLogin } from './stored-login.js'
import type { TokenStore } from './token-store.js'

/** Authorization attempts (URL shown, redirect refused or failed) before a login gives up. */
export const MAX_AUTHORIZATION_ATTEMPTS = 3

export interface LoginOptions {
  readonly store: TokenStore
  /** The browser step, already listening when it is the loopback one. */
  readonly receiver: RedirectReceiver
  /** Progress lines for the person (stderr). */
  readonly say: (line: string) => void
}

/** What a login ended with. */
export type LoginResult =
  | { readonly kind: 'logged-in'; readonly login: StoredLogin }
  /** The server answered without asking for a token: nothing to log in to. */
  | { readonly kind: 'not-needed' }

function loginFailed(server: string, text: string, cause?: unknown): McpProxyError {
  return new McpProxyError('MCP_PROXY_LOGIN_FAILED', `login to "${server}": ${text}`, {
    server,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** The client to use: the config's, else the one the last login registered for this very redirect URI. */
function knownClient(
  server: HttpServerConfig,
  previous: StoredLogin | undefined,
  redirectUrl: string,
): StoredOAuthClientInformation | undefined {
  // An https:// client ID is a client ID metadata document: `auth()` uses it where the
  // authorization server takes them (and registers a client where it does not).
  if (server.oauth !== undefined && isClientMetadataUrl(server.oauth.clientId)) return undefined
  if (server.oauth !== undefined) {
    return {
      client_id: server.oauth.clientId,
      ...(server.oauth.clientSecret === undefined ? {} : { client_secret: server.oauth.clientSecret }),
    }
  }
  return previous?.redirectUrl === redirectUrl ? previous.client : undefined
}

/** True for a client ID that names its metadata document: an https:// URL with a path. */
function isClientMetadataUrl(clientId: string): boolean {
  return isHttpsUrl(clientId)
}

/** The code of a redirect, once its state is the one this attempt sent; else why it is refused. */
function readRedirect(text: string, expectedState: string | undefined): { code: string; iss?: string } | string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'that is not a URL; paste the whole address, starting with http://'
  }
  const query = url.searchParams
  // The state first: an answer to a request we did not make says nothing we may act on, even its error.
  const state = query.get('state')
  if (expectedState === undefined || state === null || !isSameState(state, expectedState))
    return "its state does not match this login's request (an old or forged redirect); it was refused"
  const error = query.get('error')
  if (error !== null) return `the authorization server refused (${error.slice(0, 80)})`
  const code = query.get('code')
  if (code === null || code === '') return 'it carries no code'
  const iss = query.get('iss')
  return { code, ...(iss === null ? {} : { iss }) }
}

/**
 * Logs in to `server` and saves the login.
 * @throws {McpProxyError} `MCP_PROXY_LOGIN_FAILED` when the server cannot be reached, the
 *   authorization server fails, or three attempts did not come back with a valid redirect.
 */
export async function logIn(server: HttpServerConfig, options: LoginOptions): Promise<LoginResult> {
  const { store, receiver, say } = options
  await store.check()
  let probe
  try {
    probe = await probeLoginChallenge(server.url, server.headers, server.connectTimeoutMs)
  } catch (error) {
    throw loginFailed(server.name, `${server.url} could not be reached (${(error as Error).message}).`, error)
  }
  if (probe.kind === 'open') return { kind: 'not-needed' }
  const previous = await store.loginOf(server.url)
  // What the server asked for since (a 403 at call time) is asked for again, with what was granted.
  const asked =
    probe.challenge.scope === undefined && previous?.wantedScope === undefined
      ? undefined
      : computeScopeUnion(probe.challenge.scope, previous?.tokens?.scope, previous?.wantedScope)
  const scope = server.oauth?.scopes?.join(' ') ?? asked
  const clientId = server.oauth?.clientId
  const provider = new LoginProvider(
    receiver.redirectUrl,
    knownClient(server, previous, receiver.redirectUrl),
    clientId !== undefined && isClientMetadataUrl(clientId) ? clientId : undefined,
  )
  const authOptions = {
    serverUrl: server.url,
    ...(probe.challenge.resourceMetadataUrl === undefined
      ? {}
      : { resourceMetadataUrl: probe.challenge.resourceMetadataUrl }),
    ...(scope === undefined ? {} : { scope }),
  }
  for (let attempt = 1; attempt <= MAX_AUTHORIZATION_ATTEMPTS; attempt += 1) {
    let started
    try {
      started = await auth(provider, { ...authOptions, forceReauthorization: true })
    } catch (error) {
      throw loginFailed(server.name, `the authorization could not start: ${(error as Error).message}`, error)
    }
    const authorizationUrl = provider.authorizationUrl
    if (started !== 'REDIRECT' || authorizationUrl === undefined)
      throw loginFailed(server.name, 'the authorization server did not ask for a browser login.')
    const answer = readRedirect(await receiver.receive(authorizationUrl), provider.expectedState)
    if (typeof answer === 'string') {
      say(`Attempt ${attempt} of ${MAX_AUTHORIZATION_ATTEMPTS} failed: ${answer}.`)
      continue
    }
    try {
      await auth(provider, {
        ...authOptions,
        authorizationCode: answer.code,
        ...(answer.iss === undefined ? {} : answer),
      })
    } catch (error) {
      say(
        `Attempt ${attempt} of ${MAX_AUTHORIZATION_ATTEMPTS} failed: the code was refused (${(error as Error).message}).`,
      )
      continue
    }
    const outcome = provider.outcome()
    const now = Date.now()
    // A client secret from the config stays in the config: the store keeps only what it must.
    const { client_secret: _secret, ...publicClient } = outcome.client
    const login: StoredLogin = {
      serverUrl: server.url,
      issuer: outcome.issuer,
      resource: outcome.resource,
      client: server.oauth?.clientSecret === undefined ? outcome.client : publicClient,
      redirectUrl: receiver.redirectUrl,
      discovery: outcome.discovery,
      tokens: storedTokensFrom(outcome.tokens, now),
      loggedInAt: now,
    }
    await store.withLock(server.url, async () => {
      // A new login replaces the old ones of this server (another issuer or resource included).
      await store.remove(server.url)
      await store.save(login)
    })
    return { kind: 'logged-in', login }
  }
  throw loginFailed(
    server.name,
    `gave up after ${MAX_AUTHORIZATION_ATTEMPTS} authorization attempts; run \`code-runtime auth login ${server.name}\` again.`,
  )
}
