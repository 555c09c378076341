// Property-based checks of everything that crosses the bus: every decoder of protocol.ts takes
// random and forged bytes without throwing, and gives back either nothing or plain data of its
// shape; what the encoders write decodes to itself. The seals of message-seal.ts open only what
// the other party sealed, once, for the kind it was sealed as. Seeded and stopped after a few
// seconds per property; FUZZ_SEED=<seed> reproduces one.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import * as protocol from './protocol.js'
import {
  decodeCallReply,
  decodeEndMessage,
  decodeLogMessage,
  decodeSessionAdoptReply,
  decodeSessionAdoptRequest,
  decodeSessionOpenRequest,
  decodeStartRequest,
  encodeEndMessage,
  encodeMessage,
  PROTOCOL_VERSION,
} from './protocol.js'
import {
  deriveKey,
  KeyAgreement,
  randomId,
  REPLAY_WINDOW,
  SealedChannel,
  type RejectionCounter,
} from './message-seal.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261202)
const TIME_LIMIT_MS = 2_000

function check<T>(property: fc.IProperty<T>, numRuns = 500): void {
  fc.assert(property, { seed: SEED, numRuns, interruptAfterTimeLimit: TIME_LIMIT_MS })
}

/** Every decoder the module has, found by name, so a new one is fuzzed without being listed here. */
const DECODERS = Object.entries(protocol).filter(([name]) => name.startsWith('decode')) as [
  string,
  (data: Uint8Array) => unknown,
][]

const encoder = new TextEncoder()
const anyString = fc.oneof(
  fc.string(),
  fc.fullUnicodeString(),
  fc.constantFrom('', '\ud800', '__proto__', 'constructor', '_INBOX.a.*', 'a..b', '>'),
)
const anyJson = fc.json().map(text => encoder.encode(text))
const field = fc.oneof(
  anyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(anyString, { maxLength: 3 }),
  fc.constant({}),
)
/** Objects with the protocol's field names and random values: the forgeries closest to a real message. */
const nearMessage = fc
  .dictionary(
    fc.constantFrom(
      'v',
      'run',
      'reply',
      'program',
      'namespaces',
      'budgets',
      'session',
      'key',
      'ticket',
      'ok',
      'runner',
      'reason',
      'message',
      'retry',
      'id',
      'namespace',
      'member',
      'argsJson',
      'valueJson',
      'index',
      'text',
      'result',
      'refusal',
      'options',
      'code',
      'field',
      'adoption',
      'anchor',
      'digest',
      'proof',
      'memo',
      '__proto__',
    ),
    field,
  )
  .map(object => encoder.encode(JSON.stringify({ v: PROTOCOL_VERSION, ...object })))
const anyBytes = fc.oneof(fc.uint8Array({ maxLength: 256 }), anyJson, nearMessage)

/** True when `value` is plain data all the way down: objects of Object.prototype, arrays, primitives. */
function isPlainData(value: unknown, depth = 0): boolean {
  if (depth > 64) return true
  if (value === null || typeof value !== 'object') return typeof value !== 'function'
  if (Array.isArray(value)) return value.every(item => isPlainData(item, depth + 1))
  return (
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.values(value).every(item => isPlainData(item, depth + 1))
  )
}

void describe('fuzz: nats protocol decoders', () => {
  void it('finds every decoder', () => {
    assert.equal(DECODERS.length, 17)
  })
  for (const [name, decode] of DECODERS) {
    void it(`${name} never throws, and gives nothing or plain data`, () => {
      check(
        fc.property(anyBytes, bytes => {
          const decoded = decode(bytes)
          assert.ok(decoded === undefined || isPlainData(decoded))
        }),
      )
    })
  }

  void it('decodes what the runner and caller encode as it was', () => {
    check(
      fc.property(fc.string(), fc.integer({ min: 0, max: 1_000_000 }), fc.boolean(), (text, id, ok) => {
        assert.deepEqual(decodeLogMessage(encodeMessage({ text })), { text })
        const answer = ok
          ? { id, ok: true as const, valueJson: JSON.stringify(text) }
          : { id, ok: false as const, message: text }
        assert.deepEqual(decodeCallReply(encodeMessage(answer)), answer)
        const result = {
          logs: [text],
          value: text,
          usage: { wallMs: 1, busyMs: 1, bindingCalls: 0, outputBytes: 2 },
          calls: [],
        }
        assert.deepEqual(decodeEndMessage(encodeEndMessage(result))?.result, result)
      }),
    )
  })

  void it('refuses a start or a session open whose reply subject could add tokens or wildcards', () => {
    const budgets = { computeMs: 1, maxWallMs: 1, maxOutputBytes: 1 }
    for (const reply of ['_INBOX.a.*', '_INBOX.>', '_INBOX..a', '.a', 'a.', 'a b', '']) {
      assert.equal(
        decodeStartRequest(
          encodeMessage({
            v: PROTOCOL_VERSION,
            run: 'r',
            reply,
            program: '',
            namespaces: [],
            budgets,
            key: 'k',
            ticket: 't',
          }),
        ),
        undefined,
        reply,
      )
      assert.equal(
        decodeSessionOpenRequest(
          encodeMessage({ v: PROTOCOL_VERSION, session: 's', reply, budgets, options: {}, key: 'k', ticket: 't' }),
        ),
        undefined,
        reply,
      )
    }
    assert.ok(
      decodeSessionOpenRequest(
        encodeMessage({
          v: PROTOCOL_VERSION,
          session: 's',
          reply: '_INBOX.a.b',
          budgets,
          options: {},
          key: 'k',
          ticket: 't',
        }),
      ) !== undefined,
    )
  })
})

