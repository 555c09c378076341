/**
 * How checks get a runtime and run a program: one runtime per describe block (started in
 * `before`, disposed in `after`), or one started inside a check and always disposed; and the one
 * helper that runs a program and checks the result's shape, so every check also checks that
 * `run()` resolved instead of rejecting.
 */
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { StartedCodeRuntime } from '../start-runtime.js'
import { CODE_RUN_FAILURE_KINDS, type CodeRunRequest, type CodeRunResult } from '../types.js'
import type { ConformanceRuntimeConfig, ConformanceTarget } from './target.js'

/** Renders anything for an assertion message, briefly and without throwing. */
export function describeForAssertion(value: unknown): string {
  try {
    if (value instanceof Error) return `${value.name}: ${value.message}`
    const text = JSON.stringify(value) ?? String(value)
    return text.length > 400 ? `${text.slice(0, 397)}...` : text
  } catch {
    return String(value)
  }
}

/** Wraps a started runtime so that disposing it twice is harmless. */
function disposeOnce(started: StartedCodeRuntime<CodeRuntime>): StartedCodeRuntime<CodeRuntime> {
  let disposal: Promise<void> | undefined
  return { runtime: started.runtime, dispose: () => (disposal ??= started.dispose()) }
}

/**
 * Starts one runtime for the enclosing describe block and disposes it in `after`.
 * @param config the budgets, or a function that computes them when the block starts (after
 *   the `before` hooks registered ahead of this call, e.g. one that measured the machine).
 * @returns a getter for the runtime, to call inside `it`.
 */
export function useRuntime(
  target: ConformanceTarget,
  config: ConformanceRuntimeConfig | (() => ConformanceRuntimeConfig) = {},
): () => CodeRuntime {
  let started: StartedCodeRuntime<CodeRuntime> | undefined
  before(async () => {
    started = disposeOnce(await target.start(typeof config === 'function' ? config() : config))
  })
  after(async () => {
    const current = started
    started = undefined
    await current?.dispose()
  })
  return () => {
    assert.ok(started !== undefined, `the ${target.name} runtime of this block did not start`)
    return started.runtime
  }
}

/** Starts a runtime for one check and disposes it when the check ends, however it ends. */
export async function withRuntime<T>(
  target: ConformanceTarget,
  config: ConformanceRuntimeConfig,
  check: (started: StartedCodeRuntime<CodeRuntime>) => Promise<T>,
): Promise<T> {
  const started = disposeOnce(await target.start(config))
  try {
    return await check(started)
  } finally {
    await started.dispose()
  }
}

/** Joins program lines with `\n`, so a check knows the line each statement is on. */
export function programLines(...lines: string[]): string {
  return lines.join('\n')
}

const RESULT_KEYS: ReadonlySet<string> = new Set(['value', 'logs', 'error', 'usage', 'calls'])
const CALL_OUTCOMES: ReadonlySet<unknown> = new Set(['ok', 'error', 'in-flight'])
const FAILURE_KEYS: ReadonlySet<string> = new Set(['kind', 'message', 'budget', 'session'])

/** CONTRACT section #failure-facts: a failure's `budget` is a timeout's, `{ name, limit }` and nothing else. */
function assertBudgetShape(budget: unknown, kind: unknown): void {
  assert.equal(
    kind,
    'timeout',
    `only a timeout names the budget that ended it, got one on ${describeForAssertion(kind)}`,
  )
  assert.ok(typeof budget === 'object' && budget !== null && !Array.isArray(budget), 'result.error.budget is an object')
  assert.deepEqual(Object.keys(budget).sort(), ['limit', 'name'], 'result.error.budget is { name, limit }')
  const { name, limit } = budget as Record<string, unknown>
  assert.ok(typeof name === 'string' && name !== '', 'result.error.budget.name is a non-empty string')
  assert.ok(
    typeof limit === 'number' && Number.isFinite(limit) && limit > 0,
    'result.error.budget.limit is a number above 0',
  )
}

/** CONTRACT section #failure-facts: a failure's `session` is `{ id, ended }` and nothing else. */
function assertSessionEndShape(session: unknown): void {
  assert.ok(
    typeof session === 'object' && session !== null && !Array.isArray(session),
    'result.error.session is an object',
  )
  assert.deepEqual(Object.keys(session).sort(), ['ended', 'id'], 'result.error.session is { id, ended }')
  const { id, ended } = session as Record<string, unknown>
  assert.ok(typeof id === 'string' && id !== '', 'result.error.session.id is a non-empty string')
  assert.ok(
    ended === 'lost' || ended === 'expired',
    `result.error.session.ended is lost or expired, got ${describeForAssertion(ended)}`,
  )
}

