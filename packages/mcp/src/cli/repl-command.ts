/**
 * `code-runtime repl`: a prompt over the configured servers (or the built-in examples) whose
 * inputs run in one session, so what one input declares, the next can use. An input the parser
 * finds unfinished (an open bracket, template or comment) continues on a `... ` line. Logs print
 * as the program makes them; then the value (as Node's REPL shows values) or the failure, with
 * its kind. Ctrl-C stops a running program (the session keeps its variables unless the program
 * was computing and its sandbox had to go, which is said), clears an unfinished input, and
 * exits when pressed twice at an empty prompt; Ctrl-D and `.exit` exit.
 */
import { createInterface, type Interface } from 'node:readline'
import { inspect } from 'node:util'
import {
  CodeModeError,
  createCodeModeSession,
  formatProgramDiagnostics,
  MAX_RESULT_CHARS_LIMIT,
  type CodeMode,
  type CodeModeRuntime,
  type CodeModeSession,
  programNeedsMoreInput,
} from '@code-runtime/code-mode'
import { withBudgetOptionNames } from './budget-option-names.js'
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { terminalApprover } from './terminal-approval.js'
import { catalogCodeMode, runProgram, TOOLS_NAMESPACE, type ProgramRunOutput } from '../run/program-run.js'
import { openReplHistory, replHistoryPath, REPL_HISTORY_SIZE } from './repl-history.js'
import { openSession, startServingBackend } from './session.js'
import { styleFor, usesColour, type TerminalStyle } from './terminal-output.js'
import { buildToolCatalog } from '../upstream/tool-catalog.js'
import type { UpstreamServer } from '../upstream/upstream-clients.js'

const PROMPT = '> '
const CONTINUATION_PROMPT = '... '

/** What `.help` prints. */
export const REPL_HELP = [
  'Each input is a TypeScript program (the body of an async function) run in one session:',
  `its top-level declarations stay for the next inputs; call tools as await ${TOOLS_NAMESPACE}.<server>_<tool>(args).`,
  'The value of a last expression (or of return) is printed. An unfinished input continues on "... ".',
  '  .help    this text',
  '  .reset   forget every variable (a new session starts)',
  '  .exit    leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)',
  'Ctrl-C stops a running program (its variables stay) or clears an unfinished input.',
].join('\n')

/** How Node's REPL would show `value`: coloured on a colour terminal, nested objects expanded. */
function showValue(value: unknown, colors: boolean): string {
  // A pty may report no width (0): lay out for 80 columns then.
  const columns = process.stdout.columns
  return inspect(value, {
    colors,
    depth: 6,
    breakLength: columns === undefined || columns < 20 ? 80 : columns,
    maxArrayLength: 200,
    maxStringLength: 20_000,
  })
}

/** Everything after the logs: the value, or the failure with its kind, and what else the reader must know. */
function describeOutput(output: ProgramRunOutput, style: TerminalStyle, colors: boolean): string[] {
  const { result, error, diagnostics = [], sessionEnded } = output.structured
  const lines: string[] = []
  if (error === undefined) {
    if (result !== undefined) lines.push(showValue(result, colors))
  } else if (error.kind === 'refused') {
    lines.push(`${style.red('refused by the type check')} (nothing ran):`, formatProgramDiagnostics(diagnostics))
  } else {
    lines.push(`${style.red(`${error.kind}:`)} ${error.message}`)
    if (diagnostics.length > 0)
      lines.push(
        style.dim(
          `The type check flagged these; one may explain the failure:\n${formatProgramDiagnostics(diagnostics)}`,
        ),
      )
  }
  for (const block of output.media)
    lines.push(
      style.dim(
        `(a tool produced ${block.type === 'image' || block.type === 'audio' ? `${block.type} ${block.mimeType}` : block.type})`,
      ),
    )
  if (sessionEnded !== undefined) {
    lines.push(
      style.dim(
        `(the session's variables are gone: its sandbox ${sessionEnded === 'expired' ? 'expired after sitting idle' : 'stopped'}; the next input starts a new session)`,
      ),
    )
  }
  return lines
}

/** What the REPL runs against; the session, while the backend has sessions. */
interface ReplTarget {
  readonly runtime: CodeModeRuntime
  readonly upstreams: readonly UpstreamServer[]
  readonly typeCheck: Extract<CliCommand, { command: 'repl' }>['typeCheck']
  /** `--yes`: allow every call that needs approval without asking. */
  readonly allowAll: boolean
}