void describe('fuzz: session adoption messages', () => {
  const digest = 'A'.repeat(43)
  void it('decodes an adoption request and its answers as written, and refuses a proof or memo of another shape', () => {
    check(
      fc.property(anyString, field, (text, value) => {
        const request = {
          v: PROTOCOL_VERSION,
          session: 's',
          reply: '_INBOX.a.b',
          key: 'k',
          anchor: 'an',
          proof: digest,
        }
        assert.deepEqual(decodeSessionAdoptRequest(encodeMessage(request)), request)
        assert.equal(decodeSessionAdoptRequest(encodeMessage({ ...request, proof: text })), undefined)
        assert.equal(
          decodeSessionAdoptRequest(encodeMessage({ ...request, anchor: `${JSON.stringify(value)}.` })),
          undefined,
        )
        const memo = Buffer.from(text).toString('base64url')
        assert.deepEqual(decodeSessionAdoptReply(encodeMessage({ ok: true, id: 'r/1', memo })), {
          ok: true,
          id: 'r/1',
          memo,
        })
        assert.equal(decodeSessionAdoptReply(encodeMessage({ ok: true, id: 'r/1', memo: `${memo}=` })), undefined)
        assert.equal(decodeSessionAdoptReply(encodeMessage({ ok: false, reason: text })), undefined)
      }),
      200,
    )
    const open = {
      v: PROTOCOL_VERSION,
      session: 's',
      reply: '_INBOX.a.b',
      budgets: { computeMs: 1, maxWallMs: 1, maxOutputBytes: 1 },
      options: {},
      key: 'k',
      ticket: 't',
    }
    assert.deepEqual(
      decodeSessionOpenRequest(encodeMessage({ ...open, adoption: { anchor: 'a', digest } }))?.adoption,
      {
        anchor: 'a',
        digest,
      },
    )
    assert.equal(decodeSessionOpenRequest(encodeMessage({ ...open, adoption: { anchor: 'a.b', digest } })), undefined)
  })
})

void describe('fuzz: message seals', () => {
  const pair = (): { caller: SealedChannel; runner: SealedChannel; rejections: RejectionCounter } => {
    const callerKeys = new KeyAgreement()
    const runnerKeys = new KeyAgreement()
    const run = randomId()
    const rejections = { rejected: 0 }
    const callerKey = callerKeys.conversationKey(runnerKeys.publicKey, run)
    const runnerKey = runnerKeys.conversationKey(callerKeys.publicKey, run)
    assert.ok(callerKey !== undefined && runnerKey !== undefined)
    assert.deepEqual(callerKey, runnerKey)
    return {
      caller: new SealedChannel(callerKey, 'caller', rejections),
      runner: new SealedChannel(runnerKey, 'runner', rejections),
      rejections,
    }
  }

  void it('opens what the other party sealed, once, and nothing changed, moved or sent back', () => {
    const { caller, runner, rejections } = pair()
    check(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(), (body, flip) => {
        const sealed = caller.seal('answer', body)
        assert.equal(runner.open('call', sealed), undefined, 'another kind')
        assert.equal(caller.open('answer', sealed), undefined, 'sent back to its sender')
        const changed = Uint8Array.from(sealed)
        const at = flip % changed.length
        changed[at] = (changed[at] ?? 0) ^ 1
        assert.equal(runner.open('answer', changed), undefined, 'a flipped bit')
        assert.deepEqual(runner.open('answer', sealed), body)
        assert.equal(runner.open('answer', sealed), undefined, 'a replay')
      }),
      200,
    )
    assert.ok(rejections.rejected >= 4)
  })

  void it('takes messages out of order within the window, each once, and refuses older ones', () => {
    const { caller, runner } = pair()
    const sealed = Array.from({ length: REPLAY_WINDOW + 10 }, (_unused, index) =>
      caller.seal('beat', Uint8Array.of(index)),
    )
    assert.ok(runner.open('beat', sealed[REPLAY_WINDOW + 9] as Uint8Array) !== undefined)
    assert.equal(runner.open('beat', sealed[0] as Uint8Array), undefined, 'older than the window')
    assert.ok(runner.open('beat', sealed[20] as Uint8Array) !== undefined, 'late, within the window')
    assert.equal(runner.open('beat', sealed[20] as Uint8Array), undefined, 'the same late one again')
  })

  void it('refuses forged public keys without throwing, and nested keys differ per conversation', () => {
    const keys = new KeyAgreement()
    check(
      fc.property(anyString, text => {
        assert.doesNotThrow(() => keys.conversationKey(text, 'run'))
      }),
    )
    assert.equal(keys.conversationKey('A'.repeat(43), 'run'), undefined, 'the all-zero point is degenerate')
    const secret = Buffer.alloc(32, 1)
    assert.notDeepEqual(deriveKey(secret, 'a'), deriveKey(secret, 'b'))
  })
})
