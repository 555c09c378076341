/**
 * The backends name a budget by its config field (`Stopped after 300 ms of wall time
 * (maxWallMs)`), but the user of the CLI set it with `--timeout-ms` and has no `maxWallMs` to
 * change. This wraps a runtime so that timeout failures name the option instead; everything
 * else in a result passes through untouched.
 */
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
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

/**
 * `runtime`, whose timeout failures name the CLI options. Only `timeout` failures are touched:
 * a program that throws an error mentioning `(maxWallMs)` gets its own text back.
 */
export function withBudgetOptionNames(runtime: CodeModeRuntime): CodeModeRuntime {
  return {
    async run(request: CodeRunRequest): Promise<CodeRunResult> {
      const result = await runtime.run(request)
      if (result.error?.kind !== 'timeout') return result
      return { ...result, error: { ...result.error, message: nameBudgetOptions(result.error.message) } }
    },
  }
}
