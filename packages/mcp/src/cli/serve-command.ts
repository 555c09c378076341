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
import { openSession, startServingBackend } from './session.js'

function log(message: string): void {
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

/** Runs the `serve` command until shutdown; resolves the exit code. */
export async function serveCommand(command: Extract<CliCommand, { command: 'serve' }>): Promise<number> {
  let codeModeServer: CodeModeServer | undefined
  const session = await openSession(command.configPath, {
    onStderrLine: (server, line) => process.stderr.write(`[${server.name}] ${line}\n`),
    onToolsChanged: server => {
      log(`server "${server.name}" changed its tools; the SDK is regenerated.`)
      codeModeServer?.refresh()
    },
  })
  let started
  try {
    started = await startServingBackend(session, command)
    if (started === undefined) return EXIT_SETUP_FAILED
    // Timeouts name --timeout-ms and --compute-ms, the knobs whoever runs serve can turn.
    codeModeServer = createCodeModeServer({
      upstreams: session.upstreams,
      runtime: withBudgetOptionNames(started.runtime),
      maxSdkChars: command.maxSdkChars,
      typeCheck: command.typeCheck,
      state: command.state,
      onNotice: log,
      approvalFallback: command.approvalFallback,
      onApproval: log,
    })
    const catalog = codeModeServer.catalog
    const mode = presentTools(catalog, command.maxSdkChars).mode
    log(
      `serving ${catalog.tools.length} tools of ${session.upstreams.filter(server => server.failure === undefined).length} server(s) through run_code (SDK ${catalog.sdk.text.length} characters, ${mode === 'full' ? 'in the description' : 'as an index plus get_tool_types'}; type check ${command.typeCheck}; ${command.state ? 'variables persist between calls' : 'no state between calls'}).`,
    )
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
    const stop = await stopping
    if (stop.reason === 'failed') {
      log(`the MCP connection on stdio failed (${stop.error.message}); shutting down.`)
      return EXIT_SETUP_FAILED
    }
    log(`shutting down (${stop.reason}).`)
    return EXIT_SUCCESS
  } finally {
    await codeModeServer?.close().catch(() => undefined)
    await started?.dispose()
    await session.close()
  }
}
