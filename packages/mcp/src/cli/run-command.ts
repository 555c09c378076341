/**
 * `code-runtime run program.ts`: one program against the configured servers (or the built-in
 * examples), type-checked first (`--type-check`, default `calls`): a refused program calls no
 * tool. Logs go to stdout, then the value; a failure goes to stderr; the exit code says which. Ctrl-C aborts the run, which cancels its upstream calls, closes the servers and the
 * runtime, prints `interrupted` and exits with 130.
 */
import { formatJsonValue, MAX_RESULT_CHARS_LIMIT } from '@code-runtime/code-mode'
import type { CliCommand } from './cli-arguments.js'
import { EXIT_PROGRAM_FAILED, EXIT_SETUP_FAILED, EXIT_SUCCESS } from './cli-arguments.js'
import { withBudgetOptionNames } from './budget-option-names.js'
import { countOf, writeDiagnostics } from './diagnostic-output.js'
import { readProgram } from './program-file.js'
import { catalogCodeMode, runProgram, type ProgramRunOutput } from '../run/program-run.js'
import { startChosenBackend, startRemoteBackend } from '../runtime-backend.js'
import { listenForStop, reportStopped } from './stop-signals.js'
import { openSession, reportStartFailures } from './session.js'
import { startProgress, styleFor, writeErrorLine } from './terminal-output.js'
import { askOnFreshReadline, terminalApprover } from './terminal-approval.js'
import { buildToolCatalog } from '../upstream/tool-catalog.js'

/** No cut for people at a terminal (the largest Code Mode takes); the model-facing default is 40 000 characters. */
const CLI_MAX_RESULT_CHARS = MAX_RESULT_CHARS_LIMIT

function describeMediaBlock(block: ProgramRunOutput['media'][number]): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return `${block.type} ${block.mimeType}, ${Math.ceil((block.data.length * 3) / 4)} bytes`
    case 'resource':
      return `resource ${block.resource.uri}`
    case 'resource_link':
      return `resource link ${block.uri}`
  }
}

/**
 * Logs were printed live as the program ran; what remains is the value or the failure. A program
 * the type check refused never ran: its errors are printed as `check` prints them, at the
 * program's own file:line:col. A run that failed after passing the check gets the checker's hints.
 */
function printOutput(output: ProgramRunOutput, programPath: string): void {
  const { result, error, diagnostics = [] } = output.structured
  if (result !== undefined) process.stdout.write(`${typeof result === 'string' ? result : formatJsonValue(result)}\n`)
  const style = styleFor(process.stderr)
  for (const block of output.media)
    process.stderr.write(`${style.dim(`(a tool produced ${describeMediaBlock(block)})`)}\n`)
  if (error?.kind === 'refused') {
    writeDiagnostics(process.stderr, programPath, diagnostics, 'error')
    process.stderr.write(
      `${style.red('code run refused:')} ${countOf(diagnostics.length, 'type error')}, so the program did not run and no tool was called (--type-check off skips the check).\n`,
    )
    return
  }
  if (error !== undefined) process.stderr.write(`${style.red(`code run failed (${error.kind}):`)} ${error.message}\n`)
  if (error !== undefined && diagnostics.length > 0) {
    process.stderr.write(
      `${style.dim('The type check flagged these without refusing the program; one may explain the failure:')}\n`,
    )
    writeDiagnostics(process.stderr, programPath, diagnostics, 'hint')
  }
}

/** Runs the `run` command; resolves the exit code. */
export async function runCommand(command: Extract<CliCommand, { command: 'run' }>): Promise<number> {
  const code = await readProgram(command.programPath)
  // From before the servers start: Ctrl-C while they connect must close them too. Should
  // openSession throw, the listener is left to the exit that follows.
  const stop = listenForStop()
  const session = await openSession(command.configPath)
  try {
    if (reportStartFailures(session.upstreams) > 0) return EXIT_SETUP_FAILED
    const budgets = {
      maxWallMs: command.timeoutMs,
      ...(command.computeMs === undefined ? {} : { computeMs: command.computeMs }),
    }
    const started =
      command.natsServers === undefined
        ? await startChosenBackend(command.backend, command.backendChosen, budgets, line =>
            writeErrorLine(process.stderr, line),
          )
        : await startRemoteBackend(command.natsServers, budgets, command.natsConnection)
    let calls = 0
    const progress = startProgress(process.stderr, () => calls)
    try {
      const stoppedEarly = stop.received()
      if (stoppedEarly !== undefined) return reportStopped(stoppedEarly)
      const codeMode = catalogCodeMode(withBudgetOptionNames(started.runtime), buildToolCatalog(session.upstreams), {
        maxResultChars: CLI_MAX_RESULT_CHARS,
        typeCheck: command.typeCheck,
      })
      const output = await runProgram(codeMode, code, {
        signal: stop.signal,
        // A progress line that redraws itself would write over the question: it stops at the first one.
        approve: terminalApprover({
          allowAll: command.allowAll,
          isTerminal: process.stdin.isTTY === true && process.stderr.isTTY === true,
          ask: askOnFreshReadline(process.stdin, process.stderr, () => progress.stop()),
        }),
        onCalls: counts => {
          calls = counts.started
        },
        onLog: line => {
          progress.clear()
          process.stdout.write(`${line}\n`)
        },
      })
      progress.stop()
      const stopped = stop.received()
      if (stopped !== undefined) return reportStopped(stopped)
      printOutput(output, command.programPath)
      return output.isError ? EXIT_PROGRAM_FAILED : EXIT_SUCCESS
    } finally {
      progress.stop()
      await started.dispose()
    }
  } finally {
    await session.close()
    stop.stop()
  }
}
