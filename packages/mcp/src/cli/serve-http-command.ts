/**
 * `code-runtime serve --http`: the Code Mode service for a team, over Streamable HTTP. Who may call
 * is set up first (a keys file, or an OAuth issuer whose metadata and keys are fetched now), so a
 * wrong setup stops the command before any server starts. Then the upstream servers connect and
 * the backend starts while the listener already answers; `listening on <url>` on stderr says where.
 * Every `run_code` of a principal leaves one JSON audit line on stderr. SIGTERM (or SIGINT) stops
 * accepting requests, lets runs in flight finish for `--grace-ms`, aborts the rest, closes every
 * upstream server and exits with 143 (130).
 */
import { getOAuthProtectedResourceMetadataUrl, type OAuthMetadata } from '@modelcontextprotocol/server'
import { createJwtVerifier } from '../auth/jwt-verifier.js'
import { readKeysFile } from '../auth/keys-file.js'
import { startHttpService, type ResourceMetadata } from '../http/http-service.js'
import { openGate, tokenGate, type TokenGate } from '../http/token-gate.js'
import { readStateKey } from './state-key.js'
import { joinGatewayNodes } from './gateway-cluster.js'
import { RequestStates } from '../server/request-states.js'
import { createCodeModeService, type CodeModeService } from '../server/code-mode-service.js'
import { RunAdmission } from '../service/run-admission.js'
import { EXIT_INTERRUPTED, EXIT_SETUP_FAILED } from './cli-arguments.js'
import type { HttpServeOptions } from './http-serve-options.js'
import { log, noneStarted, startServeUpstreams, type ServeCommand } from './serve-upstreams.js'
import { reportNoneStarted } from './session.js'

/** 128 + SIGTERM's number: what a service manager expects of a server it stopped. */
export const EXIT_TERMINATED = 143

interface AuthSetup {
  readonly gate: TokenGate
  readonly metadata?: ResourceMetadata
  /** One line for the person who started the server: who may call. */
  readonly notice: string
}

/** The token gate (and, under OAuth, the server's own metadata) for `http`'s choice. */
async function setUpAuth(http: HttpServeOptions): Promise<AuthSetup> {
  const { auth } = http
  switch (auth.kind) {
    case 'keys':
      return {
        gate: tokenGate({ verifier: readKeysFile(auth.keysFile) }),
        notice: `callers authenticate with a key of ${auth.keysFile}.`,
      }
    case 'oauth': {
      const { verifier, issuerMetadata } = await createJwtVerifier({
        issuer: auth.issuer,
        audience: auth.audience,
        ...(auth.jwks === undefined ? {} : { jwks: auth.jwks }),
      })
      const resource = new URL(auth.audience)
      const scopes = auth.scope === undefined ? [] : [auth.scope]
      return {
        gate: tokenGate({
          verifier,
          requiredScopes: scopes,
          resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
        }),
        metadata: {
          issuerMetadata: issuerMetadata as unknown as OAuthMetadata,
          resource,
          ...(scopes.length === 0 ? {} : { scopesSupported: scopes }),
        },
        notice: `callers authenticate with access tokens of ${auth.issuer} for ${auth.audience}${auth.scope === undefined ? '' : ` with scope ${auth.scope}`}.`,
      }
    }
    case 'none':
      return {
        gate: openGate(),
        notice: http.listen.isLoopback
          ? 'no authentication: only programs on this machine can reach it, and all of them can.'
          : 'WARNING: no authentication (--insecure-no-auth): anyone who can reach this address can run code with every configured tool.',
      }
  }
}

/** Resolves on the first SIGINT or SIGTERM. */
function signalled(): Promise<'SIGINT' | 'SIGTERM'> {
  return new Promise(resolve => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
}

/**
 * Runs `serve --http` until a signal; resolves the exit code.
 * @throws {McpProxyError} for a bad config, an authentication that cannot be set up, an address
 *   that cannot be listened on, or a backend that cannot start (after shutting down).
 */
export async function serveHttpCommand(command: ServeCommand, http: HttpServeOptions): Promise<number> {
  const auth = await setUpAuth(http)
  const stateKey = readStateKey(http.stateKeyFile)
  // One key for this process even when none was given: its states, handles and bus agree.
  const key = stateKey.key ?? RequestStates.randomKey()
  // Over NATS, one gateway node of possibly several (see gateway-cluster.ts).
  const gateway =
    command.natsServers === undefined
      ? undefined
      : await joinGatewayNodes(command.natsServers, command.natsConnection, key, stateKey.key !== undefined)
  let service: CodeModeService | undefined
  let upstreams
  try {
    upstreams = await startServeUpstreams(
      gateway === undefined ? command : { ...command, natsConnection: gateway.connection },
      () => service?.refresh(),
      gateway?.adoptionKey,
    )
  } catch (error) {
    await gateway?.close()
    throw error
  }
  const stopSignal = signalled()
  let listening: Awaited<ReturnType<typeof startHttpService>> | undefined
  try {
    service = createCodeModeService({
      ...upstreams.serviceOptions,
      admission: new RunAdmission({
        ...(http.maxRuns === undefined ? {} : { maxRuns: http.maxRuns }),
        ...(http.maxRunsPerPrincipal === undefined ? {} : { maxRunsPerPrincipal: http.maxRunsPerPrincipal }),
      }),
      onAudit: line => process.stderr.write(`${line}\n`),
      auditValues: http.auditValues,
      requestStateKey: key,
      onStateRefused: line => process.stderr.write(`${line}\n`),
      ...(gateway === undefined ? {} : { cluster: gateway.cluster }),
    })
    try {
      listening = await startHttpService({
        service,
        listen: http.listen,
        gate: auth.gate,
        ...(auth.metadata === undefined ? {} : { metadata: auth.metadata }),
        onError: error => log(`an HTTP request could not be served: ${error.message}`),
      })
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException
      log(
        `cannot listen on ${http.listen.host}:${http.listen.port} (${code ?? (error instanceof Error ? error.message : String(error))}).`,
      )
      return EXIT_SETUP_FAILED
    }
    // Who may call first: a person (or a test) that waits for the URL finds both lines then.
    log(auth.notice)
    log(stateKey.notice)
    if (gateway !== undefined) log(gateway.notice)
    log(`listening on ${listening.url.href}`)
    // A backend that cannot start rejects `ready`: thrown from here, after the shutdown below.
    const stop = await Promise.race([stopSignal, noneStarted(upstreams.session), service.ready.then(() => stopSignal)])
    if (stop === 'SIGINT' || stop === 'SIGTERM') {
      log(`shutting down (${stop}); runs in flight may finish for ${command.graceMs} ms.`)
      await listening.close(command.graceMs)
      return stop === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED
    }
    reportNoneStarted()
    return EXIT_SETUP_FAILED
  } finally {
    await listening?.close(0).catch(() => undefined)
    await service?.close().catch(() => undefined)
    await upstreams.close()
    await gateway?.close().catch(() => undefined)
  }
}
