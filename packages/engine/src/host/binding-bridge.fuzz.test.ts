// Property-based checks of the host end of the binding bridge: forged call
// requests from a subverted guest and hostile, deep resolutions from host functions never throw
// on the host, never leave an unhandled rejection, and answer each accepted call exactly once.
// Seeded and stopped after a few seconds per property; FUZZ_SEED=<seed> reproduces one.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { type CodeJsonValue } from '@code-runtime/core'
import { validateBindings } from '@code-runtime/core/internal'
import { stringifyJsonValue } from '@code-runtime/core/json'
import { BindingBridge } from './binding-bridge.js'
import type { CallResultMessage } from '../protocol/messages.js'
import { resultOnly } from '../../test/in-memory-substrate.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201)
const TIME_LIMIT_MS = 3_000

async function check<T>(property: fc.IAsyncProperty<T>, numRuns = 500): Promise<void> {
  await fc.assert(property, { seed: SEED, numRuns, interruptAfterTimeLimit: TIME_LIMIT_MS })
}

/** Lets every pending host function and bridge continuation run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise(resolve => setImmediate(resolve))
}

const anyString = fc.oneof(
  fc.string16bits(),
  fc.fullUnicodeString(),
  fc.constantFrom('', 'echo', 'resolve', '__proto__', 'constructor', '\ud800'),
)

const jsonValue: fc.Arbitrary<CodeJsonValue> = fc.letrec<{ value: CodeJsonValue }>(tie => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    anyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 4 }),
  ),
})).value

function deep(inner: CodeJsonValue, depth: number): CodeJsonValue {
  let value = inner
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value }
  return value
}

/**
 * What a subverted guest may put in `argsJson`: JSON, deep JSON, JSON that is not lossless,
 * garbage. Deep text is built inside the property from `[value, depth]`, so a counterexample
 * prints in a line.
 */
const argsSource = fc.oneof(
  jsonValue.map((value): [CodeJsonValue, number] => [value, 0]),
  fc.tuple(jsonValue, fc.integer({ min: 5_000, max: 60_000 })),
  fc.constantFrom('1e999', '[1e999]', '{"a":-0}', '-0', ''),
  fc.string(),
)

function argsJsonOf(source: string | [CodeJsonValue, number]): string {
  return typeof source === 'string' ? source : stringifyJsonValue(deep(source[0], source[1]))
}

/** What a host function may resolve: hostile objects, non-JSON values, and values too deep to stringify natively. */
const resolution = fc.oneof(
  jsonValue.map(
    (value): (() => unknown) =>
      () =>
        value,
  ),
  fc.tuple(jsonValue, fc.integer({ min: 5_000, max: 120_000 })).map(
    ([value, depth]) =>
      () =>
        deep(value, depth),
  ),
  fc
    .anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSparseArray: true,
      withBoxedValues: true,
      withNullPrototype: true,
    })
    .map(value => () => value),
  fc.constantFrom<() => unknown>(
    () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap')
          },
        },
      ),
    () =>
      Object.defineProperty({}, 'x', {
        get: () => {
          throw new Error('getter')
        },
        enumerable: true,
      }),
    () => {
      const loop: unknown[] = []
      loop.push(loop)
      return loop
    },
    () => {
      throw new Error('the tool failed')
    },
    () => Promise.reject(Symbol('odd')),
    () => ({ toJSON: () => 'replaced' }),
  ),
)

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason)
}

void describe('fuzz: the binding bridge', () => {
  before(() => process.on('unhandledRejection', onUnhandled))
  after(() => process.off('unhandledRejection', onUnhandled))

  void it('answers forged call requests without throwing, each accepted call exactly once', async () => {
    await check(
      fc.asyncProperty(
        fc.array(
          fc.record({
            id: fc.integer({ min: 1, max: 20 }),
            namespace: fc.integer({ min: 0, max: 2 }),
            member: anyString,
            args: argsSource,
          }),
          { maxLength: 8 },
        ),
        async sources => {
          const requests = sources.map(({ args, ...rest }) => ({ ...rest, argsJson: argsJsonOf(args) }))
          const replies: CallResultMessage[] = []
          const namespaces = validateBindings([
            { global: 'tools', functions: { echo: async (args: unknown) => args as CodeJsonValue } },
          ])
          const bridge = new BindingBridge(namespaces, message => replies.push(resultOnly(message)), {
            startedAt: 0,
            recordValuesBytes: 1_000_000,
            maxPendingCallBytes: 400_000,
          })
          const accepted = new Map<number, string>()
          for (const request of requests) {
            const problem = bridge.handle({ kind: 'call-request', ...request })
            if (problem === undefined) accepted.set(request.id, request.argsJson)
            else assert.equal(typeof problem, 'string')
          }
          await settle()
          assert.deepEqual(
            replies.map(reply => reply.id).sort(),
            [...accepted.keys()].sort(),
            'one reply per accepted call',
          )
          for (const reply of replies) {
            if (reply.ok)
              assert.equal(
                reply.valueJson,
                stringifyJsonValue(JSON.parse(accepted.get(reply.id) as string) as CodeJsonValue),
              )
            else assert.match(reply.message, /maxPendingCallBytes/)
          }
          assert.equal(bridge.records().length, bridge.callCount)
          assert.deepEqual(unhandled, [])
        },
      ),
      300,
    )
  })

  void it('turns any resolution into one lossless answer or one failure, never a host crash', async () => {
    await check(
      fc.asyncProperty(resolution, async resolve => {
        const replies: CallResultMessage[] = []
        const namespaces = validateBindings([
          { global: 'tools', functions: { resolve: async () => await (resolve() as Promise<CodeJsonValue>) } },
        ])
        const bridge = new BindingBridge(namespaces, message => replies.push(resultOnly(message)), {
          startedAt: 0,
          recordValuesBytes: 10_000_000,
          maxPendingCallBytes: 1_000,
        })
        assert.equal(
          bridge.handle({ kind: 'call-request', id: 1, namespace: 0, member: 'resolve', argsJson: '{}' }),
          undefined,
        )
        await settle()
        assert.equal(replies.length, 1)
        const [reply] = replies as [CallResultMessage]
        if (reply.ok) assert.doesNotThrow(() => JSON.parse(reply.valueJson))
        else assert.ok(reply.message.length > 0)
        assert.equal(bridge.records()[0]?.outcome, reply.ok ? 'ok' : 'error')
        assert.deepEqual(unhandled, [])
      }),
      300,
    )
  })

  void it('keeps the arguments of calls in flight within maxPendingCallBytes', async () => {
    await check(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 12 }),
        fc.integer({ min: 1_024, max: 8_000 }),
        async (sizes, budget) => {
          const replies: CallResultMessage[] = []
          const namespaces = validateBindings([
            { global: 'tools', functions: { hold: () => new Promise<CodeJsonValue>(() => undefined) } },
          ])
          const bridge = new BindingBridge(namespaces, message => replies.push(resultOnly(message)), {
            startedAt: 0,
            recordValuesBytes: undefined,
            maxPendingCallBytes: budget,
          })
          let held = 0
          sizes.forEach((size, index) => {
            const json = JSON.stringify('x'.repeat(size))
            bridge.handle({ kind: 'call-request', id: index + 1, namespace: 0, member: 'hold', argsJson: json })
            const refused = replies.some(reply => reply.id === index + 1)
            assert.equal(
              refused,
              held + json.length > budget,
              `call ${index + 1}: ${held} held, ${json.length} more, budget ${budget}`,
            )
            if (!refused) held += json.length
          })
          await settle()
        },
      ),
      300,
    )
  })
})
