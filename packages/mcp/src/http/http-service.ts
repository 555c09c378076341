/**
 * `code-runtime serve --http`: the Code Mode service over Streamable HTTP at `/mcp`, for many
 * callers at once. Every request passes, in order: the `Host` and `Origin` checks (against DNS
 * rebinding: a page in a browser must not reach a server on this machine), the bound on its body,
 * the token gate (a principal, or 401/403), then the protocol: a 2025-era request goes to its
 * transport session (legacy-sessions.ts), a 2026-07-28 request to a fresh SDK server of its own
 * (the SDK's `createMcpHandler`), whose sessions are named by handles. Under OAuth the server also
 * serves its RFC 9728 metadata, which names the issuer clients log in with.
 *
 * Stopping: new requests get 503 at once, runs in flight may finish within a grace period, then
 * they are aborted and every connection closed.
 */
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createMcpHandler,
  isLegacyRequest,
  oauthMetadataResponse,
  type AuthInfo,
  type OAuthMetadata,
} from '@modelcontextprotocol/server'
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node'
import type { ListenAddress } from '../cli/http-serve-options.js'
import type { CodeModeService } from '../server/code-mode-service.js'
import { LegacySessions } from './legacy-sessions.js'
import type { TokenGate } from './token-gate.js'

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp'

/** Largest request body by default, in bytes: a long program with room to spare, far from a flood. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/** 2025-era transport sessions open at once by default. */
export const DEFAULT_MAX_LEGACY_SESSIONS = 256

/** A 2025-era session that sees no request for this long ends, by default (30 minutes). */
export const DEFAULT_LEGACY_SESSION_IDLE_MS = 30 * 60_000

/** What the server says about itself under OAuth (RFC 9728), and the issuer's own metadata it mirrors. */
export interface ResourceMetadata {
  readonly issuerMetadata: OAuthMetadata
  /** This server's resource URI (the tokens' audience). */
  readonly resource: URL
  readonly scopesSupported?: readonly string[]
}

/** Options of {@link startHttpService}. */
export interface HttpServiceOptions {
  readonly service: CodeModeService
  readonly listen: ListenAddress
  readonly gate: TokenGate
  /** Present under OAuth: served at `/.well-known/oauth-protected-resource/...`. */
  readonly metadata?: ResourceMetadata
  /**
   * Host names the `Host` header may name (and a browser's `Origin`). Default: on loopback,
   * `localhost`, `127.0.0.1` and `[::1]`; elsewhere the listening host and the resource's host,
   * when they are names (not 0.0.0.0).
   */
  readonly allowedHosts?: readonly string[]
  readonly maxBodyBytes?: number
  readonly maxLegacySessions?: number
  readonly legacySessionIdleMs?: number
  /** Told what the SDK could not serve (a broken request, a failed write); never a caller's data. */
  readonly onError?: (error: Error) => void
}

/** A listening `serve --http`. */
export interface HttpService {
  /** Where the MCP endpoint is, e.g. `http://127.0.0.1:8080/mcp` (the port picked, for port 0). */
  readonly url: URL
  /**
   * Stops: refuses new requests, lets requests in flight finish for up to `graceMs`, then aborts
   * what still runs and closes every connection. The service itself stays the caller's to close.
   */
  close(graceMs?: number): Promise<void>
}

function defaultAllowedHosts(listen: ListenAddress, metadata: ResourceMetadata | undefined): string[] {
  if (listen.isLoopback) return ['localhost', '127.0.0.1', '[::1]']
  const named = [listen.host, metadata?.resource.hostname]
  return named
    .filter((host): host is string => host !== undefined && host !== '' && host !== '0.0.0.0' && host !== '::')
    .map(host => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host))
}

/** How long a refused body may go on arriving, so that its sender can read the refusal, in milliseconds. */
const REFUSED_BODY_DRAIN_MS = 5_000

/**
 * Answers a request whose declared body is over the bound with 413, before reading it. The rest of
 * the body is read and dropped for a few seconds, on a connection kept open: a socket closed while
 * the client still writes resets the connection (unread bytes in the kernel's buffer make it send
 * RST), the client's write fails before it reads the answer, and it sees a broken connection
 * instead of why. (`Connection: close` here did exactly that on a loaded machine.)
 */