function assertNonNegative(value: unknown, what: string, integer = false): void {
  assert.ok(
    typeof value === 'number' && Number.isFinite(value) && value >= 0 && (!integer || Number.isInteger(value)),
    `${what} is a non-negative ${integer ? 'integer' : 'number'}, got ${describeForAssertion(value)}`,
  )
}

/** Checks `usage` and `calls`, which every backend of this project reports on every result. */
function assertObservations(result: Record<string, unknown>): void {
  const usage = result['usage']
  assert.ok(typeof usage === 'object' && usage !== null, 'result.usage is present')
  const { wallMs, busyMs, bindingCalls, outputBytes, endHeapBytes } = usage as Record<string, unknown>
  assertNonNegative(wallMs, 'usage.wallMs')
  assertNonNegative(busyMs, 'usage.busyMs')
  assertNonNegative(bindingCalls, 'usage.bindingCalls', true)
  assertNonNegative(outputBytes, 'usage.outputBytes', true)
  if (endHeapBytes !== undefined) assertNonNegative(endHeapBytes, 'usage.endHeapBytes', true)
  const calls = result['calls']
  assert.ok(Array.isArray(calls), 'result.calls is an array')
  assert.equal(calls.length, bindingCalls, 'result.calls has one record per binding call counted in usage')
  let previousStart = 0
  for (const call of calls as unknown[]) {
    assert.ok(typeof call === 'object' && call !== null, 'every call record is an object')
    const record = call as Record<string, unknown>
    assert.equal(typeof record['namespace'], 'string', 'a call record names its namespace')
    assert.equal(typeof record['member'], 'string', 'a call record names its member')
    assertNonNegative(record['startMs'], 'a call record startMs')
    assertNonNegative(record['durationMs'], 'a call record durationMs')
    assert.ok(
      CALL_OUTCOMES.has(record['outcome']),
      `a call outcome is ok, error or in-flight, got ${describeForAssertion(record['outcome'])}`,
    )
    assert.ok((record['startMs'] as number) >= previousStart, 'call records are in start order')
    previousStart = record['startMs'] as number
  }
}

/** Checks a result has exactly the documented shape (CONTRACT section #result-shape, with #usage and #call-record). */
function assertResultShape(result: unknown): asserts result is CodeRunResult {
  assert.ok(
    typeof result === 'object' && result !== null,
    `run() resolved ${describeForAssertion(result)}, not a result object`,
  )
  const keys = Object.keys(result)
  for (const key of keys) {
    assert.ok(RESULT_KEYS.has(key), `the result has an unknown key ${JSON.stringify(key)}`)
  }
  assertObservations(result as Record<string, unknown>)
  const { logs, error } = result as Record<string, unknown>
  assert.ok(Array.isArray(logs), 'result.logs is not an array')
  for (const entry of logs as unknown[]) assert.equal(typeof entry, 'string', 'every log entry is a string')
  if ('value' in result)
    assert.notEqual((result as Record<string, unknown>)['value'], undefined, 'result.value is present but undefined')
  if ('error' in result) {
    assert.ok(typeof error === 'object' && error !== null, 'result.error is present but not an object')
    const { kind, message } = error as Record<string, unknown>
    assert.ok(
      (CODE_RUN_FAILURE_KINDS as readonly unknown[]).includes(kind),
      `result.error.kind ${describeForAssertion(kind)} is not a failure kind`,
    )
    assert.equal(typeof message, 'string', 'result.error.message is a string')
    for (const key of Object.keys(error))
      assert.ok(FAILURE_KEYS.has(key), `result.error has an unknown key ${JSON.stringify(key)}`)
    if ('budget' in error) assertBudgetShape((error as Record<string, unknown>)['budget'], kind)
    if ('session' in error) assertSessionEndShape((error as Record<string, unknown>)['session'])
    assert.ok(!('value' in result), 'a failed run has no value key')
  }
}

/**
 * Runs a program and returns its result, failing the check when `run()` throws or rejects:
 * every program outcome must resolve (CONTRACT section #resolve-never-reject).
 */
export async function runProgram(runtime: Pick<CodeRuntime, 'run'>, request: CodeRunRequest): Promise<CodeRunResult> {
  let pending: Promise<CodeRunResult>
  try {
    pending = runtime.run(request)
  } catch (error) {
    assert.fail(`run() threw synchronously for a program outcome: ${describeForAssertion(error)}`)
  }
  let result: unknown
  try {
    result = await pending
  } catch (error) {
    assert.fail(`run() rejected for a program outcome instead of resolving: ${describeForAssertion(error)}`)
  }
  assertResultShape(result)
  return result
}
