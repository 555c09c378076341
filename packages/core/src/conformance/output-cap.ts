/**
 * CONTRACT section #output-cap: one `maxOutputBytes` on the compact JSON of the logs plus the
 * value or the failure message. Checked at the exact boundaries of the contract's examples,
 * on floods, on cut entries, and on failures made before any program runs.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeRunResult } from '../types.js'
import {
  assertFailure,
  assertLogsPrefix,
  assertMentionsNumber,
  assertValue,
  assertWithinCap,
  outputBytes,
} from './assertions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** A cap roomy enough for the output-limit message itself, small enough to flood quickly. */
const ROOMY_CAP = 300
/** Budgets for the flood checks: a backend that misses the overflow ends in `timeout` instead. */
const FLOOD_BUDGETS = { computeMs: 10_000, maxWallMs: 20_000 } as const

async function runProgramText(runtime: CodeRuntime, program: string): Promise<CodeRunResult> {
  return await runProgram(runtime, { program, bindings: [] })
}

/** Asserts an `output-limit` result: no value, within the cap, logs a prefix of `printed`. */
function assertOutputLimit(result: CodeRunResult, maxOutputBytes: number, printed: readonly string[]): string {
  const message = assertFailure(result, 'output-limit')
  assertWithinCap(result, maxOutputBytes)
  assertLogsPrefix(result.logs, printed)
  return message
}

function describeExactBoundaries(target: ConformanceTarget): void {
  void describe('maxOutputBytes 7', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 7 })

    void it("returns '\u20ac' when no logs (2 bytes) plus the value (5 bytes) cost exactly the cap [#output-bytes]", async () => {
      const result = await runProgramText(runtime(), "return '\u20ac'")
      assertValue(result, '\u20ac')
      assert.equal(outputBytes(result), 7)
    })
  })

  void describe('maxOutputBytes 6', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 6 })

    void it("fails output-limit without a value when '\u20ac' costs one byte more than the cap [#output-limit]", async () => {
      assertOutputLimit(await runProgramText(runtime(), "return '\u20ac'"), 6, [])
    })

    void it('charges an exception message against the cap [#output-cap-failures]', async () => {
      assertOutputLimit(
        await runProgramText(runtime(), "throw new Error('a message far longer than six bytes')"),
        6,
        [],
      )
    })

    void it('charges a transform failure against the cap [#output-cap-failures]', async () => {
      assertOutputLimit(await runProgramText(runtime(), "console.log('never runs')\nenum Color { Red }"), 6, [])
    })

    void it('charges the abort message of an already-aborted signal against the cap [#output-cap-failures]', async () => {
      const result = await runProgram(runtime(), {
        program: 'return 1',
        bindings: [],
        signal: AbortSignal.abort('a reason far longer than six bytes'),
      })
      assertOutputLimit(result, 6, [])
    })
  })

  void describe('maxOutputBytes 11', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 11 })

    void it("returns 'xy' after logging 'abc' when logs (7 bytes) plus value (4 bytes) cost exactly the cap [#output-bytes]", async () => {
      const result = await runProgramText(runtime(), "console.log('abc')\nreturn 'xy'")
      assertValue(result, 'xy')
      assert.deepEqual(result.logs, ['abc'])
    })
  })

  void describe('maxOutputBytes 10', () => {
    const runtime = useRuntime(target, { maxOutputBytes: 10 })

    void it("fails output-limit after logging 'abc' and returning 'xy', one byte over the cap [#output-limit]", async () => {
      assertOutputLimit(await runProgramText(runtime(), "console.log('abc')\nreturn 'xy'"), 10, ['abc'])
    })
  })
}

