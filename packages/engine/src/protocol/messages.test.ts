// The protocol decoders: every malformed frame is refused with a problem string (never an
// exception, never a getter or a prototype read), and every valid one is rebuilt as fresh plain
// data carrying only the fields of its kind.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { decodeGuestMessage, decodeHostMessage, type Decoded } from './messages.js'

/** Counts reads through getters and proxy traps: a decoder must make none it could be lied to by. */
let trapsRun = 0
function getter(value: unknown): PropertyDescriptor {
  return {
    enumerable: true,
    get: () => {
      trapsRun++
      return value
    },
  }
}
function withGetter(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  return Object.defineProperty({ ...base }, key, getter(value))
}
const throwingProxy = (target: object): object =>
  new Proxy(target, {
    get: () => {
      throw new Error('get trap')
    },
    getOwnPropertyDescriptor: () => {
      throw new Error('descriptor trap')
    },
    ownKeys: () => {
      throw new Error('keys trap')
    },
    getPrototypeOf: () => {
      throw new Error('prototype trap')
    },
  })
function revokedProxy(target: object): object {
  const { proxy, revoke } = Proxy.revocable(target, {})
  revoke()
  return proxy
}
/** An array whose iteration is hijacked: an own iterator that yields what the array does not hold. */
function lyingIterator(items: unknown[], yielded: unknown[]): unknown[] {
  const array = [...items]
  Object.defineProperty(array, Symbol.iterator, {
    value: function* () {
      trapsRun++
      yield* yielded
    },
  })
  return array
}

/** `[<hole>, item]`: an array with its first element missing. */
function holeThen(item: string): string[] {
  const array: string[] = []
  array[1] = item
  return array
}

/** One check per frame: refused with a problem, no exception, no getter or hijacked iterator run. */
function itRefusesEach(decode: (raw: unknown) => Decoded<unknown>, frames: readonly [string, unknown][]): void {
  for (const [label, raw] of frames) {
    it(`refuses ${label} with a problem, without throwing`, () => {
      const before = trapsRun
      let decoded: Decoded<unknown> | undefined
      assert.doesNotThrow(() => {
        decoded = decode(raw)
      })
      assert.equal(decoded?.ok, false, `${label} was accepted`)
      if (decoded?.ok === false) assert.ok(typeof decoded.error === 'string' && decoded.error.length > 0, label)
      assert.equal(trapsRun, before, 'no getter or hijacked iterator ran')
    })
  }
}

function assertRebuilt<T>(decode: (raw: unknown) => Decoded<T>, raw: unknown, expected: unknown): void {
  const decoded = decode(raw)
  assert.ok(decoded.ok, `refused: ${decoded.ok ? '' : decoded.error}`)
  assert.deepEqual(decoded.value, expected)
  assert.notEqual(decoded.value, raw, 'the message is rebuilt, not passed through')
  assert.equal(Object.getPrototypeOf(decoded.value), Object.prototype)
}

const NOT_OBJECTS: readonly [string, unknown][] = [
  ['undefined', undefined],
  ['null', null],
  ['a number', 42],
  ['a boolean', true],
  ['a bigint', 1n],
  ['a symbol', Symbol('kind')],
  ['a function', Object.assign(() => {}, { kind: 'guest-ready' })],
  ['an array', [{ kind: 'guest-ready' }]],
]

const BAD_IDS: readonly unknown[] = [
  0,
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  1e300,
  '1',
  1n,
  null,
  undefined,
  [1],
]

/** Frames of every kind that a decoder must refuse, for both directions. */
function hostileEnvelopes(valid: Record<string, unknown>): readonly [string, unknown][] {
  return [
    ['a kind inherited from the prototype', Object.create(valid)],
    ['a kind behind a getter', withGetter({}, 'kind', valid['kind'])],
    ['a throwing proxy', throwingProxy(valid)],
    ['a revoked proxy', revokedProxy(valid)],
    ['a kind that is Object.prototype member', { kind: 'toString' }],
    ['a kind of __proto__', JSON.parse('{"__proto__":"x","kind":"__proto__"}')],
    ['a kind in another case', { kind: String(valid['kind']).toUpperCase() }],
    ['a kind that is a boxed string', { kind: Object(valid['kind']) }],
    ['no kind', {}],
  ]
}

