#!/usr/bin/env node
/**
 * The `code-runtime` command: decode the arguments, run one command, exit with its code. Errors
 * we expect (bad usage, bad config, a backend that is not installed) are one line on stderr
 * and exit code 2; anything else is a bug and keeps its stack. With no arguments at all the
 * overview goes to stderr, also with exit code 2: whoever typed nothing needs the commands,
 * not one error line, but a script that called us that way is still told it failed.
 */
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, parseCliArguments } from './cli/cli-arguments.js'
import { commandHelpText, overviewText } from './cli/cli-help.js'
import { McpProxyError } from './errors.js'
import { PACKAGE_INFO } from './package-info.js'
import { writeErrorLine } from './cli/terminal-output.js'
import { enableCompileCache } from './cli/compile-cache.js'
import type { TelemetryCommand } from './cli/telemetry-setup.js'

// Each command's module is loaded only when it runs: `serve` must answer its client's
// `initialize` soon after it is spawned, and the others (the REPL, the NATS runner) would only
// add their imports to that start.
async function main(argv: readonly string[]): Promise<number> {
  const command = parseCliArguments(argv)
  decodedCommand = command.command
  // Before any command's imports: they are what the cache saves compiling.
  enableCompileCache()
  switch (command.command) {
    case 'help': {
      const text = command.topic === undefined ? overviewText() : commandHelpText(command.topic)
      if (!command.isRequested) {
        process.stderr.write(`${text}\n`)
        return EXIT_SETUP_FAILED
      }
      process.stdout.write(`${text}\n`)
      return EXIT_SUCCESS
    }
    case 'version':
      process.stdout.write(`${PACKAGE_INFO.version}\n`)
      return EXIT_SUCCESS
    case 'serve':
      return withTelemetry('serve', async () => (await import('./cli/serve-command.js')).serveCommand(command))
    case 'run':
      return withTelemetry('run', async () => (await import('./cli/run-command.js')).runCommand(command))
    case 'repl':
      return (await import('./cli/repl-command.js')).replCommand(command)
    case 'check':
      return (await import('./cli/check-command.js')).checkCommand(command)
    case 'types':
      return (await import('./cli/inspect-commands.js')).typesCommand(command)
    case 'list':
      return (await import('./cli/inspect-commands.js')).listCommand(command)
    case 'auth':
      return (await import('./cli/auth-command.js')).authCommand(command)
    case 'runner':
      return withTelemetry('runner', async () => (await import('./cli/runner-command.js')).runnerCommand(command))
  }
}

/** Runs a command with the telemetry the environment asks for, ended (spans and metrics sent) before we exit. */
async function withTelemetry(name: TelemetryCommand, run: () => Promise<number>): Promise<number> {
  const { setUpTelemetry } = await import('./cli/telemetry-setup.js')
  const telemetry = await setUpTelemetry(name, line => writeErrorLine(process.stderr, line))
  try {
    return await run()
  } finally {
    await telemetry.shutdown()
  }
}

/** Longest the command waits for its last output to be read before it exits anyway. */
const EXIT_FLUSH_MS = 5_000

/** The commands that type-check programs, in Code Mode's checker process. */
const CHECKING_COMMANDS: ReadonlySet<string> = new Set(['serve', 'run', 'repl', 'check'])
/** The command as the parser decoded it (not argv's second word, which an option may come before). */
let decodedCommand: string | undefined

let exitCode: number
try {
  exitCode = await main(process.argv.slice(2))
} catch (error) {
  if (!McpProxyError.is(error)) throw error
  writeErrorLine(process.stderr, error.message)
  exitCode = EXIT_SETUP_FAILED
} finally {
  // No process of ours outlives the command: the checker's child ends before we do. Code Mode is
  // loaded already when the command checked anything; the others never load it for this.
  if (decodedCommand !== undefined && CHECKING_COMMANDS.has(decodedCommand))
    await (await import('@code-runtime/code-mode')).stopTypeChecker()
}
// Exit explicitly: an upstream transport or a stdin listener must not keep a finished command alive.
process.exitCode = exitCode
process.stdout.write('', () => process.exit(exitCode))
// A reader that stopped reading (a client gone without closing its end) would hold that flush
// forever: what it has not read in this long it will not read.
setTimeout(() => process.exit(exitCode), EXIT_FLUSH_MS).unref()