function describeRoomyCap(target: ConformanceTarget): void {
  void describe(`maxOutputBytes ${ROOMY_CAP}`, () => {
    const runtime = useRuntime(target, { maxOutputBytes: ROOMY_CAP, ...FLOOD_BUDGETS })

    void it('names the cap in the output-limit message [#output-limit]', async () => {
      const message = assertOutputLimit(
        await runProgramText(runtime(), `return 'x'.repeat(${ROOMY_CAP})`),
        ROOMY_CAP,
        [],
      )
      assert.match(message, /maxOutputBytes/)
      assertMentionsNumber(message, ROOMY_CAP, 'the cap')
    })

    void it('keeps the longest prefix of the logs that fits beside the message [#output-limit]', async () => {
      const printed = ['first', 'second', 'x'.repeat(ROOMY_CAP)]
      const result = await runProgramText(
        runtime(),
        `${printed.map(entry => `console.log(${JSON.stringify(entry)})`).join('\n')}\nreturn 1`,
      )
      assertOutputLimit(result, ROOMY_CAP, printed)
      assert.equal(result.logs.length, 3, 'both short entries and part of the long one are kept')
      // Every character of the long entry costs one byte, so the longest prefix fills the cap.
      assert.equal(outputBytes(result), ROOMY_CAP)
    })

    void it('cuts the last entry kept at a code-point boundary [#output-limit]', async () => {
      const printed = ['\u{1F600}'.repeat(ROOMY_CAP)]
      const result = await runProgramText(runtime(), "console.log('\u{1F600}'.repeat(" + ROOMY_CAP + '))\nreturn 1')
      assertOutputLimit(result, ROOMY_CAP, printed)
      assert.equal(result.logs.length, 1, 'part of the entry is kept')
      assert.ok(ROOMY_CAP - outputBytes(result) < 4, 'no room for one more 4-byte code point is left unused')
    })

    void it('ends a flood of console.log as output-limit, not timeout [#output-floods]', async () => {
      const entry = 'x'.repeat(100)
      const result = await runProgramText(runtime(), `while (true) console.log(${JSON.stringify(entry)})`)
      assertOutputLimit(
        result,
        ROOMY_CAP,
        result.logs.map(() => entry),
      )
    })

    void it('ends a flood of process.stdout.write as output-limit, not timeout [#output-floods]', async () => {
      const entry = 'y'.repeat(100)
      const result = await runProgramText(runtime(), `while (true) process.stdout.write(${JSON.stringify(entry)})`)
      assertOutputLimit(
        result,
        ROOMY_CAP,
        result.logs.map(() => entry),
      )
    })

    void it('ends a flood from a timer while the program awaits as output-limit, not timeout [#output-floods]', async () => {
      const entry = 'z'.repeat(100)
      const result = await runProgramText(
        runtime(),
        programLines(`setInterval(() => console.log(${JSON.stringify(entry)}), 0)`, 'await new Promise(() => {})'),
      )
      assertOutputLimit(
        result,
        ROOMY_CAP,
        result.logs.map(() => entry),
      )
    })

    void it('charges a long failure message against the cap [#output-cap-failures]', async () => {
      const result = await runProgramText(
        runtime(),
        `console.log('before')\nthrow new Error('e'.repeat(${ROOMY_CAP * 2}))`,
      )
      assertOutputLimit(result, ROOMY_CAP, ['before'])
    })

    void it('keeps the failure kind when the logs and the message fit [#output-limit]', async () => {
      const result = await runProgramText(runtime(), "console.log('fits')\nthrow new Error('short')")
      assertFailure(result, 'exception')
      assert.deepEqual(result.logs, ['fits'])
      assertWithinCap(result, ROOMY_CAP)
    })

    void it('counts the logs and the value, not the envelope [#output-bytes]', async () => {
      // [] is 2 bytes; the string is its JSON length. Together exactly the cap.
      const text = 'v'.repeat(ROOMY_CAP - 4)
      const result = await runProgramText(runtime(), `return ${JSON.stringify(text)}`)
      assertValue(result, text)
      assert.equal(outputBytes(result), ROOMY_CAP)
    })
  })
}

/** A cap smaller than the full output-limit advice: the message must not eat it. */
const SMALL_CAP = 96

function describeSmallCap(target: ConformanceTarget): void {
  void describe(`maxOutputBytes ${SMALL_CAP}`, () => {
    const runtime = useRuntime(target, { maxOutputBytes: SMALL_CAP })

    void it('keeps most of the first log line beside a short message that still names the cap [#output-limit]', async () => {
      const line = 'x'.repeat(200)
      const result = await runProgramText(runtime(), `console.log('${line}')\nreturn 1`)
      const message = assertOutputLimit(result, SMALL_CAP, [line])
      assert.match(message, /maxOutputBytes/)
      assertMentionsNumber(message, SMALL_CAP, 'the cap')
      assert.equal(outputBytes(result), SMALL_CAP, 'the cut entry uses the room left')
      assert.ok(
        (result.logs[0] ?? '').length >= SMALL_CAP / 2,
        `only ${result.logs[0]?.length ?? 0} characters of the line survived`,
      )
    })
  })
}

/** Registers the checks of CONTRACT section #output-cap. */
export function describeOutputCap(target: ConformanceTarget): void {
  void describe(`${target.name}: the output cap [#output-cap]`, () => {
    describeExactBoundaries(target)
    describeRoomyCap(target)
    describeSmallCap(target)
  })
}
