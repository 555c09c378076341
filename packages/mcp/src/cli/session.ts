/**
 * What every CLI command starts with and ends with: the config (or the built-in example server),
 * the upstream connections, and the session's private temporary directory
 * (`${CODE_RUNTIME_TMPDIR}`), deleted on close.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CodeRuntime, StartedCodeRuntime } from '@code-runtime/core'
import { startChosenBackend, startRemoteBackend, type BackendName } from '../runtime-backend.js'
import type { NatsCliConnection } from './cli-arguments.js'
import { SESSION_DIRECTORY_VARIABLE } from '../upstream/config-variables.js'
import { EXAMPLE_SERVER } from './example-server.js'
import { loadServersConfig } from '../upstream/server-config.js'
import { writeErrorLine } from './terminal-output.js'
import { TokenStore } from '../upstream/oauth/token-store.js'
import {
  closeUpstreams,
  startUpstreams,
  type UpstreamListeners,
  type UpstreamServer,
} from '../upstream/upstream-clients.js'

/** Upstream connections and what to release at the end. */
export interface Session {
  /** Connected, or still connecting when the session came from {@link startSession}. */
  readonly upstreams: readonly UpstreamServer[]
  /** Settles (never rejects) once every upstream is connected or has failed. */
  readonly settled: Promise<void>
  /** Closes every upstream (waiting for stdio servers to exit) and deletes the session directory. */
  close(): Promise<void>
}

/**
 * Loads `configPath` (or takes the example server) and connects to every server.
 * @throws {McpProxyError} for a missing, malformed or invalid config; never for a server that
 *   fails to start (see each upstream's `failure`).
 */
export async function openSession(
  configPath: string | undefined,
  listeners: Omit<UpstreamListeners, 'projectDirectory'> = {},
): Promise<Session> {
  const session = await startSession(configPath, listeners)
  await session.settled
  return session
}

/**
 * Loads `configPath` (or takes the example server) and starts connecting to every server,
 * resolving once the config is read: the upstreams are still connecting (see `settled`).
 * @throws {McpProxyError} for a missing, malformed or invalid config.
 */
export async function startSession(
  configPath: string | undefined,
  listeners: Omit<UpstreamListeners, 'projectDirectory'> = {},
): Promise<Session> {
  let sessionDirectory: string | undefined
  const variables = (name: string): string | undefined => {
    const value = process.env[name]
    if (value !== undefined && value !== '') return value
    if (name !== SESSION_DIRECTORY_VARIABLE) return undefined
    sessionDirectory ??= mkdtempSync(join(tmpdir(), 'code-runtime-'))
    return sessionDirectory
  }
  const removeDirectory = (): void => {
    if (sessionDirectory !== undefined) rmSync(sessionDirectory, { recursive: true, force: true })
  }
  try {
    const config = configPath === undefined ? undefined : await loadServersConfig(configPath, { variables })
    const upstreams = startUpstreams(config?.servers ?? [EXAMPLE_SERVER], {
      ...listeners,
      projectDirectory: config?.directory ?? process.cwd(),
      logins: {
        store: new TokenStore(),
        loginCommand: server =>
          `code-runtime auth login ${server}${configPath === undefined ? '' : ` --config ${configPath}`}`,
      },
    })
    let closing: Promise<void> | undefined
    return {
      upstreams,
      settled: Promise.all(upstreams.map(server => server.settled)).then(() => undefined),
      close: () => (closing ??= closeUpstreams(upstreams).finally(removeDirectory)),
    }
  } catch (error) {
    removeDirectory()
    throw error
  }
}

/** Writes one line per server that failed to start; returns how many did. */
export function reportStartFailures(upstreams: readonly UpstreamServer[]): number {
  const failures = upstreams.flatMap(server => (server.failure === undefined ? [] : [server.failure]))
  for (const failure of failures) writeErrorLine(process.stderr, failure.message)
  return failures.length
}

/** The backend and budgets a serving command was given. */
export interface ServingBackendOptions {
  readonly backend: BackendName
  readonly backendChosen: boolean
  /** With `--nats`: runs go to runners there. */
  readonly natsServers?: readonly string[]
  readonly natsConnection?: NatsCliConnection
  readonly timeoutMs: number
  readonly computeMs?: number
  /** With `--nats` on a gateway node of several: the key that lets another node take its sessions over. */
  readonly adoptionKey?: Uint8Array
}

/**
 * How `serve` and `repl` start: they go on with the servers that started, after one line for
 * each that did not. With none started they stop (said on stderr): resolves `undefined` then;
 * otherwise the chosen backend, started with the command's budgets.
 */
export async function startServingBackend(
  session: Session,
  options: ServingBackendOptions,
): Promise<StartedCodeRuntime<CodeRuntime> | undefined> {
  const failed = reportStartFailures(session.upstreams)
  if (failed > 0 && failed === session.upstreams.length) {
    reportNoneStarted()
    return undefined
  }
  return startBackendOf(options)
}

/** The line that ends `serve` and `repl` when every configured server failed to start. */
export function reportNoneStarted(): void {
  writeErrorLine(process.stderr, 'no configured server could be started; fix the errors above.')
}

/**
 * Starts the backend a serving command was given, with its budgets (what
 * {@link startServingBackend} does once the servers are there).
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when it cannot work.
 */
export async function startBackendOf(options: ServingBackendOptions): Promise<StartedCodeRuntime<CodeRuntime>> {
  const budgets = {
    maxWallMs: options.timeoutMs,
    ...(options.computeMs === undefined ? {} : { computeMs: options.computeMs }),
  }
  if (options.natsServers !== undefined)
    return startRemoteBackend(options.natsServers, budgets, options.natsConnection, options.adoptionKey)
  return startChosenBackend(options.backend, options.backendChosen, budgets, line =>
    writeErrorLine(process.stderr, line),
  )
}
