#!/usr/bin/env node
/**
 * The `code-runtime` command: decode the arguments, run one command, exit with its code. Errors
 * we expect (bad usage, bad config, a backend that is not installed) are one line on stderr
 * and exit code 2; anything else is a bug and keeps its stack. With no arguments at all the
 * overview goes to stderr, also with exit code 2: whoever typed nothing needs the commands,
 * not one error line, but a script that called us that way is still told it failed.
 */
import { checkCommand } from './cli/check-command.js'
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, parseCliArguments } from './cli/cli-arguments.js'
import { commandHelpText, overviewText } from './cli/cli-help.js'
import { McpProxyError } from './errors.js'
import { listCommand, typesCommand } from './cli/inspect-commands.js'
import { PACKAGE_INFO } from './package-info.js'
import { replCommand } from './cli/repl-command.js'
import { runCommand } from './cli/run-command.js'
import { runnerCommand } from './cli/runner-command.js'
import { serveCommand } from './cli/serve-command.js'
import { writeErrorLine } from './cli/terminal-output.js'

async function main(argv: readonly string[]): Promise<number> {
  const command = parseCliArguments(argv)
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
      return serveCommand(command)
    case 'run':
      return runCommand(command)
    case 'repl':
      return replCommand(command)
    case 'check':
      return checkCommand(command)
    case 'types':
      return typesCommand(command)
    case 'list':
      return listCommand(command)
    case 'runner':
      return runnerCommand(command)
  }
}

/** Longest the command waits for its last output to be read before it exits anyway. */
const EXIT_FLUSH_MS = 5_000

let exitCode: number
try {
  exitCode = await main(process.argv.slice(2))
} catch (error) {
  if (!McpProxyError.is(error)) throw error
  writeErrorLine(process.stderr, error.message)
  exitCode = EXIT_SETUP_FAILED
}
// Exit explicitly: an upstream transport or a stdin listener must not keep a finished command alive.
process.exitCode = exitCode
process.stdout.write('', () => process.exit(exitCode))
// A reader that stopped reading (a client gone without closing its end) would hold that flush
// forever: what it has not read in this long it will not read.
setTimeout(() => process.exit(exitCode), EXIT_FLUSH_MS).unref()
