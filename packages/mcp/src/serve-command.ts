/**
 * `code-runtime serve`: the Code Mode MCP server on stdio, keeping the client's variables between
 * `run_code` calls in one session unless `--no-state`. stdout carries only the protocol;
 * everything for people (start failures, upstream servers' own stderr, tool list changes) goes
 * to stderr, which MCP clients keep as the server's log. Shuts down on SIGINT, SIGTERM or the
 * end of stdin: runs in flight are aborted, the runtime is disposed and every upstream server
 * is closed, so no child process outlives us.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { withBudgetOptionNames } from './budget-option-names.js'
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { createCodeModeServer, type CodeModeServer } from './code-mode-server.js'
import { presentTools } from './run-code-description.js'
import { openSession, startServingBackend } from './session.js'

function log(message: string): void {
  process.stderr.write(`code-runtime: ${message}\n`)
}

/** Resolves on the first of SIGINT, SIGTERM and the end of stdin. */
function shutdownRequested(): Promise<string> {
  return new Promise((resolve) => {
    const settle = (reason: string) => (): void => resolve(reason)
    process.once('SIGINT', settle('SIGINT'))
    process.once('SIGTERM', settle('SIGTERM'))
    process.stdin.once('end', settle('end of input'))
    process.stdin.once('close', settle('end of input'))
  })
}

/** Runs the `serve` command until shutdown; resolves the exit code. */
export async function serveCommand(command: Extract<CliCommand, { command: 'serve' }>): Promise<number> {
  let codeModeServer: CodeModeServer | undefined
  const session = await openSession(command.configPath, {
    onStderrLine: (server, line) => process.stderr.write(`[${server.name}] ${line}\n`),
    onToolsChanged: (server) => {
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
    log(`serving ${catalog.tools.length} tools of ${session.upstreams.filter((server) => server.failure === undefined).length} server(s) through run_code (SDK ${catalog.sdk.text.length} characters, ${mode === 'full' ? 'in the description' : 'as an index plus get_tool_types'}; type check ${command.typeCheck}; ${command.state ? 'variables persist between calls' : 'no state between calls'}).`)
    const stopping = shutdownRequested()
    await codeModeServer.connect(new StdioServerTransport())
    log(`shutting down (${await stopping}).`)
    return EXIT_SUCCESS
  } finally {
    await codeModeServer?.close().catch(() => undefined)
    await started?.dispose()
    await session.close()
  }
}
