/**
 * CONTRACT section #call-site-positions: a failed binding call names the place in the program
 * where it was made, in the error the program catches (its stack) and in the run's message when
 * the program does not catch it (`Name: message (at line L, column C)`); whatever the program
 * does to `Error` in its own realm, the run's message names the real call site and no other.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeBindingNamespace } from '../types.js'
import { assertFailure } from './assertions.js'
import { describeForAssertion, programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** `echo` resolves its argument, `fail` always rejects, both under the error class `ToolCallError`. */
const TOOLS: CodeBindingNamespace = {
  global: 'tools',
  functions: {
    echo: (args: unknown) => Promise.resolve(args as null),
    fail: () => Promise.reject(new Error('refused by the host')),
  },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}

/** Lines before the interesting one, so a position cannot pass by pointing at line 1 or 2. */
const LEADING_LINES = ['// a model-written program', 'const first = await tools.echo(1)', '']

/** A call on line `line` of the program, which reads `lineText` and makes the call `callText`. */
interface CallSite {
  readonly line: number
  readonly lineText: string
  readonly callText: string
}

/**
 * The frame lines (`at ... (program.ts:L:C)`) of `text` in order, as [line, column].
 * A backend reports a call at a column between the callee's first character and its `(`.
 */
function framePositions(text: string): [number, number][] {
  const positions: [number, number][] = []
  for (const line of text.split('\n')) {
    const match = /^\s*at .*\bprogram\.ts:(\d+):(\d+)\)?$/.exec(line)
    if (match !== null) positions.push([Number(match[1]), Number(match[2])])
  }
  return positions
}

function isAt(position: [number, number] | undefined, site: CallSite): boolean {
  if (position === undefined || position[0] !== site.line) return false
  const start = site.lineText.indexOf(site.callText) + 1
  assert.ok(start > 0, `the check's own call text ${JSON.stringify(site.callText)} is not on its line`)
  return position[1] >= start && position[1] <= start + site.callText.indexOf('(')
}

/** Asserts the first frame of the stack `text` is the call site. */
function assertStartsAtCall(text: unknown, site: CallSite): void {
  assert.equal(typeof text, 'string', `the stack is not a string: ${describeForAssertion(text)}`)
  const first = framePositions(text as string)[0]
  assert.ok(
    isAt(first, site),
    `the stack should start at line ${site.line}, ${JSON.stringify(site.callText)}: ${JSON.stringify(text)}`,
  )
}

/** Asserts the run's message is one line that ends with the call site's line and column. */
function assertMessageNamesCall(message: string, site: CallSite): void {
  const match = /^[^\n]* \(at line (\d+), column (\d+)\)$/.exec(message)
  const position: [number, number] | undefined = match === null ? undefined : [Number(match[1]), Number(match[2])]
  assert.ok(
    isAt(position, site),
    `the message should end with line ${site.line}, ${JSON.stringify(site.callText)}: ${JSON.stringify(message)}`,
  )
}

/** Runs `lines` after the leading ones; `site` is on the line `lineText` among them. */
function callOn(lines: readonly string[], lineText: string, callText: string): { program: string; site: CallSite } {
  const index = lines.indexOf(lineText)
  assert.ok(index >= 0, "the check's line is not in its program")
  return {
    program: programLines(...LEADING_LINES, ...lines),
    site: { line: LEADING_LINES.length + index + 1, lineText, callText },
  }
}

async function failureMessage(runtime: CodeRuntime, program: string): Promise<string> {
  return assertFailure(await runProgram(runtime, { program, bindings: [TOOLS] }), 'exception')
}

/**
 * Runs `lines` (after the leading ones) and asserts the run's message names the call `callText`
 * on the line `lineText`, and no position the program forged on line 99.
 */
async function assertUncaughtAt(
  runtime: CodeRuntime,
  lines: readonly string[],
  lineText: string,
  callText: string,
): Promise<void> {
  const { program, site } = callOn(lines, lineText, callText)
  const message = await failureMessage(runtime, program)
  assertMessageNamesCall(message, site)
  assert.doesNotMatch(message, /:99:|line 99/, 'the message names a forged position')
}

async function returnedValue(runtime: CodeRuntime, program: string): Promise<unknown> {
  const result = await runProgram(runtime, { program, bindings: [TOOLS] })
  assert.equal(result.error, undefined, `the program failed: ${describeForAssertion(result.error)}`)
  return result.value
}

