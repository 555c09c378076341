/**
 * The backends name a budget by its config field (`Stopped after 300 ms of wall time
 * (maxWallMs)`), but the user of the CLI set it with `--timeout-ms` and has no `maxWallMs` to
 * change. This wraps a runtime so that timeout failures name the option instead; everything
 * else in a result passes through untouched.
 */
import type { CodeRunRequest, CodeRunResult, CodeSession, CodeSessionOptions } from '@code-runtime/core'
import type { CodeModeRuntime } from '@code-runtime/code-mode'

/** Backend config field → the CLI option that sets it. */
const OPTION_OF_FIELD: ReadonlyArray<readonly [field: string, option: string]> = [
  ['maxWallMs', '--timeout-ms'],
  ['computeMs', '--compute-ms'],
]

/** `message` with each `(field)` of a budget written as `(--option)`. */
export function nameBudgetOptions(message: string): string {
  let named = message
  for (const [field, option] of OPTION_OF_FIELD) named = named.replaceAll(`(${field})`, `(${option})`)
  return named
}

/** `result` with a timeout's budget named by its CLI option; any other result as it is. */
function renameTimeout(result: CodeRunResult): CodeRunResult {
  if (result.error?.kind !== 'timeout') return result
  return { ...result, error: { ...result.error, message: nameBudgetOptions(result.error.message) } }
}

/** `session`, whose runs' timeout failures name the CLI options. */
function sessionWithOptionNames(session: CodeSession): CodeSession {
  return {
    get id() {
      return session.id
    },
    get endReason() {
      return session.endReason
    },
    run: async (request) => renameTimeout(await session.run(request)),
    dispose: () => session.dispose(),
  }
}

/**
 * `runtime`, whose timeout failures name the CLI options, in one-shot runs and in sessions (when
 * it has them). Only `timeout` failures are touched: a program that throws an error mentioning
 * `(maxWallMs)` gets its own text back.
 */
export function withBudgetOptionNames(runtime: CodeModeRuntime): CodeModeRuntime {
  const named: CodeModeRuntime = {
    run: async (request: CodeRunRequest): Promise<CodeRunResult> => renameTimeout(await runtime.run(request)),
  }
  const { openSession } = runtime
  if (openSession === undefined) return named
  return { ...named, openSession: async (options?: CodeSessionOptions) => sessionWithOptionNames(await openSession.call(runtime, options)) }
}