describe('decodeGuestMessage', () => {
  it('rebuilds every valid message as plain data without extra fields', () => {
    assertRebuilt(decodeGuestMessage, { kind: 'guest-ready', extra: 1 }, { kind: 'guest-ready' })
    assertRebuilt(decodeGuestMessage, { kind: 'log-line', text: 'hi', level: 'x' }, { kind: 'log-line', text: 'hi' })
    assertRebuilt(
      decodeGuestMessage,
      { kind: 'call-request', id: 3, namespace: 0, member: 'echo', argsJson: '{}', spare: true },
      { kind: 'call-request', id: 3, namespace: 0, member: 'echo', argsJson: '{}' },
    )
    assertRebuilt(
      decodeGuestMessage,
      { kind: 'run-end', outcome: 'value', valueJson: null, heapBytes: 10 },
      { kind: 'run-end', outcome: 'value', valueJson: null, heapBytes: 10 },
    )
    assertRebuilt(
      decodeGuestMessage,
      { kind: 'run-end', outcome: 'exception', message: 'boom', valueJson: '1' },
      { kind: 'run-end', outcome: 'exception', message: 'boom' },
    )
    assertRebuilt(decodeGuestMessage, Object.assign(Object.create(null) as object, { kind: 'guest-ready' }), {
      kind: 'guest-ready',
    })
    assertRebuilt(decodeGuestMessage, { kind: 'run-stopped', outcome: 'value' }, { kind: 'run-stopped' })
  })

  it('takes a bare string as a log line', () => {
    assert.deepEqual(decodeGuestMessage('a line'), { ok: true, value: { kind: 'log-line', text: 'a line' } })
  })

  it('drops a heap size that is not a plain byte count instead of passing it on', () => {
    for (const heapBytes of [-1, 1.5, 2 ** 53, Number.NaN, '10', null, 10n]) {
      assertRebuilt(
        decodeGuestMessage,
        { kind: 'run-end', outcome: 'value', valueJson: '1', heapBytes, usedHeapBytes: heapBytes },
        { kind: 'run-end', outcome: 'value', valueJson: '1' },
      )
    }
    assertRebuilt(
      decodeGuestMessage,
      { kind: 'run-end', outcome: 'value', valueJson: '1', heapBytes: 20, usedHeapBytes: 10 },
      { kind: 'run-end', outcome: 'value', valueJson: '1', heapBytes: 20, usedHeapBytes: 10 },
    )
  })

  const malformed: [string, unknown][] = [
    ...NOT_OBJECTS,
    ...hostileEnvelopes({ kind: 'guest-ready' }),
    ['an unknown kind', { kind: 'run-start', source: '', namespaces: [], maxOutputBytes: 1 }],
    ['a log-line without text', { kind: 'log-line' }],
    ['a log-line with a number', { kind: 'log-line', text: 1 }],
    ['a log-line with a boxed string', { kind: 'log-line', text: Object('hi') }],
    ['a log-line whose text is a getter', withGetter({ kind: 'log-line' }, 'text', 'hi')],
    [
      'a log-line whose text is inherited',
      Object.assign(Object.create({ text: 'hi' }) as object, { kind: 'log-line' }),
    ],
    ...BAD_IDS.map((id): [string, unknown] => [
      `a call-request with id ${String(id)}`,
      { kind: 'call-request', id, namespace: 0, member: 'echo', argsJson: '{}' },
    ]),
    ...[-1, 0.5, 2 ** 53, Number.NaN, '0', null].map((namespace): [string, unknown] => [
      `a call-request with namespace ${String(namespace)}`,
      { kind: 'call-request', id: 1, namespace, member: 'echo', argsJson: '{}' },
    ]),
    ['a call-request without member', { kind: 'call-request', id: 1, namespace: 0, argsJson: '{}' }],
    [
      'a call-request with a symbol member',
      { kind: 'call-request', id: 1, namespace: 0, member: Symbol('echo'), argsJson: '{}' },
    ],
    [
      'a call-request with arguments as an object',
      { kind: 'call-request', id: 1, namespace: 0, member: 'echo', argsJson: {} },
    ],
    [
      'a call-request whose id is a getter',
      withGetter({ kind: 'call-request', namespace: 0, member: 'echo', argsJson: '{}' }, 'id', 1),
    ],
    ['a run-end without outcome', { kind: 'run-end', valueJson: '1' }],
    ['a run-end with an unknown outcome', { kind: 'run-end', outcome: 'timeout', message: 'x' }],
    ['a run-end value without valueJson', { kind: 'run-end', outcome: 'value' }],
    ['a run-end value that is parsed already', { kind: 'run-end', outcome: 'value', valueJson: 1 }],
    ['a run-end exception without message', { kind: 'run-end', outcome: 'exception' }],
    ['an invalid-output with a number message', { kind: 'run-end', outcome: 'invalid-output', message: 1 }],
    // Parts travel host to guest only: a guest cannot send the host a value in parts.
    ['a call-part from the guest', { kind: 'call-part', id: 1, json: '[1]' }],
  ]
  itRefusesEach(decodeGuestMessage, malformed)
})

