/**
 * What `serve` starts whichever way it is reached (stdio or HTTP): the upstream servers, connecting
 * in the background and each failure said on stderr as it happens, and the backend, starting beside
 * them. The options of the Code Mode service that follow from the command are built here too, so
 * both shapes serve the same tools the same way; each adds only what its transport needs.
 */
import type { CodeRuntime, StartedCodeRuntime } from '@code-runtime/core'
import type { CodeModeServiceOptions } from '../server/code-mode-service.js'
import type { ToolCatalog } from '../upstream/tool-catalog.js'
import { presentTools } from '../run/run-code-description.js'
import { withBudgetOptionNames } from './budget-option-names.js'
import type { CliCommand } from './cli-arguments.js'
import { startBackendOf, startSession, type Session } from './session.js'
import { writeErrorLine } from './terminal-output.js'

/** The `serve` command as decoded. */
export type ServeCommand = Extract<CliCommand, { command: 'serve' }>

export function log(message: string): void {
  process.stderr.write(`code-runtime: ${message}\n`)
}

/** The upstream servers and the backend of one `serve`, started; {@link ServeUpstreams.close} stops both. */
export interface ServeUpstreams {
  readonly session: Session
  /** Rejects when the backend cannot start; already handled, so it is never unhandled meanwhile. */
  readonly starting: Promise<StartedCodeRuntime<CodeRuntime>>
  /** The service options common to both shapes of `serve`. */
  readonly serviceOptions: CodeModeServiceOptions
  /** Disposes the backend (once it started) and closes every upstream server. */
  close(): Promise<void>
}

/**
 * Starts the upstream servers of the command's config and its backend.
 * @param onToolsChanged called when an upstream server changed its tools (the SDK must be regenerated).
 * @param adoptionKey with `--nats`, on a gateway node of several: lets other nodes take its sessions over.
 * @throws {McpProxyError} for a bad config.
 */
export async function startServeUpstreams(
  command: ServeCommand,
  onToolsChanged: () => void,
  adoptionKey?: Uint8Array,
): Promise<ServeUpstreams> {
  const session = await startSession(command.configPath, {
    onStderrLine: (server, line) => process.stderr.write(`[${server.name}] ${line}\n`),
    onToolsChanged: server => {
      log(`server "${server.name}" changed its tools; the SDK is regenerated.`)
      onToolsChanged()
    },
  })
  for (const upstream of session.upstreams) {
    void upstream.settled.then(() => {
      if (upstream.failure !== undefined) writeErrorLine(process.stderr, upstream.failure.message)
    })
  }
  const starting = startBackendOf(adoptionKey === undefined ? command : { ...command, adoptionKey })
  // Its failure is thrown by the service's `ready`, after the shutdown; never unhandled meanwhile.
  starting.catch(() => undefined)
  return {
    session,
    starting,
    serviceOptions: {
      upstreams: session.upstreams,
      // Timeouts name --timeout-ms and --compute-ms, the knobs whoever runs serve can turn.
      runtime: starting.then(started => withBudgetOptionNames(started.runtime)),
      maxSdkChars: command.maxSdkChars,
      catalogWaitMs: command.listWaitMs,
      typeCheck: command.typeCheck,
      state: command.state,
      onNotice: log,
      approvalFallback: command.approvalFallback,
      onApproval: log,
      runWallMs: command.timeoutMs,
      onStateRefused: line => log(line),
      onCatalogReady: catalog => sayServing(command, session, catalog),
    },
    async close() {
      const started = await starting.catch(() => undefined)
      await started?.dispose()
      await session.close()
    },
  }
}

/** Resolves once every upstream has settled and none started: `serve` has nothing to serve. */
export function noneStarted(session: Session): Promise<{ reason: 'no-servers' }> {
  return new Promise(resolve => {
    void session.settled.then(() => {
      if (session.upstreams.every(server => server.failure !== undefined)) resolve({ reason: 'no-servers' })
    })
  })
}

/** Says, once the catalog is ready, what is served (unless nothing started: serve then says so and stops). */
function sayServing(command: ServeCommand, session: Session, catalog: ToolCatalog): void {
  const mode = presentTools(catalog, command.maxSdkChars).mode
  const connected = session.upstreams.filter(server => server.failure === undefined && !server.isConnecting)
  // With none started, serve says so and stops instead (see noneStarted).
  if (session.upstreams.every(server => server.failure !== undefined)) return
  const connecting = session.upstreams.filter(server => server.isConnecting).length
  const later = connecting === 0 ? '' : `, ${connecting} more still connecting`
  log(
    `serving ${catalog.tools.length} tools of ${connected.length} server(s)${later} through run_code (SDK ${catalog.sdk.text.length} characters, ${mode === 'full' ? 'in the description' : 'as an index plus get_tool_types'}; type check ${command.typeCheck}; ${command.state ? 'variables persist between calls' : 'no state between calls'}).`,
  )
}