function refuseOversizedBody(request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): void {
  request.resume()
  response.writeHead(413, { 'content-type': 'application/json' })
  response.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes` },
      id: null,
    }),
  )
  const giveUp = setTimeout(() => request.socket.destroy(), REFUSED_BODY_DRAIN_MS)
  giveUp.unref()
  request.once('end', () => clearTimeout(giveUp))
}

function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/**
 * Listens and serves until {@link HttpService.close}.
 * @throws {Error} when the address cannot be listened on (in use, not this machine's).
 */
export async function startHttpService(options: HttpServiceOptions): Promise<HttpService> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const onError = (error: Error): void => options.onError?.(error)
  const modern = createMcpHandler(
    context => options.service.buildServer({ principal: principalOf(context.authInfo), sessions: 'handle' }),
    { legacy: 'reject', maxRequestBodySize: maxBodyBytes, onerror: onError },
  )
  const stopModernListChanged = options.service.onToolsChanged(() => {
    void Promise.resolve(modern.notify.toolsChanged()).catch(() => undefined)
  })
  const legacy = new LegacySessions(options.service, {
    maxSessions: options.maxLegacySessions ?? DEFAULT_MAX_LEGACY_SESSIONS,
    idleMs: options.legacySessionIdleMs ?? DEFAULT_LEGACY_SESSION_IDLE_MS,
    maxBodyBytes,
  })
  let isStopping = false

  async function answer(request: Request): Promise<Response> {
    if (options.metadata !== undefined) {
      const document = oauthMetadataResponse(request, {
        oauthMetadata: options.metadata.issuerMetadata,
        resourceServerUrl: options.metadata.resource,
        ...(options.metadata.scopesSupported === undefined
          ? {}
          : { scopesSupported: [...options.metadata.scopesSupported] }),
        // Loopback issuers (a team's test setup) are the issuer option's to allow: it refused plain http elsewhere.
        dangerouslyAllowInsecureIssuerUrl: true,
      })
      if (document !== undefined) return document
    }
    if (new URL(request.url).pathname !== MCP_PATH) {
      return jsonAnswer(404, { error: `Not found; the MCP endpoint is ${MCP_PATH}.` })
    }
    if (isStopping) return jsonAnswer(503, { error: 'The server is shutting down.' }, { 'retry-after': '5' })
    const admitted = await options.gate(request)
    if (admitted instanceof Response) return admitted
    if (await isLegacyRequest(request, undefined, { maxRequestBodySize: maxBodyBytes })) {
      return legacy.handle(request, admitted.principal.name, admitted.authInfo)
    }
    return modern.fetch(request, { authInfo: admitted.authInfo })
  }

  const handleNode = toNodeHandler({ fetch: answer }, { maxRequestBodySize: maxBodyBytes, onerror: onError })
  const allowed = [...(options.allowedHosts ?? defaultAllowedHosts(options.listen, options.metadata))]
  const checkHost = allowed.length === 0 ? undefined : hostHeaderValidation(allowed)
  const checkOrigin = allowed.length === 0 ? undefined : originValidation(allowed)
  const server: NodeServer = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (checkHost !== undefined && !checkHost(request, response)) return
    if (checkOrigin !== undefined && !checkOrigin(request, response)) return
    if (Number(request.headers['content-length']) > maxBodyBytes) {
      refuseOversizedBody(request, response, maxBodyBytes)
      return
    }
    // A request that reached us always has its method and URL; the SDK types them as required.
    void handleNode(request as Parameters<typeof handleNode>[0], response)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.listen.port, options.listen.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = new URL(`http://${host}:${address.port}${MCP_PATH}`)

  return {
    url,
    async close(graceMs = 10_000) {
      if (isStopping) return
      isStopping = true
      stopModernListChanged()
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      server.closeIdleConnections()
      const graceOver = new Promise<void>(resolve => setTimeout(resolve, graceMs).unref())
      await Promise.race([closed, graceOver])
      await Promise.allSettled([modern.close(), legacy.close()])
      server.closeAllConnections()
      await closed
    },
  }
}

/** The principal the token gate put in the request's auth info (its `clientId`). */
function principalOf(authInfo: AuthInfo | undefined): string {
  return authInfo?.clientId ?? 'anonymous'
}
