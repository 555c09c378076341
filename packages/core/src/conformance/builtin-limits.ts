/**
 * CONTRACT section #builtin-limits: a built-in asked to collect more values in one call than the
 * sandbox allows refuses with a `RangeError` the program can catch, and the host, and the runtime,
 * carry on. Each program here once made V8 abort the whole process on the worker-thread backend
 * (an array grown inside one native call past what the heap cap leaves): these checks run in the
 * test runner's own process, so a regression ends the whole test run, not just one check. And the
 * limits change nothing for a call that stops early, however large its receiver says it is.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assertFailure, assertValue } from './assertions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** 2^27 values: past any limit a backend could allow one built-in call, and a 1 GiB array if collected. */
const HUGE = '2 ** 27'

/** Each collects every value of a huge string or typed array in one native call. */
const COLLECTING_PROGRAMS: Record<string, string> = {
  'an array spread of a string': `return [...'a'.repeat(${HUGE})].length`,
  'a call spread of a string': `return Math.max(...'1'.repeat(${HUGE}))`,
  'a function call spread of a string': `const count = (...values: string[]) => values.length\nreturn count(...'a'.repeat(${HUGE}))`,
  'Array.from of a string with a map': `return Array.from('a'.repeat(${HUGE}), (c) => c).length`,
  'Array.from of a String object': `return Array.from(new String('a'.repeat(${HUGE}))).length`,
  "Array.from of a string's iterator": `return Array.from('a'.repeat(${HUGE})[Symbol.iterator]()).length`,
  'for…of over a string, collecting': `const out: string[] = []\nfor (const c of 'a'.repeat(${HUGE})) out.push(c)\nreturn out.length`,
  'Object.entries of a string': `return Object.entries('a'.repeat(${HUGE})).length`,
  'Object.values of a string': `return Object.values('a'.repeat(${HUGE})).length`,
  "split('') of a string": `return 'a'.repeat(${HUGE}).split('').length`,
  'an array spread of a typed array': `return [...new Uint8Array(${HUGE})].length`,
  'Array.from of a typed array': `return Array.from(new Uint8Array(${HUGE})).length`,
}

