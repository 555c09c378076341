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
import { createCodeModeServer, type CodeModeServer } from '../server/code-mode-server.js'
import { EXIT_SETUP_FAILED, EXIT_SUCCESS } from './cli-arguments.js'
import { log, noneStarted, startServeUpstreams, type ServeCommand } from './serve-upstreams.js'
import { reportNoneStarted } from './session.js'

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
  const upstreams = await startServeUpstreams(command, () => codeModeServer?.refresh())
  try {
    codeModeServer = createCodeModeServer(upstreams.serviceOptions)
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
    const stop = await Promise.race([
      stopping,
      noneStarted(upstreams.session),
      codeModeServer.ready.then(() => stopping),
    ])
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
    await upstreams.close()
  }
}