describe('decodeHostMessage', () => {
  const namespace = {
    global: 'tools',
    members: ['echo', 'fail'],
    errorClass: { name: 'ToolError', memberNameProperty: 'tool' },
  }
  const runStart = {
    kind: 'run-start',
    source: '(async function () {\n})',
    namespaces: [namespace],
    maxOutputBytes: 100,
  }

  it('rebuilds every valid message as plain data without extra fields', () => {
    assertRebuilt(decodeHostMessage, { ...runStart, extra: 1, namespaces: [{ ...namespace, extra: 2 }] }, runStart)
    assertRebuilt(
      decodeHostMessage,
      { ...runStart, namespaces: [{ ...namespace, errorClass: null }] },
      { ...runStart, namespaces: [{ ...namespace, errorClass: null }] },
    )
    assertRebuilt(decodeHostMessage, { kind: 'recycle', source: 'x' }, { kind: 'recycle' })
    assertRebuilt(decodeHostMessage, { kind: 'run-stop', id: 1 }, { kind: 'run-stop' })
    assertRebuilt(
      decodeHostMessage,
      { ...runStart, session: { keptNames: ['a', 'f'], publishedFunctions: ['f'], maxKeptNames: 10, extra: 1 } },
      { ...runStart, session: { keptNames: ['a', 'f'], publishedFunctions: ['f'], maxKeptNames: 10 } },
    )
    assertRebuilt(
      decodeHostMessage,
      { kind: 'call-result', id: 1, ok: true, valueJson: '1', message: 'x' },
      { kind: 'call-result', id: 1, ok: true, valueJson: '1' },
    )
    assertRebuilt(
      decodeHostMessage,
      { kind: 'call-result', id: 2, ok: false, message: 'no', valueJson: '1' },
      { kind: 'call-result', id: 2, ok: false, message: 'no' },
    )
    assertRebuilt(
      decodeHostMessage,
      { kind: 'call-result', id: 3, ok: true, valueJson: '[1]', parts: 2 },
      { kind: 'call-result', id: 3, ok: true, valueJson: '[1]', parts: 2 },
    )
    assertRebuilt(
      decodeHostMessage,
      { kind: 'call-result', id: 4, ok: false, message: 'no', parts: 2 },
      { kind: 'call-result', id: 4, ok: false, message: 'no' },
    )
    assertRebuilt(
      decodeHostMessage,
      { kind: 'call-part', id: 3, json: '[0]', ok: true },
      { kind: 'call-part', id: 3, json: '[0]' },
    )
  })

  it('rebuilds the namespaces and their member lists, not the arrays it was given', () => {
    const members = ['echo']
    const namespaces = [{ global: 'tools', members, errorClass: null }]
    const decoded = decodeHostMessage({ ...runStart, namespaces })
    assert.ok(decoded.ok && decoded.value.kind === 'run-start')
    const [spec] = decoded.value.namespaces
    assert.notEqual(decoded.value.namespaces, namespaces)
    assert.notEqual(spec?.members, members)
    assert.deepEqual(spec?.members, ['echo'])
  })

  it('reads arrays by their own indexes, not through an iterator they carry', () => {
    const before = trapsRun
    const decoded = decodeHostMessage({ ...runStart, namespaces: lyingIterator([], [namespace]) })
    assert.ok(decoded.ok && decoded.value.kind === 'run-start')
    assert.deepEqual(decoded.value.namespaces, [])
    assert.equal(trapsRun, before)
  })

  const withNamespace = (spec: unknown): Record<string, unknown> => ({ ...runStart, namespaces: [spec] })
  const malformed: [string, unknown][] = [
    ...NOT_OBJECTS,
    ...hostileEnvelopes({ kind: 'recycle' }),
    ['a guest message', { kind: 'guest-ready' }],
    ['a run-start without source', { ...runStart, source: undefined }],
    ['a run-start with a source getter', withGetter(runStart, 'source', 'x')],
    ['a run-start with namespaces as an object', { ...runStart, namespaces: { 0: namespace, length: 1 } }],
    ['a run-start with namespaces behind a revoked proxy', { ...runStart, namespaces: revokedProxy([]) }],
    ['a run-start with namespaces behind a throwing proxy', { ...runStart, namespaces: throwingProxy([namespace]) }],
    [
      'a run-start with a namespace behind a getter',
      { ...runStart, namespaces: Object.defineProperty([], 0, getter(namespace)) },
    ],
    ...[Number.NaN, 1.5, 2 ** 53, -1, '100', undefined].map((maxOutputBytes): [string, unknown] => [
      `a run-start with maxOutputBytes ${String(maxOutputBytes)}`,
      { ...runStart, maxOutputBytes },
    ]),
    ['a run-start with a null session', { ...runStart, session: null }],
    [
      'a run-start with a session behind a getter',
      withGetter(runStart, 'session', { keptNames: [], publishedFunctions: [] }),
    ],
    ['a run-start with a session without keptNames', { ...runStart, session: { publishedFunctions: [] } }],
    [
      'a run-start with a session without publishedFunctions',
      { ...runStart, session: { keptNames: [], maxKeptNames: 10 } },
    ],
    [
      'a run-start with a session without maxKeptNames',
      { ...runStart, session: { keptNames: [], publishedFunctions: [] } },
    ],
    [
      'a run-start with a session whose maxKeptNames is not a count',
      { ...runStart, session: { keptNames: [], publishedFunctions: [], maxKeptNames: 1.5 } },
    ],
    ['a run-start with a number kept name', { ...runStart, session: { keptNames: [1], publishedFunctions: [] } }],
    [
      'a run-start with kept names behind a throwing proxy',
      { ...runStart, session: { keptNames: throwingProxy(['a']), publishedFunctions: [] } },
    ],
    [
      'a run-start with a published function behind a getter',
      { ...runStart, session: { keptNames: [], publishedFunctions: Object.defineProperty(['x'], 0, getter('f')) } },
    ],
    [
      'a run-start with kept names that lie when iterated',
      { ...runStart, session: { keptNames: lyingIterator([1], ['a']), publishedFunctions: [] } },
    ],
    ['a namespace that is null', withNamespace(null)],
    ['a namespace without global', withNamespace({ ...namespace, global: undefined })],
    ['a namespace with members as a string', withNamespace({ ...namespace, members: 'echo' })],
    ['a namespace with a number member', withNamespace({ ...namespace, members: ['echo', 1] })],
    ['a namespace with a hole in its members', withNamespace({ ...namespace, members: holeThen('echo') })],
    [
      'a namespace with a member behind a getter',
      withNamespace({ ...namespace, members: Object.defineProperty(['x'], 0, getter('echo')) }),
    ],
    [
      'a namespace whose members lie when iterated',
      withNamespace({ ...namespace, members: lyingIterator([1], ['echo']) }),
    ],
    [
      'a namespace with members behind a throwing proxy',
      withNamespace({ ...namespace, members: throwingProxy(['echo']) }),
    ],
    ['a namespace without errorClass', withNamespace({ ...namespace, errorClass: undefined })],
    ['a namespace with a half errorClass', withNamespace({ ...namespace, errorClass: { name: 'ToolError' } })],
    [
      'a namespace whose errorClass is inherited',
      withNamespace(Object.assign(Object.create({ errorClass: null }) as object, { global: 'tools', members: [] })),
    ],
    ...BAD_IDS.map((id): [string, unknown] => [
      `a call-result with id ${String(id)}`,
      { kind: 'call-result', id, ok: true, valueJson: '1' },
    ]),
    ['a call-result without ok', { kind: 'call-result', id: 1, valueJson: '1' }],
    ['a call-result with ok as a string', { kind: 'call-result', id: 1, ok: 'true', valueJson: '1' }],
    ['a call-result with ok as 1', { kind: 'call-result', id: 1, ok: 1, valueJson: '1' }],
    ['a successful call-result without value', { kind: 'call-result', id: 1, ok: true, message: 'x' }],
    ['a failed call-result without message', { kind: 'call-result', id: 1, ok: false, valueJson: '1' }],
    ...[-1, 0.5, 2 ** 53, Number.NaN, '2', null].map((parts): [string, unknown] => [
      `a call-result counting ${String(parts)} parts`,
      { kind: 'call-result', id: 1, ok: true, valueJson: '[1]', parts },
    ]),
    ...BAD_IDS.map((id): [string, unknown] => [
      `a call-part with id ${String(id)}`,
      { kind: 'call-part', id, json: '[1]' },
    ]),
    ['a call-part without json', { kind: 'call-part', id: 1 }],
    ['a call-part with parsed json', { kind: 'call-part', id: 1, json: [1] }],
    ['a call-part whose json is a getter', withGetter({ kind: 'call-part', id: 1 }, 'json', '[1]')],
  ]
  itRefusesEach(decodeHostMessage, malformed)
})
