/**
 * `code-runtime check program.ts`: type-checks a program file against the SDK of the configured
 * servers (or the built-in examples), exactly as `run` and `serve` check before running, and
 * runs nothing. Each diagnostic is printed at the program's file:line:col; the exit code is 1
 * when `run` would refuse the program (in `strict`, on any type error) or the check cannot
 * finish, else 0.
 */
import type { CodeModeRuntime } from '@code-runtime/code-mode'
import { EXIT_PROGRAM_FAILED, EXIT_SETUP_FAILED, EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { countOf, writeDiagnostics } from './diagnostic-output.js'
import { readProgram } from './program-file.js'
import { catalogCodeMode } from '../run/program-run.js'
import { openSession, reportStartFailures } from './session.js'
import { styleFor, writeErrorLine } from './terminal-output.js'
import { buildToolCatalog } from '../upstream/tool-catalog.js'

/** Code Mode wants a runtime to run programs with; `check` runs none, and says so if one is ever asked to run. */
const NO_RUNS: CodeModeRuntime = {
  run: () => Promise.reject(new Error('code-runtime check type-checks programs; it never runs them.')),
}

/** Runs the `check` command; resolves the exit code. */
export async function checkCommand(command: Extract<CliCommand, { command: 'check' }>): Promise<number> {
  const code = await readProgram(command.programPath)
  const session = await openSession(command.configPath)
  try {
    // A server missing from the SDK would turn every call to its tools into an error.
    if (reportStartFailures(session.upstreams) > 0) return EXIT_SETUP_FAILED
    const codeMode = catalogCodeMode(NO_RUNS, buildToolCatalog(session.upstreams), { typeCheck: command.typeCheck })
    const file = command.programPath
    let check
    try {
      check = await codeMode.check(code)
    } catch (error) {
      // A program that overflows the compiler's stack, or keeps it busy past its time limit.
      writeErrorLine(
        process.stderr,
        `${file}: the type check could not finish (${error instanceof Error ? error.message : String(error)}); run would run it unchecked.`,
      )
      return EXIT_PROGRAM_FAILED
    }
    writeDiagnostics(process.stdout, file, check.errors, 'error')
    writeDiagnostics(process.stdout, file, check.hints, 'hint')
    const style = styleFor(process.stdout)
    const mode = `--type-check ${command.typeCheck}`
    const hints = check.hints.length === 0 ? '' : `; ${countOf(check.hints.length, 'hint')}, shown again if a run fails`
    if (check.refused) {
      process.stdout.write(
        `${style.bold(file)}: ${style.red(countOf(check.errors.length, 'type error'))}${hints}; run refuses it (${mode}).\n`,
      )
      return EXIT_PROGRAM_FAILED
    }
    process.stdout.write(
      `${style.bold(file)}: ${check.hints.length === 0 ? 'no type errors' : `nothing that refuses it (${mode})${hints}`}.\n`,
    )
    return EXIT_SUCCESS
  } finally {
    await session.close()
  }
}
