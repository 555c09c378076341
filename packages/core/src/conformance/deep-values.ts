/**
 * CONTRACT section #json-depth puts no bound on depth: values nested far past what a recursive serializer
 * survives (10 000 and 100 000 levels) cross every boundary, arguments, resolutions, the call
 * record, the completion and logs, and the host survives each. A completion deeper still settles
 * at once instead of idling until `maxWallMs`.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeBindingNamespace, CodeJsonValue } from '../types.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

const DEPTHS = [10_000, 100_000] as const

/** A value alternating `[v]` and `{ k: v }` for `depth` levels around the number `depth`. */
function deepValue(depth: number): CodeJsonValue {
  let value: CodeJsonValue = depth
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value }
  return value
}

/** Program source declaring `deep(depth)`, the same builder as {@link deepValue}, and `depthOf(value)`. */
const PROGRAM_HELPERS = programLines(
  'const deep = (depth: number): unknown => {',
  '  let value: unknown = depth',
  '  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value }',
  '  return value',
  '}',
  'const depthOf = (value: unknown): string => {',
  '  let levels = 0',
  "  while (typeof value === 'object' && value !== null) { value = Array.isArray(value) ? value[0] : (value as { k: unknown }).k; levels++ }",
  '  return `${levels} levels around ${String(value)}`',
  '}',
)

/** Walks `value` without recursion; the same words as the program's `depthOf`. */
function depthOf(value: unknown): string {
  let levels = 0
  let cursor = value
  while (typeof cursor === 'object' && cursor !== null) {
    cursor = Array.isArray(cursor) ? (cursor as unknown[])[0] : (cursor as { k: unknown }).k
    levels++
  }
  return `${levels} levels around ${String(cursor)}`
}

/** The compact JSON bytes of {@link deepValue}: two brackets per array, `{"k":}` per object. */
function deepValueBytes(depth: number): number {
  const arrays = Math.ceil(depth / 2)
  const objects = depth - arrays
  return arrays * 2 + objects * 6 + String(depth).length
}

export function describeDeepValues(target: ConformanceTarget): void {
  void describe(`${target.name}: values nested 10 000 and 100 000 levels cross every boundary [#json-depth]`, () => {
    // Busy time is measured as the substrate's wall time while it works, which a loaded machine
    // stretches: beside a CPU hog, 100 000 levels took over the default 10 s of computeMs.
    const runtime = useRuntime(target, { maxWallMs: 120_000, computeMs: 100_000 })
    const tools: CodeBindingNamespace = {
      global: 'tools',
      functions: {
        echo: async (args: unknown) => args as CodeJsonValue,
        deep: async (args: unknown) => deepValue((args as { depth: number }).depth),
        depthOf: async (args: unknown) => depthOf(args),
      },
    }

    for (const depth of DEPTHS) {
      const expected = `${depth} levels around ${depth}`

      void it(`passes ${depth} levels as arguments, echoes them back and records them in the call record`, async () => {
        const result = await runProgram(runtime(), {
          program: programLines(
            PROGRAM_HELPERS,
            `const seen = await tools.depthOf(deep(${depth}))`,
            `const echoed = await tools.echo(deep(${depth}))`,
            'return [seen, depthOf(echoed)]',
          ),
          bindings: [tools],
          recordCallValues: { maxBytes: 8_000_000 },
        })
        assert.equal(result.error, undefined, result.error?.message)
        assert.deepEqual(result.value, [expected, expected])
        const echoCall = result.calls[1]
        assert.equal(echoCall?.outcome, 'ok')
        assert.equal(depthOf(echoCall.args), expected, 'the call record keeps the arguments')
        assert.equal(depthOf(echoCall.result), expected, 'the call record keeps the resolution')
      })

      void it(`resolves a host value ${depth} levels deep into the program`, async () => {
        const result = await runProgram(runtime(), {
          program: programLines(PROGRAM_HELPERS, `return depthOf(await tools.deep({ depth: ${depth} }))`),
          bindings: [tools],
        })
        assert.equal(result.error, undefined, result.error?.message)
        assert.equal(result.value, expected)
      })

      void it(`returns a value ${depth} levels deep, counted exactly by the ledger`, async () => {
        const result = await runProgram(runtime(), {
          program: programLines(PROGRAM_HELPERS, `return deep(${depth})`),
          bindings: [],
        })
        assert.equal(result.error, undefined, result.error?.message)
        assert.equal(depthOf(result.value), expected)
        assert.equal(result.usage.outputBytes, 2 + deepValueBytes(depth))
      })

      void it(`logs a value ${depth} levels deep`, async () => {
        const result = await runProgram(runtime(), {
          program: programLines(
            PROGRAM_HELPERS,
            `const value = deep(${depth})`,
            'console.log(value)',
            'console.log([value], { value })',
            "return 'done'",
          ),
          bindings: [],
        })
        assert.equal(result.error, undefined, result.error?.message)
        assert.equal(result.value, 'done')
        assert.equal(result.logs.length, 2)
      })
    }

    void it('settles a completion 300 000 levels deep at once, with the value or a clear failure', async () => {
      const started = performance.now()
      const result = await runProgram(runtime(), {
        program: programLines(PROGRAM_HELPERS, 'return deep(300000)'),
        bindings: [],
      })
      // Before the fix the run idled until maxWallMs; any outcome but a timeout shows it settled.
      assert.notEqual(
        result.error?.kind,
        'timeout',
        `settled as a timeout after ${Math.round(performance.now() - started)} ms`,
      )
      if (result.error === undefined) assert.equal(depthOf(result.value), '300000 levels around 300000')
      else assert.match(result.error.message, /return|value/i)
    })
  })
}