/** Registers the checks of CONTRACT section #builtin-limits. */
export function describeBuiltinLimits(target: ConformanceTarget): void {
  void describe(`${target.name}: a built-in that would collect a huge number of values refuses, and the host carries on [#builtin-limits]`, () => {
    const runtime = useRuntime(target, { maxWallMs: 120_000 })

    for (const [what, program] of Object.entries(COLLECTING_PROGRAMS)) {
      void it(`refuses ${what} with a RangeError, then runs the next program`, async () => {
        const message = assertFailure(await runProgram(runtime(), { program, bindings: [] }), 'exception')
        assert.match(message, /^RangeError: /)
        assertValue(await runProgram(runtime(), { program: 'return 6 * 7', bindings: [] }), 42)
      })
    }

    // A guard must not change the language: a search or a predicate over a huge array-like that
    // stops early answers exactly as the specification says.
    void it('answers a search or predicate that stops early on a huge array-like as the language does', async () => {
      const result = await runProgram(runtime(), {
        program: programLines(
          'const huge = { length: 2 ** 53 - 1, 0: 1, 3: "x", [2 ** 53 - 2]: "last" }',
          'const from = Array.prototype',
          'return [from.indexOf.call(huge, "x"), from.lastIndexOf.call(huge, "last"), from.lastIndexOf.call(huge, "x", 10), from.includes.call(huge, 1),',
          '  from.some.call(huge, (value) => value === 1), from.every.call(huge, (value) => value !== 1)]',
        ),
        bindings: [],
      })
      assertValue(result, [3, 2 ** 53 - 2, 3, true, true, false])
    })

    // The methods that move or copy elements, on array-likes at the language's own length limit:
    // the spec's errors (a TypeError past 2^53 - 1) and the spec's order of reads and writes.
    void it('moves, copies and reverses huge array-likes as the language does, errors and order included', async () => {
      const result = await runProgram(runtime(), {
        program: programLines(
          'const from = Array.prototype',
          'const errorOf = (work: () => unknown) => { try { work(); return "none" } catch (error) { return (error as Error).constructor.name } }',
          'class Stop extends Error {}',
          'const stopAt = (index: number) => ({ length: 2 ** 53 - 2, get [index]() { throw new Stop() } })',
          'const reversed = { length: 2 ** 53 - 1, 0: "first", [2 ** 53 - 2]: "last", get 1() { throw new Stop() } }',
          'const reverseError = errorOf(() => from.reverse.call(reversed))',
          'return [',
          '  errorOf(() => from.splice.call({ length: 2 ** 53 - 1 }, 0, 0, "x")), errorOf(() => from.unshift.call({ length: 2 ** 53 - 1 }, "x")),',
          '  errorOf(() => from.toSpliced.call({ length: 2 ** 53 - 1 }, 0, 0, "x")), errorOf(() => [1].concat({ length: 2 ** 53 - 1, [Symbol.isConcatSpreadable]: true })),',
          '  errorOf(() => from.unshift.call(stopAt(2 ** 53 - 3), "x")), errorOf(() => from.splice.call(stopAt(2 ** 53 - 4), 2 ** 53 - 5, 1)),',
          '  reverseError, reversed[0], reversed[2 ** 53 - 2],',
          '  from.toSpliced.call({ length: 2 ** 53 + 9, [2 ** 53 - 3]: "a", [2 ** 53 - 2]: "b" }, 0, 2 ** 53 - 3),',
          ']',
        ),
        bindings: [],
      })
      assertValue(result, [
        'TypeError',
        'TypeError',
        'TypeError',
        'TypeError',
        'Stop',
        'Stop',
        'Stop',
        'last',
        'first',
        ['a', 'b'],
      ])
    })

    void it('reads what the language reads first, and hands a typed array to the callback as itself', async () => {
      const result = await runProgram(runtime(), {
        program: programLines(
          'const log: string[] = []',
          'const list: number[] = []',
          'Object.defineProperty(list, "constructor", { get() { log.push("constructor"); return Array } })',
          'Object.defineProperty(list, Symbol.isConcatSpreadable, { get() { log.push("spreadable"); return undefined } })',
          'list.concat(1)',
          'let sortError = ""',
          'try { Array.prototype.sort.call({ get length(): number { throw new Error("the length was read first") } }, null as never) } catch (error) { sortError = (error as Error).constructor.name }',
          'const shrinking = Array.from({ length: 30 }, (_, index) => index)',
          'shrinking.copyWithin(0, { valueOf() { shrinking.length = 5; return 25 } } as unknown as number)',
          'const bytes = new Uint8Array([1, 2, 3])',
          'const seenAsItself = Array.prototype.every.call(bytes, (_value: unknown, _index: number, seen: unknown) => seen === bytes)',
          'return [log, sortError, shrinking.length, Object.keys(shrinking), seenAsItself]',
        ),
        bindings: [],
      })
      assertValue(result, [['constructor', 'spreadable'], 'TypeError', 5, [], true])
    })

    void it("keeps the guarded built-ins' own lengths, and refuses a symbol where the language converts to a string", async () => {
      const result = await runProgram(runtime(), {
        program: programLines(
          'const errorOf = (work: () => unknown) => { try { work(); return "none" } catch (error) { return (error as Error).constructor.name } }',
          'const symbol = Symbol("label")',
          'return [Map.prototype.set.length, Set.prototype.add.length,',
          '  errorOf(() => JSON.parse(symbol as never)), errorOf(() => /,/[Symbol.split](symbol as never)), errorOf(() => "a,b".split(symbol as never))]',
        ),
        bindings: [],
      })
      assertValue(result, [2, 1, 'TypeError', 'TypeError', 'TypeError'])
    })

    void it('lets the program catch the refusal and carry on in the same run', async () => {
      const result = await runProgram(runtime(), {
        program: programLines(
          "const text = 'ab'.repeat(2 ** 26)",
          'let refused = false',
          'try { [...text] } catch (error) { refused = error instanceof RangeError }',
          'let count = 0',
          'for (let index = 0; index < 1000; index++) if (text[index] === "a") count++',
          'return { refused, count, short: [...text.slice(0, 4)] }',
        ),
        bindings: [],
      })
      assertValue(result, { refused: true, count: 500, short: ['a', 'b', 'a', 'b'] })
    })
  })
}
