/**
 * Who approves calls at a terminal (`code-runtime run` and `repl`): the person there, asked one
 * question at a time (`y` allows the call, `n` declines it, `a` allows it and the rest of the
 * run), or `--yes` for all. Without a terminal nobody can be asked, so such calls are declined.
 */
import { createInterface } from 'node:readline'
import {
  showProgramText,
  type ApproveToolCall,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
} from '@code-runtime/code-mode'

/** Shows `question` and resolves the line typed in answer; rejects with the signal's reason when it fires first. */
export type AskAtTerminal = (question: string, signal: AbortSignal) => Promise<string>

/** Options of {@link terminalApprover}. */
export interface TerminalApproverOptions {
  /** `--yes`: allow every call without asking. */
  readonly allowAll: boolean
  /** False when input or output is not a terminal: nobody is asked, such calls are declined. */
  readonly isTerminal: boolean
  readonly ask: AskAtTerminal
}

/** Reads an answer: `y`/`yes`, `a`/`all`, anything else (an empty line too) declines. */
export function readTerminalAnswer(answer: string): ToolApprovalDecision {
  const word = answer.trim().toLowerCase()
  if (word === 'y' || word === 'yes') return { action: 'allow' }
  if (word === 'a' || word === 'all') return { action: 'allow-run' }
  return { action: 'decline', reason: 'declined at the terminal' }
}

/** The question for one call, with every argument it carries (Code Mode's summary, no field left out). */
export function terminalQuestion(request: ToolApprovalRequest): string {
  const purpose = request.programDescription === undefined ? '' : ` (${showProgramText(request.programDescription)})`
  return `The program${purpose} wants to call ${request.tool} with:\n${request.summary}\nAllow it? [y]es, [n]o, [a]ll of this run: `
}

/** The approver of a terminal command: --yes, the person at the terminal, or a refusal when there is none. */
export function terminalApprover(options: TerminalApproverOptions): ApproveToolCall {
  const { allowAll, isTerminal, ask } = options
  // Parallel calls may all need approval: their questions wait for each other.
  let previous: Promise<unknown> = Promise.resolve()
  return (request, { signal }) => {
    if (allowAll) return { action: 'allow' }
    if (!isTerminal)
      return {
        action: 'decline',
        unasked: true,
        reason: 'there is no terminal to ask at (run with --yes to allow such calls)',
      }
    const asked = previous.then(async () => {
      if (signal.aborted) throw signal.reason
      return readTerminalAnswer(await ask(terminalQuestion(request), signal))
    })
    previous = asked.catch(() => undefined)
    return asked
  }
}

/**
 * Asks on a readline of its own over `input` and `output` (for `run`, which has none open).
 * Ctrl-C at the question stops the run, as it does anywhere else in `run`.
 */
export function askOnFreshReadline(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  beforeQuestion?: () => void,
): AskAtTerminal {
  return (question, signal) =>
    new Promise((resolve, reject) => {
      beforeQuestion?.()
      const terminal = createInterface({ input, output, terminal: true })
      terminal.on('SIGINT', () => {
        terminal.close()
        process.kill(process.pid, 'SIGINT')
      })
      const onAbort = (): void => {
        terminal.close()
        output.write('\n')
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      terminal.question(question, answer => {
        signal.removeEventListener('abort', onAbort)
        terminal.close()
        resolve(answer)
      })
    })
}
