/**
 * `code-runtime serve`: the Code Mode MCP server on stdio, keeping the client's variables between
 * `run_code` calls in one session unless `--no-state`. stdout carries only the protocol;
 * everything for people (start failures, upstream servers' own stderr, tool list changes) goes
 * to stderr, which MCP clients keep as the server's log. Shuts down on SIGINT, SIGTERM or the
 * end of stdin (exit 0), or when stdin or stdout fails (said on stderr, exit 2): runs in flight
 * are aborted, the runtime is disposed and every upstream server is closed, so no child process
 * outlives us.
 */
import { BoundedStdioServerTransport, type StdioTransportEnd } from '../server/bounded-stdio-transport.js'
import { withBudgetOptionNames } from './budget-option-names.js'
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { createCodeModeServer, type CodeModeServer } from '../server/code-mode-server.js'
import { presentTools } from '../run/run-code-description.js'
import { reportNoneStarted, startBackendOf, startSession, type Session } from './session.js'
import { writeErrorLine } from './terminal-output.js'
import type { ToolCatalog } from '../upstream/tool-catalog.js'

export function log(message: string): void {
  process.stderr.write(`code-runtime: ${message}\n`)
}

/** Resolves on the first of SIGINT, SIGTERM and the end of the transport (stdin ended, or a stream failed). */
function shutdownRequested(
  transport: BoundedStdioServerTransport,
): Promise<StdioTransportEnd | { reason: 'SIGINT' | 'SIGTERM' }> {
  return Promise.race([
    transport.ended,
    new Promise<{ reason: 'SIGINT' | 'SIGTERM' }>(resolve => {
      process.once('SIGINT', () => resolve({ reason: 'SIGINT' }))
      process.once('SIGTERM', () => resolve({ reason: 'SIGTERM' }))
    }),
  ])
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
export function sayServing(command: ServeCommand, session: Session, catalog: ToolCatalog): void {
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

/** The `serve` command as decoded. */
export type ServeCommand = Extract<CliCommand, { command: 'serve' }>

/**
 * Runs the `serve` command until shutdown; resolves the exit code. The client is answered from
 * the start: the upstream servers connect and the backend starts while it initializes (see
 * createCodeModeServer); a server that fails is said on stderr as it fails.
 * @throws {McpProxyError} for a bad config, or a backend that cannot start (after shutting down).
 */
export async function serveCommand(command: ServeCommand): Promise<number> {
  // Over HTTP the server is another shape (many callers, authenticated): its own module, loaded only then.
  if (command.http !== undefined)
    return (await import('./serve-http-command.js')).serveHttpCommand(command, command.http)
  let codeModeServer: CodeModeServer | undefined
  const session = await startSession(command.configPath, {
    onStderrLine: (server, line) => process.stderr.write(`[${server.name}] ${line}\n`),
    onToolsChanged: server => {
      log(`server "${server.name}" changed its tools; the SDK is regenerated.`)
      codeModeServer?.refresh()
    },
  })
  for (const upstream of session.upstreams) {
    void upstream.settled.then(() => {
      if (upstream.failure !== undefined) writeErrorLine(process.stderr, upstream.failure.message)
    })
  }
  const starting = startBackendOf(command)
  // Its failure is thrown below, after the shutdown; never unhandled meanwhile.
  starting.catch(() => undefined)
  try {
    // Timeouts name --timeout-ms and --compute-ms, the knobs whoever runs serve can turn.
    codeModeServer = createCodeModeServer({
      upstreams: session.upstreams,
      runtime: starting.then(started => withBudgetOptionNames(started.runtime)),
      maxSdkChars: command.maxSdkChars,
      catalogWaitMs: command.listWaitMs,
      typeCheck: command.typeCheck,
      state: command.state,
      onNotice: log,
      approvalFallback: command.approvalFallback,
      onApproval: log,
      onCatalogReady: catalog => sayServing(command, session, catalog),
    })
    let isBackpressureTold = false
    const transport = new BoundedStdioServerTransport(process.stdin, process.stdout, {
      onRefused: log,
      onBackpressure: pendingBytes => {
        if (isBackpressureTold) return
        isBackpressureTold = true
        log(
          `the client is not reading its answers (${pendingBytes} bytes wait); no more requests are read until it does (said once).`,
        )
      },
    })
    const stopping = shutdownRequested(transport)
    await codeModeServer.connect(transport)
    // A backend that cannot start rejects `ready`: thrown from here, after the shutdown below.
    const stop = await Promise.race([stopping, noneStarted(session), codeModeServer.ready.then(() => stopping)])
    if (stop.reason === 'no-servers') {
      reportNoneStarted()
      return EXIT_SETUP_FAILED
    }
    if (stop.reason === 'failed') {
      log(`the MCP connection on stdio failed (${stop.error.message}); shutting down.`)
      return EXIT_SETUP_FAILED
    }
    log(`shutting down (${stop.reason}).`)
    return EXIT_SUCCESS
  } finally {
    await codeModeServer?.close().catch(() => undefined)
    const started = await starting.catch(() => undefined)
    await started?.dispose()
    await session.close()
  }
}
