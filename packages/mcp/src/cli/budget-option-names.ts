/**
 * The backends name a budget by its config field (`Stopped after 300 ms of wall time
 * (maxWallMs)`), but the user of the CLI set it with `--timeout-ms` and has no `maxWallMs` to
 * change. This wraps a runtime so that timeout failures name the option instead; everything
 * else in a result passes through untouched. Which budget ran out is read from the failure's
 * `budget` (CONTRACT section #failure-facts), never guessed from its text; only a backend that
 * does not report it (a remote one) has its message searched for every budget's field.
 */
import type { CodeRunFailure, CodeRunRequest, CodeRunResult, CodeSession, CodeSessionOptions } from '@code-runtime/core'
import type { CodeModeRuntime } from '@code-runtime/code-mode'
import type { MovableSession, SessionFleet } from '../cluster/shared-sessions.js'

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

/** The failure's message with the budget that ran out named by its option, where the CLI has one. */
function namedTimeoutMessage(failure: CodeRunFailure): string {
  if (failure.budget === undefined) return nameBudgetOptions(failure.message)
  const { name } = failure.budget
  const option = OPTION_OF_FIELD.find(([field]) => field === name)?.[1]
  return option === undefined ? failure.message : failure.message.replaceAll(`(${name})`, `(${option})`)
}

/** `result` with a timeout's budget named by its CLI option; any other result as it is. */
function renameTimeout(result: CodeRunResult): CodeRunResult {
  if (result.error?.kind !== 'timeout') return result
  return { ...result, error: { ...result.error, message: namedTimeoutMessage(result.error) } }
}

/** `session`, whose runs' timeout failures name the CLI options; a session another node can take over stays one. */
function sessionWithOptionNames(session: CodeSession): CodeSession {
  const named: CodeSession = {
    get id() {
      return session.id
    },
    get endReason() {
      return session.endReason
    },
    run: async request => renameTimeout(await session.run(request)),
    dispose: () => session.dispose(),
  }
  const movable = session as Partial<MovableSession>
  const { keepMemo, release } = movable
  if (keepMemo === undefined || release === undefined) return named
  return Object.defineProperties(named, {
    address: { get: () => movable.address, enumerable: true },
    movedAway: { get: () => movable.movedAway === true, enumerable: true },
    keepMemo: { value: (memo: string) => keepMemo.call(session, memo), enumerable: true },
    release: { value: () => release.call(session), enumerable: true },
  })
}

/**
 * `runtime`, whose timeout failures name the CLI options, in one-shot runs and in sessions (when
 * it has them). Only `timeout` failures are touched: a program that throws an error mentioning
 * `(maxWallMs)` gets its own text back.
 */
export function withBudgetOptionNames(runtime: CodeModeRuntime): CodeModeRuntime {
  const named: CodeModeRuntime = {
    run: async (request: CodeRunRequest): Promise<CodeRunResult> => renameTimeout(await runtime.run(request)),
    // Still the same backend, as a run's span names it.
    ...(runtime.isolation === undefined ? {} : { isolation: runtime.isolation }),
  }
  const { openSession } = runtime
  if (openSession === undefined) return named
  const withSessions = {
    ...named,
    openSession: async (options?: CodeSessionOptions) =>
      sessionWithOptionNames(await openSession.call(runtime, options)),
  }
  // The NATS backend's sessions can be taken over by another gateway node (cluster/shared-sessions.ts).
  const { adoptSession } = runtime as Partial<SessionFleet>
  if (adoptSession === undefined) return withSessions
  const fleet: CodeModeRuntime & SessionFleet = {
    ...withSessions,
    adoptSession: async (address: string) => {
      const adopted = await adoptSession.call(runtime, address)
      return { session: sessionWithOptionNames(adopted.session) as MovableSession, memo: adopted.memo }
    },
  }
  return fleet
}
