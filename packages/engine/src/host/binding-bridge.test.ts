// The host end of the binding bridge, call by call: the order calls start and answer in,
// results that arrive after the run, host functions that fail with hostile values, and the
// budget for the arguments of calls in flight. (binding-bridge.fuzz.test.ts checks the same
// rules on generated input; these are the cases a reader can follow.)
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { type CodeBindingFunction } from '@code-runtime/core'
import { validateBindings } from '@code-runtime/core/internal'
import { BindingBridge, type BindingBridgeOptions, type BridgeReply } from './binding-bridge.js'
import type { CallRequestMessage, CallResultMessage } from '../protocol/messages.js'
import { deferred, drain, resultOnly, type Deferred } from '../../test/in-memory-substrate.js'

function bridgeOver(
  functions: Record<string, CodeBindingFunction>,
  options: Partial<BindingBridgeOptions> = {},
): { bridge: BindingBridge; replies: CallResultMessage[] } {
  const replies: CallResultMessage[] = []
  const namespaces = validateBindings([{ global: 'tools', functions }])
  const bridge = new BindingBridge(namespaces, message => replies.push(resultOnly(message)), {
    startedAt: performance.now(),
    recordValuesBytes: 10_000,
    maxPendingCallBytes: 1_000,
    ...options,
  })
  return { bridge, replies }
}

function call(id: number, member: string, argsJson = '{}', namespace = 0): CallRequestMessage {
  return { kind: 'call-request', id, namespace, member, argsJson }
}

/** A host function whose calls the test settles one by one. */
function heldCalls(): { hold: CodeBindingFunction; pending: Deferred<unknown>[] } {
  const pending: Deferred<unknown>[] = []
  const hold: CodeBindingFunction = async () => {
    const answer = deferred<unknown>()
    pending.push(answer)
    return answer.promise as Promise<null>
  }
  return { hold, pending }
}

