/**
 * Who approves calls in `code-runtime run`: the person at the terminal, asked one question at a
 * time (`y` allows the call, `n` declines it, `a` allows it and the rest of the run), or
 * `--yes` for all. Without a terminal nobody can be asked, so such calls are declined.
 */
import { createInterface } from 'node:readline'
import type { ApproveToolCall, ToolApprovalDecision } from '@code-runtime/code-mode'
import { renderArguments } from './client-approval.js'

/** Options of {@link terminalApprover}. */
export interface TerminalApproverOptions {
  /** `--yes`: allow every call without asking. */
  readonly allowAll: boolean
  readonly input: NodeJS.ReadStream
  readonly output: NodeJS.WriteStream
  /** Called before a question is shown: a progress line that redraws itself would write over it. */
  readonly beforeQuestion?: () => void
}

/** Reads an answer: `y`/`yes`, `a`/`all`, anything else (an empty line too) declines. */
export function readTerminalAnswer(answer: string): ToolApprovalDecision {
  const word = answer.trim().toLowerCase()
  if (word === 'y' || word === 'yes') return { action: 'allow' }
  if (word === 'a' || word === 'all') return { action: 'allow-run' }
  return { action: 'decline', reason: 'declined at the terminal' }
}

/** The approver of a `run`: --yes, the terminal, or a refusal when there is none. */
export function terminalApprover(options: TerminalApproverOptions): ApproveToolCall {
  const { allowAll, input, output } = options
  // Parallel calls may all need approval: their questions wait for each other.
  let previous: Promise<unknown> = Promise.resolve()
  return (request, { signal }) => {
    if (allowAll) return { action: 'allow' }
    if (input.isTTY !== true || output.isTTY !== true) {
      return { action: 'decline', reason: 'nobody can be asked here (no terminal); run with --yes to allow such calls' }
    }
    const asked = previous.then(() => new Promise<ToolApprovalDecision>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason)
        return
      }
      options.beforeQuestion?.()
      const terminal = createInterface({ input, output, terminal: true })
      // Ctrl-C at the question stops the run, as it does anywhere else in `run`.
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
      const purpose = request.programDescription === undefined ? '' : ` (${request.programDescription})`
      terminal.question(`The program${purpose} wants to call ${request.tool} with:\n${renderArguments(request.args)}\nAllow it? [y]es, [n]o, [a]ll of this run: `, (answer) => {
        signal.removeEventListener('abort', onAbort)
        terminal.close()
        resolve(readTerminalAnswer(answer))
      })
    }))
    previous = asked.catch(() => undefined)
    return asked
  }
}
