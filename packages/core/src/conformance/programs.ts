/**
 * CONTRACT section #programs, the program itself: the async-function body, the completion value,
 * TypeScript's erasable syntax, the refusal of non-erasable syntax, and error positions that
 * point into the model's own source.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeRunResult } from '../types.js'
import { assertFailure, assertMentionsNumber, assertNoValue, assertValue } from './assertions.js'
import { recordCalls } from './host-functions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** The line the checks put a failing construct on: far enough down to tell it from a wrapper's. */
const FAILING_LINE = 7
/** Six harmless lines, so the next line of the program is {@link FAILING_LINE}. */
const LEADING_LINES = [
  '// a model-written program',
  'const first = 1',
  '',
  'const second = first + 1',
  '',
  'void second',
]

async function runProgramText(runtime: CodeRuntime, program: string): Promise<CodeRunResult> {
  return await runProgram(runtime, { program, bindings: [] })
}

function describeCompletion(runtime: () => CodeRuntime): void {
  void describe('completion [#completion-value]', () => {
    void it('returns the completion value as value', async () => {
      const result = await runProgramText(runtime(), "return { list: [1, 'two', true, null], nested: { half: 0.5 } }")
      assertValue(result, { list: [1, 'two', true, null], nested: { half: 0.5 } })
      assert.deepEqual(result.logs, [])
    })

    void it('leaves the value key absent when the program does not return', async () => {
      assertNoValue(await runProgramText(runtime(), 'const unused = 1'))
    })

    void it('leaves the value key absent when the program returns undefined', async () => {
      assertNoValue(await runProgramText(runtime(), 'return undefined'))
    })

    void it('returns null as a value', async () => {
      const result = await runProgramText(runtime(), 'return null')
      assert.ok('value' in result, 'the value key is present')
      assert.equal(result.value, null)
    })

    void it('runs top-level await [#program-body]', async () => {
      const program =
        'const base = await Promise.resolve(40)\nawait new Promise((resolve) => setTimeout(resolve, 1))\nreturn base + 2'
      assertValue(await runProgramText(runtime(), program), 42)
    })

    void it('runs the program as the body of a function: an early return skips the rest [#program-body]', async () => {
      assertValue(await runProgramText(runtime(), "if (true) return 'early'\nthrow new Error('not reached')"), 'early')
    })
  })
}

function describeTypeScript(runtime: () => CodeRuntime): void {
  void describe('TypeScript [#typescript]', () => {
    void it('runs erasable syntax: interfaces, type aliases, generics, as, annotations and satisfies', async () => {
      const program = programLines(
        'interface Point { x: number; y: number }',
        'type Pair<T> = [T, T]',
        'function first<T>(pair: Pair<T>): T { return pair[0] }',
        'const point: Point = { x: 1, y: 2 } as Point',
        'const label = ({ kind: "ok" }) satisfies { kind: string }',
        'let later!: string',
        'later = label.kind',
        'abstract class Shape { abstract area(): number }',
        'class Square extends Shape { side: number = 3; area(): number { return this.side ** 2 } }',
        'const maybe: Point | undefined = point',
        'return { x: first<number>([point.x, point.y]), kind: later, area: new Square().area(), y: maybe!.y }',
      )
      assertValue(await runProgramText(runtime(), program), { x: 1, kind: 'ok', area: 9, y: 2 })
    })

    const nonErasable: readonly (readonly [construct: string, line: string, fragment: RegExp])[] = [
      ['an enum', 'enum Color { Red, Green }', /enum/i],
      ['a value namespace', 'namespace Shapes { export const side = 2 }', /namespace/i],
      ['a parameter property', 'class Point { constructor(public x: number) {} }', /parameter/i],
    ]
    for (const [construct, line, fragment] of nonErasable) {
      void it(`fails ${construct} as exception naming the construct and its line`, async () => {
        const result = await runProgramText(runtime(), programLines(...LEADING_LINES, line, 'return 1'))
        const message = assertFailure(result, 'exception')
        assert.match(message, fragment)
        assertMentionsNumber(message, FAILING_LINE, 'the line')
      })
    }

    void it('runs nothing of a program that fails to transform', async () => {
      const touched = recordCalls(() => null)
      const result = await runProgram(runtime(), {
        program: programLines("console.log('ran')", 'await tools.touched({})', 'enum Color { Red }'),
        bindings: [{ global: 'tools', functions: { touched: touched.fn } }],
      })
      assertFailure(result, 'exception')
      assert.deepEqual(result.logs, [])
      assert.equal(touched.calls.length, 0)
    })
  })
}

