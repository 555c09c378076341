/**
 * Assertions on run results and rejections, shared by every section. They assert kinds, codes
 * and the fragments a reader relies on, never whole messages.
 */
import assert from 'node:assert/strict'
import { dirname, isAbsolute, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CodeRuntime } from '../code-runtime.js'
import { CodeRuntimeError, type CodeRuntimeErrorCode } from '../errors.js'
import { jsonStringByteLength, jsonValueByteLength, logsByteLength } from '../output-ledger.js'
import type { CodeJsonValue, CodeRunFailureKind, CodeRunRequest, CodeRunResult } from '../types.js'
import { describeForAssertion } from './runtime-fixture.js'

/**
 * Rebuilds a JSON value with ordinary prototypes, so a backend may hand back null-prototype
 * objects (allowed by CONTRACT section #json-accepted) and still compare equal. A literal `__proto__` key
 * stays an own key.
 */
export function toPlainJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlainJson)
  if (typeof value !== 'object' || value === null) return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: toPlainJson((value as Record<string, unknown>)[key]),
      writable: true,
      enumerable: true,
      configurable: true,
    })
  }
  return copy
}

/** Asserts that two JSON values are equal, ignoring object prototypes. */
export function assertJsonEqual(actual: unknown, expected: unknown, message?: string): void {
  assert.deepEqual(toPlainJson(actual), toPlainJson(expected), message)
}

/** Asserts the run succeeded with `expected` as its value. */
export function assertValue(result: CodeRunResult, expected: CodeJsonValue): void {
  assert.equal(result.error, undefined, `expected a value, got the failure ${describeForAssertion(result.error)}`)
  assert.ok('value' in result, `expected the value ${describeForAssertion(expected)}, but the value key is absent`)
  assertJsonEqual(result.value, expected)
}

/** Asserts the run succeeded without a value: the `value` key itself is absent. */
export function assertNoValue(result: CodeRunResult): void {
  assert.equal(result.error, undefined, `expected success, got the failure ${describeForAssertion(result.error)}`)
  assert.ok(!('error' in result), 'a successful run has no error key')
  assert.ok(!('value' in result), `expected no value key, got ${describeForAssertion(result.value)}`)
}

/**
 * The first two folders of an absolute path, with the slash after them (`/home/ada/` of
 * `/home/ada/src/code-runtime`): where this machine keeps the checkout or the install, and so
 * every package of it, the guest files a backend loads included. One folder alone (`/home/`) could
 * be text a program prints; `undefined` for a path not that deep.
 */
export function installPrefixOf(path: string): string | undefined {
  const folders = path.split(sep).filter(folder => folder !== '')
  if (!isAbsolute(path) || folders.length < 2) return undefined
  return `${sep}${folders[0] as string}${sep}${folders[1] as string}${sep}`
}

// Fragments that only a host path or a host stack frame contains: generic ones, then this
// machine's own folders, found where this suite runs rather than written down for one machine.
const HOST_PATH_FRAGMENTS: readonly string[] = (() => {
  const fragments = ['node:internal', 'file://', '/node_modules/', 'internal/modules/']
  // This file is <package>/dist/src/conformance/assertions.js.
  const packageFolder = dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url)))))
  fragments.push(packageFolder)
  const cwd = process.cwd()
  if (cwd.length > 1) fragments.push(cwd)
  for (const path of [packageFolder, cwd]) {
    const prefix = installPrefixOf(path)
    if (prefix !== undefined && !fragments.includes(prefix)) fragments.push(prefix)
  }
  return fragments
})()

/** Asserts `text` names no host file path and no frame outside the program (CONTRACT section #stack-privacy). */
export function assertNoHostPaths(text: string, label: string): void {
  for (const fragment of HOST_PATH_FRAGMENTS) {
    assert.ok(
      !text.includes(fragment),
      `${label} reveals the host path fragment ${JSON.stringify(fragment)}: ${JSON.stringify(text)}`,
    )
  }
}

/**
 * CONTRACT section #failure-facts: a timeout that reports its budget names the one that ran out,
 * with the value it had. A backend that cannot tell (a remote one whose wire does not carry it
 * yet) leaves `budget` out, and the message alone names the budget.
 */