describe('BindingBridge', () => {
  it("tells each host function its call's index in the call record, counting calls refused before they reached a function", async () => {
    const seen: unknown[] = []
    const { bridge } = bridgeOver(
      {
        note: async (args, callInfo) => {
          seen.push([args, callInfo, Object.isFrozen(callInfo)])
          return null
        },
      },
      { maxPendingCallBytes: 20 },
    )
    bridge.handle(call(1, 'note', '{"n":1}'))
    // Past the pending-bytes budget: refused, yet it takes index 1 in the record.
    bridge.handle(call(2, 'note', `{"pad":"${'x'.repeat(40)}"}`))
    bridge.handle(call(3, 'note', '{"n":3}'))
    await drain()
    assert.deepEqual(seen, [
      [{ n: 1 }, { index: 0 }, true],
      [{ n: 3 }, { index: 2 }, true],
    ])
    assert.deepEqual(
      bridge.records().map(record => record.outcome),
      ['ok', 'error', 'ok'],
    )
  })

  it('starts calls in the order they arrive and answers each when its host function settles', async () => {
    const started: unknown[] = []
    const { hold, pending } = heldCalls()
    const { bridge, replies } = bridgeOver({
      hold: async args => {
        started.push(args)
        return hold(args)
      },
    })
    for (let id = 1; id <= 3; id++) assert.equal(bridge.handle(call(id, 'hold', `{"n":${id}}`)), undefined)
    await drain()
    assert.deepEqual(started, [{ n: 1 }, { n: 2 }, { n: 3 }])
    assert.equal(bridge.callCount, 3)
    pending[2]?.resolve('third')
    pending[0]?.resolve('first')
    await drain()
    assert.deepEqual(replies, [
      { kind: 'call-result', id: 3, ok: true, valueJson: '"third"' },
      { kind: 'call-result', id: 1, ok: true, valueJson: '"first"' },
    ])
    assert.deepEqual(
      bridge.records().map(record => [record.outcome, record.args, record.result]),
      [
        ['ok', { n: 1 }, 'first'],
        ['in-flight', { n: 2 }, undefined],
        ['ok', { n: 3 }, 'third'],
      ],
    )
  })

  it('drops results that arrive after the run ended and keeps those calls recorded in flight', async () => {
    const { hold, pending } = heldCalls()
    const { bridge, replies } = bridgeOver({ hold, fail: async () => Promise.reject(new Error('late failure')) })
    bridge.handle(call(1, 'hold'))
    bridge.handle(call(2, 'fail'))
    bridge.close()
    await drain()
    pending[0]?.resolve('late value')
    await drain()
    assert.deepEqual(replies, [])
    assert.deepEqual(
      bridge.records().map(record => record.outcome),
      ['in-flight', 'in-flight'],
    )
    assert.equal(bridge.handle(call(3, 'hold')), undefined, 'a request after the end is ignored, not a violation')
    assert.equal(bridge.callCount, 2)
  })

  it('answers a host function that throws or rejects with a hostile value with a failure, never a host crash', async () => {
    const trapped = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap')
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('trap')
        },
      },
    )
    const lyingMessage = Object.defineProperty({}, 'message', {
      get: () => {
        throw new Error('getter')
      },
    })
    const unprintable = {
      message: 42,
      toString: () => {
        throw new Error('toString')
      },
    }
    const thrown: Record<string, unknown> = { trapped, lyingMessage, unprintable, symbol: Symbol('odd'), nothing: null }
    const functions: Record<string, CodeBindingFunction> = {}
    for (const [name, value] of Object.entries(thrown)) {
      functions[name] = () => {
        throw value
      }
    }
    functions['rejects'] = () => Promise.reject(trapped)
    functions['message'] = () => Promise.reject(new TypeError('the warehouse is closed'))
    const { bridge, replies } = bridgeOver(functions)
    const names = Object.keys(functions)
    names.forEach((name, index) => assert.equal(bridge.handle(call(index + 1, name)), undefined))
    await drain()
    assert.equal(replies.length, names.length)
    const messages = new Map(replies.map(reply => [names[reply.id - 1], reply.ok ? undefined : reply.message]))
    assert.equal(messages.get('message'), 'the warehouse is closed')
    assert.equal(messages.get('symbol'), 'Symbol(odd)')
    assert.equal(messages.get('nothing'), 'null')
    for (const name of ['trapped', 'lyingMessage', 'unprintable', 'rejects']) {
      assert.equal(messages.get(name), 'The tool failed with a value that cannot be shown.', name)
    }
    assert.ok(bridge.records().every(record => record.outcome === 'error'))
  })

  it('fails a call whose host function resolves a value that is not lossless JSON, naming the tool', async () => {
    const { bridge, replies } = bridgeOver({
      nan: async () => Number.NaN as unknown as null,
      undef: async () => undefined as unknown as null,
    })
    bridge.handle(call(1, 'nan'))
    bridge.handle(call(2, 'undef'))
    await drain()
    assert.equal(replies.length, 2)
    for (const reply of replies) {
      assert.equal(reply.ok, false)
      if (!reply.ok) assert.match(reply.message, /^tools\.(nan|undef) resolved a value that is not lossless JSON/)
    }
  })

  it('refuses a call whose arguments would pass maxPendingCallBytes, and frees the budget when calls settle', async () => {
    const { hold, pending } = heldCalls()
    const { bridge, replies } = bridgeOver({ hold }, { maxPendingCallBytes: 100 })
    const sixty = JSON.stringify('x'.repeat(58))
    assert.equal(bridge.handle(call(1, 'hold', sixty)), undefined)
    assert.equal(bridge.handle(call(2, 'hold', sixty)), undefined)
    assert.equal(replies.length, 1)
    const refusal = replies[0]
    assert.ok(refusal !== undefined && !refusal.ok && refusal.id === 2)
    assert.match(
      refusal.message,
      /^tools\.hold: the arguments of calls still in flight would pass 100 bytes \(maxPendingCallBytes\)/,
    )
    await drain()
    pending[0]?.resolve(null)
    await drain()
    assert.equal(bridge.handle(call(3, 'hold', sixty)), undefined)
    await drain()
    assert.equal(pending.length, 2, 'the third call reached the host function')
    assert.deepEqual(
      bridge.records().map(record => record.outcome),
      ['ok', 'error', 'in-flight'],
    )
  })

  it('records values while their byte budget lasts, timing only afterwards', async () => {
    const { bridge } = bridgeOver({ echo: async args => args as null }, { recordValuesBytes: 30 })
    bridge.handle(call(1, 'echo', '{"a":"small"}'))
    bridge.handle(call(2, 'echo', '{"a":"this one does not fit"}'))
    await drain()
    const [first, second] = bridge.records()
    assert.deepEqual(first?.args, { a: 'small' })
    assert.equal(first?.valuesOmitted, undefined)
    assert.equal(second?.args, undefined)
    assert.equal(second?.valuesOmitted, true)
  })

  it('records no values when the caller did not ask for them', async () => {
    const { bridge } = bridgeOver({ echo: async args => args as null }, { recordValuesBytes: undefined })
    bridge.handle(call(1, 'echo', '{"a":1}'))
    await drain()
    assert.deepEqual(Object.keys(bridge.records()[0] ?? {}).sort(), [
      'durationMs',
      'member',
      'namespace',
      'outcome',
      'startMs',
    ])
  })

  for (const [problem, request] of [
    ['a repeated call id', call(1, 'echo')],
    ['a call to an unknown namespace', call(2, 'echo', '{}', 1)],
    ['a call to an unknown member', call(2, '__proto__')],
    ['a call to an unknown member', call(2, 'hasOwnProperty')],
    ['call arguments that are not JSON', call(2, 'echo', '{"a":')],
    ['call arguments that are not lossless JSON', call(2, 'echo', '[1e999]')],
  ] as const) {
    it(`names ${problem} (${request.member}, ${request.argsJson}) as a protocol violation and starts nothing`, async () => {
      let started = 0
      const { bridge, replies } = bridgeOver({ echo: async () => ++started })
      assert.equal(bridge.handle(call(1, 'echo')), undefined)
      assert.equal(bridge.handle(request), problem)
      await drain()
      assert.equal(started, 1)
      assert.equal(replies.length, 1)
    })
  }

  // Streamed: the parts leave as the walk goes, the result counts them; a late refusal sends a
  // failure after the parts (the guest drops them), never a successful result.
  it('sends a large result in parts ahead of the result that counts them, and fails one refused after parts', async () => {
    const rows = Array.from({ length: 1_000 }, (_, id) => ({ id }))
    const spoiled: unknown[] = [...rows, 1n]
    const replies: BridgeReply[] = []
    const namespaces = validateBindings([
      { global: 'tools', functions: { rows: async () => rows, spoiled: async () => spoiled as unknown as null } },
    ])
    const bridge = new BindingBridge(namespaces, message => replies.push(message), {
      startedAt: performance.now(),
      recordValuesBytes: undefined,
      maxPendingCallBytes: 1_000,
      resultPartChars: 1,
    })
    bridge.handle(call(1, 'rows'))
    await drain()
    const parts = replies.filter(reply => reply.kind === 'call-part')
    const last = replies.at(-1)
    assert.equal(parts.length, 3)
    assert.ok(last?.kind === 'call-result' && last.ok)
    assert.equal(last.parts, 3)
    assert.deepEqual(
      [...parts.map(part => part.json), last.valueJson].flatMap(json => JSON.parse(json) as unknown[]),
      rows,
    )
    replies.length = 0
    bridge.handle(call(2, 'spoiled'))
    await drain()
    assert.equal(replies.filter(reply => reply.kind === 'call-part').length, 3)
    assert.deepEqual(replies.at(-1), {
      kind: 'call-result',
      id: 2,
      ok: false,
      message:
        'tools.spoiled resolved a value that is not lossless JSON: value[1000] is a BigInt (pass a string or a number); pass JSON values only (null, booleans, finite numbers, strings, plain arrays and objects).',
    })
  })
})