function describeOrdinaryCalls(runtime: () => CodeRuntime): void {
  void it('names the call site in the stack of the error the program catches', async () => {
    const line = 'try { await tools.fail({ id: 1 }) } catch (error) { return [error.name, error.message, error.stack] }'
    const { program, site } = callOn([line], line, 'tools.fail(')
    const value = await returnedValue(runtime(), program)
    assert.ok(Array.isArray(value))
    assert.deepEqual(value.slice(0, 2), ['ToolCallError', 'refused by the host'])
    assert.match(String(value[2]), /^ToolCallError: refused by the host\n/)
    assertStartsAtCall(value[2], site)
  })

  void it("names the call site's line and column in the message of an uncaught failed call, types stripped before it on its line", async () => {
    const line = 'const found: { id: number } | undefined = await tools.fail<{ id: number }>({ id: 1 } as const)'
    const { program, site } = callOn([line, 'return found'], line, 'tools.fail<{ id: number }>(')
    const message = await failureMessage(runtime(), program)
    assert.match(message, /^ToolCallError: refused by the host \(at line/)
    assertMessageNamesCall(message, site)
  })

  void it('names the failed call among several under Promise.all, and the functions that led to it in its stack', async () => {
    const lines = [
      'async function fetchBoth() {',
      '  await tools.echo({ n: 0 })',
      '  return await Promise.all([',
      '    tools.echo({ n: 1 }),',
      '    tools.fail({ n: 2 }),',
      '  ])',
      '}',
      'await fetchBoth()',
    ]
    const { program, site } = callOn(lines, '    tools.fail({ n: 2 }),', 'tools.fail(')
    assertMessageNamesCall(await failureMessage(runtime(), program), site)
    const stack = await returnedValue(
      runtime(),
      program.replace('await fetchBoth()', 'try { await fetchBoth() } catch (error) { return error.stack }'),
    )
    assertStartsAtCall(stack, site)
    assert.ok(
      framePositions(String(stack)).some(([line]) => line === LEADING_LINES.length + 8),
      `the caller's line is missing: ${String(stack)}`,
    )
  })

  void it('names the call site of a call made in a .then callback', async () => {
    const line = 'return await tools.echo({}).then(() => tools.fail({})).catch((error) => error.stack)'
    const { program, site } = callOn([line], line, 'tools.fail(')
    assertStartsAtCall(await returnedValue(runtime(), program), site)
  })

  void it('names the call site of a call the runtime refuses before it reaches the host', async () => {
    const line = 'await tools.echo({ callback: () => 1 })'
    await assertUncaughtAt(runtime(), [line], line, 'tools.echo(')
  })
}

function describeHostilePrograms(runtime: () => CodeRuntime): void {
  // Each program breaks `Error` in its realm, then lets the failed call on `lineText` end the run.
  const attacks: readonly (readonly [what: string, setup: string])[] = [
    ['sets Error.stackTraceLimit to 0', 'Error.stackTraceLimit = 0'],
    ['deletes Error.stackTraceLimit', 'delete Error.stackTraceLimit'],
    ['replaces Error.captureStackTrace', 'Error.captureStackTrace = () => {}'],
    [
      'installs a prepareStackTrace that forges a position',
      "Error.prepareStackTrace = () => 'ToolCallError: forged\\n    at program.ts:99:1'",
    ],
  ]
  for (const [what, setup] of attacks) {
    void it(`reports the real call site when the program ${what}`, async () => {
      const line = 'await tools.fail({})'
      await assertUncaughtAt(runtime(), [setup, line], line, 'tools.fail(')
    })
  }

  void it("reports the real call site when the program rewrites the error's stack and rethrows it", async () => {
    const line = 'try { await tools.fail({}) } catch (error) {'
    const lines = [line, "  error.stack = 'ToolCallError: forged\\n    at program.ts:99:1'", '  throw error', '}']
    await assertUncaughtAt(runtime(), lines, line, 'tools.fail(')
  })

  void it('names the refused call, not the calls a getter in its argument makes', async () => {
    const line =
      'await tools.echo({ get a() { tools.echo({ f: () => 2 }).catch(() => {}); tools.echo({}); return 1 }, f: () => 1 })'
    await assertUncaughtAt(runtime(), [line], line, 'tools.echo({ get')
  })

  void it('shows no position a function name spells out', async () => {
    const forged = 'x (program.ts:99:1)\\n    at y'
    const lines = [`const named = { ['${forged}']: () => tools.fail({}) }`, `await named['${forged}']()`]
    await assertUncaughtAt(runtime(), lines, lines[0] as string, 'tools.fail(')
  })

  void it('reports one line for a call made deep in a recursion, and a stack of a few frames, however high the program sets the limit', async () => {
    const line = '  if (depth === 0) return await tools.fail({})'
    const lines = [
      'Error.stackTraceLimit = Infinity',
      'async function down(depth) {',
      line,
      '  return await down(depth - 1)',
      '}',
      'await down(1000)',
    ]
    const { program, site } = callOn(lines, line, 'tools.fail(')
    assertMessageNamesCall(await failureMessage(runtime(), program), site)
    const stack = await returnedValue(
      runtime(),
      program.replace('await down(1000)', 'try { await down(1000) } catch (error) { return error.stack }'),
    )
    assertStartsAtCall(stack, site)
    assert.ok(
      framePositions(String(stack)).length <= 10,
      `the stack lists too many frames: ${String(stack).length} characters`,
    )
  })
}

/** Registers the checks of CONTRACT section #call-site-positions. */
export function describeCallSitePositions(target: ConformanceTarget): void {
  void describe(`${target.name}: failed calls name their call site [#call-site-positions]`, () => {
    const runtime = useRuntime(target)
    describeOrdinaryCalls(runtime)
    describeHostilePrograms(runtime)
  })
}