export function assertBudgetFacts(result: CodeRunResult, name: string, limit: number): void {
  const budget = result.error?.budget
  if (budget === undefined) return
  assert.deepEqual(
    { name: budget.name, limit: budget.limit },
    { name, limit },
    `the timeout reports the budget ${name} of ${limit}`,
  )
}

/**
 * Asserts the run failed with `kind` and no value, and that its message is free of host paths
 * and (except for `output-limit`) not empty.
 * @returns the failure message, for further fragment checks.
 */
export function assertFailure(result: CodeRunResult, kind: CodeRunFailureKind): string {
  assert.equal(
    result.error?.kind,
    kind,
    `expected a ${kind} failure, got ${describeForAssertion(result.error ?? { value: result.value })}`,
  )
  assert.ok(!('value' in result), 'a failed run has no value key')
  const message = result.error?.message ?? ''
  // Under a cap of a few bytes even an output-limit message must be cut, possibly to nothing.
  if (kind !== 'output-limit') assert.ok(message.length > 0, 'the failure message is not empty')
  assertNoHostPaths(message, `the ${kind} message`)
  return message
}

/** Asserts `text` contains `number` as a whole number (not as part of a longer one). */
export function assertMentionsNumber(text: string, number: number, what: string): void {
  assert.match(
    text,
    new RegExp(`(^|[^0-9])${number}([^0-9]|$)`),
    `expected the message to name ${what} ${number}: ${JSON.stringify(text)}`,
  )
}

/**
 * Asserts that `run(request)` rejects (not throws) with a {@link CodeRuntimeError} of `code`.
 * @returns the error, for further checks.
 */
export async function assertRunRejects(
  runtime: Pick<CodeRuntime, 'run'>,
  request: CodeRunRequest,
  code: CodeRuntimeErrorCode,
): Promise<CodeRuntimeError> {
  let pending: Promise<CodeRunResult>
  try {
    pending = runtime.run(request)
  } catch (error) {
    assert.fail(`run() threw synchronously instead of rejecting: ${describeForAssertion(error)}`)
  }
  let rejection: unknown
  try {
    const result = await pending
    assert.fail(`run() resolved ${describeForAssertion(result)} instead of rejecting with ${code}`)
  } catch (error) {
    rejection = error
  }
  if (rejection instanceof assert.AssertionError) throw rejection
  assert.ok(
    CodeRuntimeError.is(rejection),
    `run() rejected with ${describeForAssertion(rejection)}, not a CodeRuntimeError`,
  )
  assert.equal(rejection.code, code, `run() rejected with ${rejection.code}: ${rejection.message}`)
  return rejection
}

/** Bytes the result costs under CONTRACT section #output-bytes: logs plus value or failure message. */
export function outputBytes(result: CodeRunResult): number {
  const logsBytes = logsByteLength(result.logs)
  if (result.error !== undefined) return logsBytes + jsonStringByteLength(result.error.message)
  return logsBytes + (result.value === undefined ? 0 : jsonValueByteLength(result.value))
}

/** Asserts the result's output stays within `maxOutputBytes`. */
export function assertWithinCap(result: CodeRunResult, maxOutputBytes: number): void {
  const bytes = outputBytes(result)
  assert.ok(
    bytes <= maxOutputBytes,
    `the result costs ${bytes} bytes, above the cap of ${maxOutputBytes}: ${describeForAssertion(result)}`,
  )
}

/**
 * Asserts `logs` is a prefix of `printed`: every entry verbatim, except that the last may be cut
 * short at a code-point boundary.
 */
export function assertLogsPrefix(logs: readonly string[], printed: readonly string[]): void {
  assert.ok(logs.length <= printed.length, `${logs.length} log entries kept, but only ${printed.length} were printed`)
  logs.forEach((entry, index) => {
    const original = printed[index] as string
    if (index < logs.length - 1) {
      assert.equal(entry, original, `log entry ${index} is not verbatim`)
      return
    }
    assert.ok(
      original.startsWith(entry),
      `the last log entry kept is not a prefix of what was printed: ${JSON.stringify(entry.slice(0, 80))}`,
    )
    const last = entry.charCodeAt(entry.length - 1)
    assert.ok(
      !(last >= 0xd800 && last <= 0xdbff),
      'the last log entry is cut inside a surrogate pair, not at a code-point boundary',
    )
  })
}