function describePositions(runtime: () => CodeRuntime): void {
  void describe('error positions [#error-positions]', () => {
    void it('reports a syntax error as exception with its line and column', async () => {
      // Line 7, column 16: the `;` where an expression must be.
      const result = await runProgramText(runtime(), programLines(...LEADING_LINES, 'const broken = ;', 'return 1'))
      const message = assertFailure(result, 'exception')
      assertMentionsNumber(message, FAILING_LINE, 'the line')
      assertMentionsNumber(message, 16, 'the column')
    })

    // A program that ends too early fails where its text ends, not on a line after it.
    const endingEarly: readonly (readonly [what: string, lines: readonly string[], column: number])[] = [
      ['an unclosed block', ['if (second > 1) {', '  console.log(second)'], 22],
      ['an unfinished expression', ['const total = first +', ''], 22],
      ['an unclosed call', ['console.log(first,', '    second', '', '  '], 11],
    ]
    for (const [what, lines, column] of endingEarly) {
      void it(`reports a syntax error at the end of the program, for ${what}, at its last line [#error-positions]`, async () => {
        const program = programLines(...LEADING_LINES, ...lines)
        const lastLine = LEADING_LINES.length + lines.findLastIndex(line => line.trim() !== '') + 1
        const message = assertFailure(await runProgramText(runtime(), program), 'exception')
        assertMentionsNumber(message, lastLine, 'the line')
        assertMentionsNumber(message, column, 'the column')
        assert.doesNotMatch(
          message,
          new RegExp(`(^|[^0-9])${lastLine + 1}([^0-9]|$)`),
          'the message names a line after the program',
        )
      })
    }

    void it('reports a thrown error with its line and column in the program, and no host paths', async () => {
      // Line 7, column 9: the `new` of `new Error`.
      const result = await runProgramText(runtime(), programLines(...LEADING_LINES, "  throw new Error('boom')"))
      const message = assertFailure(result, 'exception')
      assert.match(message, /boom/)
      assertMentionsNumber(message, FAILING_LINE, 'the line')
      assertMentionsNumber(message, 9, 'the column')
    })

    void it('reports the line of an error thrown inside a nested function', async () => {
      const program = programLines(
        'function inner(): never {',
        "  throw new TypeError('nested failure')",
        '}',
        'function outer(): never { return inner() }',
        'await Promise.resolve()',
        'outer()',
      )
      const message = assertFailure(await runProgramText(runtime(), program), 'exception')
      assert.match(message, /nested failure/)
      assertMentionsNumber(message, 2, 'the line')
    })
  })
}

function describeBounds(runtime: () => CodeRuntime): void {
  void describe('program bounds [#program-bounds]', () => {
    const deep = [
      ['2 000 nested blocks', `${'{'.repeat(2000)}var deep = 9${'}'.repeat(2000)}\nreturn deep`],
      ['3 000 chained if statements', 'if (1) '.repeat(3000)],
    ] as const
    for (const [label, program] of deep) {
      void it(`refuses a program of ${label}, naming the depth limit, and runs the next program as usual`, async () => {
        const message = assertFailure(await runProgramText(runtime(), program), 'exception')
        assert.match(message, /nests more than \d+ levels/, message)
        assert.match(message, /limit/, message)
        assertValue(await runProgramText(runtime(), 'const two: number = 2\nreturn two'), 2)
      })
    }

    void it('refuses a program that closes its wrapper; nothing of it runs outside its function [#program-body]', async () => {
      const program = "return 1 })(); globalThis.escaped = 3; console.log('outside'); (async function () {"
      const result = await runProgramText(runtime(), program)
      const message = assertFailure(result, 'exception')
      assert.match(message, /closes the program's body/, message)
      assert.deepEqual(result.logs, [])
      assertValue(await runProgramText(runtime(), 'return typeof globalThis.escaped'), 'undefined')
    })
  })
}

/** Registers the checks of CONTRACT section #programs about the program itself. */
export function describePrograms(target: ConformanceTarget): void {
  void describe(`${target.name}: programs [#programs]`, () => {
    const runtime = useRuntime(target)
    describeCompletion(runtime)
    describeTypeScript(runtime)
    describePositions(runtime)
    describeBounds(runtime)
  })
}
