/**
 * Test support: a remote MCP server protected by OAuth, as the MCP authorization spec has it, and
 * a small authorization server of its own, both on loopback over real HTTP. The MCP server is
 * the SDK's (`createMcpHandler`, `requireBearerAuth`, its RFC 9728 metadata URL); it lets
 * `initialize` and `server/discover` through and answers everything else without a valid token
 * with 401 and `WWW-Authenticate: Bearer resource_metadata=...`, so a client learns it needs a
 * login only on `tools/list`. The authorization server does dynamic registration, the
 * authorization endpoint (redirecting at once with a code and the state, as if the person had
 * agreed), and the token endpoint with the PKCE check and rotating refresh tokens. Its switches
 * let a test revoke refresh tokens, expire access tokens, fail token requests with 503, or slow
 * refreshes down.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  Server as McpServer,
  type AuthInfo,
} from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'

export const REQUIRED_SCOPE = 'mcp:tools'

interface IssuedCode {
  readonly clientId: string
  readonly redirectUri: string
  readonly challenge: string
  readonly scope: string
  readonly resource: string
}

interface IssuedAccessToken {
  readonly clientId: string
  readonly scope: string
  readonly resource: string
  expiresAt: number
}

/** What the authorization server counted and saw. */
export interface AuthorizationCounts {
  registrations: number
  authorizations: number
  codeGrants: number
  refreshGrants: number
  /** Token requests answered 503 by `failTokenRequests`. */
  failedTokenRequests: number
}

export interface OAuthUpstream {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string
  readonly issuer: string
  readonly counts: AuthorizationCounts
  /** The query of the last authorization request. */
  lastAuthorization: URLSearchParams | undefined
  /** Every bearer token the MCP server was sent, valid or not. */
  readonly presentedTokens: string[]
  /** Every access and refresh token ever issued. */
  readonly issuedSecrets: string[]
  /** Seconds an access token lives. */
  accessTokenSeconds: number
  /** The next `n` token requests are answered 503. */
  failTokenRequests(n: number): void
  /** Refresh grants wait this long before answering. */
  refreshDelayMs: number
  /** When set, `tools/call` needs this scope too, and answers 403 `insufficient_scope` without it. */
  callScope: string | undefined
  /** Every refresh token stops working (`invalid_grant`). */
  revokeRefreshTokens(): void
  /** Every access token issued so far is expired now. */
  expireAccessTokens(): void
  close(): Promise<void>
}

function secret(): string {
  return randomBytes(24).toString('base64url')
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function listen(server: Server): Promise<string> {
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  )
}