/** Reads and runs inputs until `.exit`, Ctrl-D or a second Ctrl-C; resolves once the last input settled. */
function runRepl(target: ReplTarget, onToolsChanged: (listener: () => void) => void): Promise<void> {
  const input = process.stdin
  const output = process.stdout
  const style = styleFor(output)
  const colors = usesColour(output)
  const write = (text: string): void => {
    output.write(`${text}\n`)
  }
  const history = openReplHistory(replHistoryPath(), line => write(style.dim(`(${line})`)))
  const readline: Interface = createInterface({
    input,
    output,
    terminal: input.isTTY === true && output.isTTY === true,
    history: [...history.lines],
    historySize: REPL_HISTORY_SIZE,
    removeHistoryDuplicates: true,
    prompt: PROMPT,
  })
  readline.on('history', (lines: string[]) => history.save(lines))

  let codeMode: CodeMode | undefined
  const currentCodeMode = (): CodeMode =>
    (codeMode ??= catalogCodeMode(target.runtime, buildToolCatalog(target.upstreams), {
      maxResultChars: MAX_RESULT_CHARS_LIMIT,
      typeCheck: target.typeCheck,
    }))
  onToolsChanged(() => {
    codeMode = undefined
  })
  let session: CodeModeSession | undefined = createCodeModeSession(target.runtime as Required<CodeModeRuntime>)
  // A question takes the next line typed as its answer (readline gives it to the question, not to 'line').
  const isTerminal = input.isTTY === true && output.isTTY === true
  const approve = terminalApprover({
    allowAll: target.allowAll,
    isTerminal,
    ask: (question, signal) =>
      new Promise((resolve, reject) => {
        const onAbort = (): void => {
          output.write('\n')
          reject(signal.reason)
        }
        signal.addEventListener('abort', onAbort, { once: true })
        readline.question(question, { signal }, answer => {
          signal.removeEventListener('abort', onAbort)
          resolve(answer)
        })
      }),
  })
  let buffer: string[] = []
  let running: AbortController | undefined
  let interruptedOnce = false
  let closed = false
  // Inputs run in the order they were typed, one at a time; lines typed during a run wait their turn.
  let queue: Promise<void> = Promise.resolve()

  const prompt = (): void => {
    if (closed) return
    readline.setPrompt(buffer.length === 0 ? PROMPT : CONTINUATION_PROMPT)
    readline.prompt()
  }

  async function run(code: string): Promise<ProgramRunOutput> {
    const controller = new AbortController()
    running = controller
    const options = { signal: controller.signal, onLog: write, approve }
    try {
      return await runProgram(currentCodeMode(), code, session === undefined ? options : { ...options, session })
    } catch (error) {
      if (!CodeModeError.is(error) || error.code !== 'CODE_MODE_SESSIONS_UNSUPPORTED') throw error
      write(style.dim(`(${error.message}; every input now starts from nothing)`))
      session = undefined
      return await runProgram(currentCodeMode(), code, options)
    } finally {
      running = undefined
    }
  }

  async function command(name: string): Promise<void> {
    switch (name) {
      case '.help':
        write(REPL_HELP)
        return
      case '.reset':
        await session?.reset()
        write(style.dim('(every variable forgotten)'))
        return
      case '.exit':
        readline.close()
        return
      default:
        write(`${style.red('unknown command')} ${name}; .help lists them.`)
    }
  }

  async function handle(line: string): Promise<void> {
    interruptedOnce = false
    if (buffer.length === 0 && /^\s*\.[a-z]+\s*$/.test(line)) {
      await command(line.trim())
      return
    }
    if (buffer.length === 0 && line.trim() === '') return
    buffer.push(line)
    const code = buffer.join('\n')
    if (await programNeedsMoreInput(code)) return
    buffer = []
    try {
      for (const text of describeOutput(await run(code), style, colors)) write(text)
    } catch (error) {
      // Not the program's failure (those are results) but the run's: say it, and keep the prompt.
      write(`${style.red('error:')} ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  readline.on('line', line => {
    queue = queue.then(() => handle(line)).then(prompt, prompt)
  })

  readline.on('SIGINT', () => {
    if (running !== undefined) {
      running.abort('Interrupted by Ctrl-C.')
      return
    }
    if (buffer.length > 0 || readline.line !== '') {
      buffer = []
      readline.write(null, { ctrl: true, name: 'e' })
      readline.write(null, { ctrl: true, name: 'u' })
      output.write('\n')
      interruptedOnce = false
      prompt()
      return
    }
    if (interruptedOnce) {
      readline.close()
      return
    }
    interruptedOnce = true
    output.write('\n(To exit, press Ctrl-C again or Ctrl-D, or type .exit)\n')
    prompt()
  })

  write(
    style.dim(
      `code-runtime repl: ${buildToolCatalog(target.upstreams).tools.length} tools as ${TOOLS_NAMESPACE}.<server>_<tool>(args); variables persist between inputs; .help for help.`,
    ),
  )
  prompt()
  return new Promise(resolve => {
    readline.on('close', () => {
      closed = true
      running?.abort(new Error('The REPL is closing.'))
      output.write('\n')
      void queue
        .then(() => session?.dispose())
        .catch(() => undefined)
        .then(() => resolve())
    })
  })
}

/** Runs the `repl` command until the user leaves; resolves the exit code. */
export async function replCommand(command: Extract<CliCommand, { command: 'repl' }>): Promise<number> {
  const toolListeners: (() => void)[] = []
  const session = await openSession(command.configPath, {
    onStderrLine: (server, line) => process.stderr.write(`[${server.name}] ${line}\n`),
    onToolsChanged: () => {
      for (const listener of toolListeners) listener()
    },
  })
  try {
    const started = await startServingBackend(session, command)
    if (started === undefined) return EXIT_SETUP_FAILED
    try {
      await runRepl(
        {
          runtime: withBudgetOptionNames(started.runtime),
          upstreams: session.upstreams,
          typeCheck: command.typeCheck,
          allowAll: command.allowAll,
        },
        listener => toolListeners.push(listener),
      )
      return EXIT_SUCCESS
    } finally {
      await started.dispose()
    }
  } finally {
    await session.close()
  }
}