/** Starts both servers; `options.accessTokenSeconds` defaults to 60. */
export async function startOAuthUpstream(options: { accessTokenSeconds?: number } = {}): Promise<OAuthUpstream> {
  const clients = new Map<string, { redirectUris: readonly string[] }>()
  const codes = new Map<string, IssuedCode>()
  const accessTokens = new Map<string, IssuedAccessToken>()
  const refreshTokens = new Map<string, { clientId: string; scope: string; resource: string }>()
  let failuresLeft = 0
  const authServer = createServer()
  const resourceServer = createServer()
  const issuer = await listen(authServer)
  const resourceOrigin = await listen(resourceServer)
  const mcpUrl = `${resourceOrigin}/mcp`

  const upstream: OAuthUpstream = {
    url: mcpUrl,
    issuer,
    counts: { registrations: 0, authorizations: 0, codeGrants: 0, refreshGrants: 0, failedTokenRequests: 0 },
    lastAuthorization: undefined,
    presentedTokens: [],
    issuedSecrets: [],
    accessTokenSeconds: options.accessTokenSeconds ?? 60,
    refreshDelayMs: 0,
    callScope: undefined,
    failTokenRequests: n => {
      failuresLeft = n
    },
    revokeRefreshTokens: () => refreshTokens.clear(),
    expireAccessTokens: () => {
      for (const token of accessTokens.values()) token.expiresAt = 0
    },
    close: async () => {
      authServer.closeAllConnections()
      resourceServer.closeAllConnections()
      await Promise.all([
        new Promise(resolve => authServer.close(resolve)),
        new Promise(resolve => resourceServer.close(resolve)),
      ])
    },
  }

  const issueTokens = (clientId: string, scope: string, resource: string): Record<string, unknown> => {
    const access = secret()
    const refresh = secret()
    accessTokens.set(access, { clientId, scope, resource, expiresAt: Date.now() + upstream.accessTokenSeconds * 1000 })
    refreshTokens.set(refresh, { clientId, scope, resource })
    upstream.issuedSecrets.push(access, refresh)
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: upstream.accessTokenSeconds,
      refresh_token: refresh,
      scope,
    }
  }

  authServer.on('request', (request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', issuer)
      const json = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        response.end(JSON.stringify(body))
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          scopes_supported: [REQUIRED_SCOPE],
        })
      }
      if (url.pathname === '/register' && request.method === 'POST') {
        const metadata = JSON.parse(await readBody(request)) as { redirect_uris?: string[] }
        const clientId = `client-${secret()}`
        clients.set(clientId, { redirectUris: metadata.redirect_uris ?? [] })
        upstream.counts.registrations += 1
        return json(201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) })
      }
      if (url.pathname === '/authorize') {
        upstream.lastAuthorization = url.searchParams
        const query = url.searchParams
        const client = clients.get(query.get('client_id') ?? '')
        const redirectUri = query.get('redirect_uri') ?? ''
        if (client === undefined || !client.redirectUris.includes(redirectUri))
          return json(400, { error: 'bad client' })
        if (query.get('code_challenge_method') !== 'S256' || query.get('response_type') !== 'code')
          return json(400, { error: 'PKCE with S256 is required' })
        upstream.counts.authorizations += 1
        const code = secret()
        codes.set(code, {
          clientId: query.get('client_id') ?? '',
          redirectUri,
          challenge: query.get('code_challenge') ?? '',
          scope: query.get('scope') ?? '',
          resource: query.get('resource') ?? '',
        })
        const back = new URL(redirectUri)
        back.searchParams.set('code', code)
        const state = query.get('state')
        if (state !== null) back.searchParams.set('state', state)
        response.writeHead(302, { location: back.href })
        return response.end()
      }
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await readBody(request))
        if (failuresLeft > 0) {
          failuresLeft -= 1
          upstream.counts.failedTokenRequests += 1
          response.writeHead(503, { 'content-type': 'text/plain' })
          return response.end('temporarily down')
        }
        if (form.get('grant_type') === 'authorization_code') {
          const issued = codes.get(form.get('code') ?? '')
          codes.delete(form.get('code') ?? '')
          const verifier = form.get('code_verifier') ?? ''
          const challenge = createHash('sha256').update(verifier).digest('base64url')
          if (
            issued === undefined ||
            issued.challenge !== challenge ||
            issued.redirectUri !== form.get('redirect_uri') ||
            issued.clientId !== form.get('client_id')
          )
            return json(400, { error: 'invalid_grant', error_description: 'bad code, verifier or redirect' })
          upstream.counts.codeGrants += 1
          return json(200, issueTokens(issued.clientId, issued.scope, issued.resource))
        }
        if (form.get('grant_type') === 'refresh_token') {
          upstream.counts.refreshGrants += 1
          if (upstream.refreshDelayMs > 0) await new Promise(resolve => setTimeout(resolve, upstream.refreshDelayMs))
          const refresh = form.get('refresh_token') ?? ''
          const grant = refreshTokens.get(refresh)
          if (grant === undefined || grant.clientId !== form.get('client_id'))
            return json(400, { error: 'invalid_grant', error_description: 'refresh token revoked or unknown' })
          // Rotation: a refresh token works once, so two refreshes of one token would fail.
          refreshTokens.delete(refresh)
          return json(200, issueTokens(grant.clientId, grant.scope, grant.resource))
        }
        return json(400, { error: 'unsupported_grant_type' })
      }
      json(404, { error: 'not found' })
    })()
  })

  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl))
  const gate = requireBearerAuth({
    verifier: {
      verifyAccessToken: token => {
        upstream.presentedTokens.push(token)
        const issued = accessTokens.get(token)
        if (issued === undefined || issued.expiresAt <= Date.now())
          return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, 'unknown or expired token'))
        const info: AuthInfo = {
          token,
          clientId: issued.clientId,
          scopes: issued.scope.split(' ').filter(scope => scope !== ''),
          expiresAt: Math.ceil(issued.expiresAt / 1000),
          resource: new URL(issued.resource),
        }
        return Promise.resolve(info)
      },
    },
    requiredScopes: [REQUIRED_SCOPE],
    resourceMetadataUrl,
    expectedResource: new URL(mcpUrl),
  })
  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler('tools/list', () => ({
      tools: [
        {
          name: 'echo',
          description: 'Returns its text.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          annotations: { readOnlyHint: true },
        },
      ],
    }))
    server.setRequestHandler('tools/call', request => ({
      content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }],
    }))
    return server
  })
  const OPEN_METHODS = new Set(['initialize', 'notifications/initialized', 'server/discover'])
  const handle = toNodeHandler({
    fetch: async (request: Request) => {
      const url = new URL(request.url)
      if (url.href === resourceMetadataUrl) {
        return Response.json({
          resource: mcpUrl,
          authorization_servers: [issuer],
          scopes_supported: [REQUIRED_SCOPE],
          bearer_methods_supported: ['header'],
        })
      }
      if (url.pathname !== '/mcp') return new Response('not found', { status: 404 })
      let method: unknown
      if (request.method === 'POST') {
        try {
          method = ((await request.clone().json()) as { method?: unknown }).method
        } catch {
          method = undefined
        }
      }
      if (typeof method === 'string' && OPEN_METHODS.has(method)) return mcp.fetch(request)
      const auth = await gate(request)
      if (auth instanceof Response) return auth
      const callScope = upstream.callScope
      if (method === 'tools/call' && callScope !== undefined && !auth.scopes.includes(callScope)) {
        return new Response(JSON.stringify({ error: 'insufficient_scope' }), {
          status: 403,
          headers: {
            'content-type': 'application/json',
            'www-authenticate': `Bearer error="insufficient_scope", scope="${REQUIRED_SCOPE} ${callScope}", resource_metadata="${resourceMetadataUrl}"`,
          },
        })
      }
      return mcp.fetch(request, { authInfo: auth })
    },
  })
  resourceServer.on('request', (request, response) => {
    void handle(request as Parameters<typeof handle>[0], response)
  })
  return upstream
}

/** Follows an authorization URL as the person's browser would, returning where it was sent back to. */
export async function followAuthorization(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' })
  const location = response.headers.get('location')
  if (response.status !== 302 || location === null)
    throw new Error(`authorization answered ${response.status}: ${await response.text()}`)
  return location
}
