// Property-based checks of lossless JSON and the output ledger: random,
// hostile and deep values, each property seeded and stopped after a few seconds. A failure
// prints its seed and path; rerun with FUZZ_SEED=<seed> to reproduce it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { type CodeJsonValue, type CodeRunOutcome } from '@code-runtime/core'
import {
  jsonStringByteLength,
  jsonValueByteLength,
  logsByteLength,
  OutputLedger,
  safeSnapshotLosslessJson,
  stringifyJsonValue,
} from '@code-runtime/core/json'
// The ledger's cutting helpers are internal: reached by path, not through the package's exports.
import { fitLogsPrefix, fitStringPrefix } from '../src/output-ledger.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201)
/** Each property stops after this long, passing with the runs made so far. */
const TIME_LIMIT_MS = 3_000

function check<T>(property: fc.IProperty<T>, numRuns = 2_000): void {
  fc.assert(property, { seed: SEED, numRuns, interruptAfterTimeLimit: TIME_LIMIT_MS })
}

const utf8Bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** Strings of any UTF-16 units: lone surrogates, control characters, quotes, backslashes. */
const anyString = fc.oneof(
  fc.string16bits(),
  fc.fullUnicodeString(),
  fc.constantFrom('', '"', '\\', '\u2028', '\ud800', '\udc00x', '\u0000\u001f'),
)

/** JSON values whose strings hold any UTF-16 unit. */
const jsonValue: fc.Arbitrary<CodeJsonValue> = fc.letrec<{ value: CodeJsonValue }>(tie => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter(number => !Object.is(number, -0)),
    fc.integer(),
    anyString,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 6 }),
  ),
})).value

/** A JSON value wrapped `depth` times in arrays or objects (chosen by `shape`), built without recursion. */
function deepen(inner: CodeJsonValue, depth: number, shape: readonly boolean[], key: string): CodeJsonValue {
  let value = inner
  for (let level = 0; level < depth; level++) value = shape[level % shape.length] === true ? [value] : { [key]: value }
  return value
}

const deepJsonValue = fc
  .tuple(
    jsonValue,
    fc.integer({ min: 1_000, max: 40_000 }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    anyString,
  )
  .map(([inner, depth, shape, key]) => deepen(inner, depth, shape, key))

/**
 * The rules of CONTRACT section #lossless-json, written the obvious (recursive) way, for values without
 * getters, proxies or cycles: the independent answer the snapshotter must agree with.
 */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0)
    case 'object':
      break
    default:
      return false
  }
  if (value === null) return true
  const keys = Reflect.ownKeys(value)
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || keys.length !== value.length + 1) return false
    for (let index = 0; index < value.length; index++)
      if (!Object.hasOwn(value, index) || !isPlainJson(value[index])) return false
    return true
  }
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)
    if (
      typeof key !== 'string' ||
      descriptor?.enumerable !== true ||
      !('value' in descriptor) ||
      !isPlainJson(descriptor.value)
    )
      return false
  }
  return true
}

/** Anything fast-check makes: Dates, Maps, boxed values, sparse arrays, null prototypes, -0, BigInt... */
const anyValue = fc.anything({
  maxDepth: 4,
  maxKeys: 5,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
})

/** One hostile wrapper around a value: a proxy, a getter (counting or throwing), a foreign prototype, a symbol key, a cycle. */
type Hostile = { readonly value: unknown; readonly reads: () => number }
const hostileValue: fc.Arbitrary<Hostile> = fc
  .tuple(anyValue, fc.integer({ min: 0, max: 6 }), anyString)
  .map(([inner, kind, key]) => {
    let reads = 0
    const count = (): unknown => {
      reads++
      return inner
    }
    let value: unknown
    switch (kind) {
      case 0:
        value = new Proxy({ [key]: inner }, {})
        break
      case 1:
        value = Object.defineProperty({}, key, { get: count, enumerable: true })
        break
      case 2:
        value = {
          a: [
            Object.defineProperty({}, key, {
              get: () => {
                throw new Error('trap')
              },
              enumerable: true,
            }),
          ],
        }
        break
      case 3:
        value = Object.setPrototypeOf({ [key]: inner }, { inherited: 1 })
        break
      case 4:
        value = { [key]: inner, [Symbol('hidden')]: 1 }
        break
      case 5: {
        const loop: unknown[] = [inner]
        loop.push({ back: loop })
        value = loop
        break
      }
      default:
        value = [inner, Object.defineProperty([1, 2], 'length', { value: 2 })]
    }
    return { value, reads: () => reads }
  })

function resultBytes(result: CodeRunOutcome): number {
  return (
    utf8Bytes(result.logs) +
    ('value' in result && result.value !== undefined ? utf8Bytes(result.value) : 0) +
    (result.error === undefined ? 0 : utf8Bytes(result.error.message))
  )
}

void describe('fuzz: the lossless-JSON checker [#lossless-json]', () => {
  void it('copies every JSON value exactly, and stringifyJsonValue writes the native text', () => {
    check(
      fc.property(jsonValue, value => {
        const snapshot = safeSnapshotLosslessJson(value)
        assert.ok(snapshot.ok, JSON.stringify(!snapshot.ok && snapshot.error))
        assert.notEqual(snapshot.value, typeof value === 'object' && value !== null ? value : Symbol('fresh copy'))
        assert.equal(stringifyJsonValue(snapshot.value), JSON.stringify(value))
      }),
    )
  })

  void it('agrees with the plain recursive rules on anything fast-check can make', () => {
    check(
      fc.property(anyValue, value => {
        const snapshot = safeSnapshotLosslessJson(value)
        assert.equal(
          snapshot.ok,
          isPlainJson(value),
          snapshot.ok ? 'accepted' : `${snapshot.error.path} ${snapshot.error.reason}`,
        )
        if (snapshot.ok) assert.equal(stringifyJsonValue(snapshot.value), JSON.stringify(value))
      }),
    )
  })

  void it('never throws on hostile values, refuses what is not plain, and reads a getter at most once', () => {
    check(
      fc.property(hostileValue, ({ value, reads }) => {
        const snapshot = safeSnapshotLosslessJson(value, { rootLabel: 'args' })
        assert.ok(reads() <= 1, `a getter ran ${reads()} times`)
        if (!snapshot.ok) {
          assert.ok(snapshot.error.path.startsWith('args'))
          assert.ok(snapshot.error.reason.length > 0)
          return
        }
        // Only the counting getter over a plain value may pass: its copy is plain data.
        assert.ok(isPlainJson(snapshot.value))
      }),
    )
  })

  void it('copies values thousands of levels deep; their text round-trips and its byte count matches', () => {
    check(
      fc.property(deepJsonValue, value => {
        const snapshot = safeSnapshotLosslessJson(value)
        assert.ok(snapshot.ok)
        const text = stringifyJsonValue(snapshot.value)
        assert.equal(stringifyJsonValue(JSON.parse(text) as CodeJsonValue), text)
        assert.equal(jsonValueByteLength(snapshot.value), Buffer.byteLength(text, 'utf8'))
      }),
      30,
    )
  })
})

void describe('fuzz: the ledger counts bytes as Buffer.byteLength(JSON.stringify(...)) does [#output-bytes]', () => {
  void it('counts strings, values and logs arrays exactly', () => {
    check(
      fc.property(anyString, jsonValue, fc.array(anyString, { maxLength: 8 }), (text, value, logs) => {
        assert.equal(jsonStringByteLength(text), utf8Bytes(text))
        assert.equal(jsonValueByteLength(value), utf8Bytes(value))
        assert.equal(logsByteLength(logs), utf8Bytes(logs))
      }),
    )
  })

  void it('cuts prefixes that fit and are the longest that do', () => {
    check(
      fc.property(
        anyString,
        fc.array(anyString, { maxLength: 6 }),
        fc.integer({ min: 0, max: 200 }),
        (text, logs, maxBytes) => {
          const prefix = fitStringPrefix(text, maxBytes)
          if (maxBytes < 2) assert.equal(prefix, undefined)
          else {
            assert.ok(prefix !== undefined && text.startsWith(prefix) && utf8Bytes(prefix) <= maxBytes)
            if (prefix.length < text.length) {
              const unit = text.charCodeAt(prefix.length)
              const next =
                unit >= 0xd800 &&
                unit <= 0xdbff &&
                text.charCodeAt(prefix.length + 1) >= 0xdc00 &&
                text.charCodeAt(prefix.length + 1) <= 0xdfff
                  ? 2
                  : 1
              assert.ok(
                utf8Bytes(text.slice(0, prefix.length + next)) > maxBytes,
                'one more code point would still fit',
              )
            }
          }
          const kept = fitLogsPrefix(logs, Math.max(2, maxBytes))
          assert.ok(utf8Bytes(kept) <= Math.max(2, maxBytes))
        },
      ),
    )
  })

  void it('settles within the cap with outputBytes equal to the result it returns', () => {
    check(
      fc.property(
        fc.array(anyString, { maxLength: 10 }),
        fc.option(jsonValue),
        fc.integer({ min: 4, max: 400 }),
        fc.option(fc.integer({ min: 1, max: 6 })),
        (logs, value, cap, maxLogEntries) => {
          const ledger = new OutputLedger(cap, undefined, maxLogEntries === null ? {} : { maxLogEntries })
          let open = true
          for (const entry of logs) if (open) open = ledger.appendLog(entry)
          const result =
            value === null
              ? open
                ? ledger.settleValue(undefined, 0)
                : ledger.settleOverflow()
              : ledger.settleValue(value, jsonValueByteLength(value))
          assert.ok(resultBytes(result) <= cap, `${resultBytes(result)} > ${cap}`)
          assert.equal(ledger.outputBytes, resultBytes(result))
          const fits =
            utf8Bytes(logs) + (value === null ? 0 : utf8Bytes(value)) <= cap &&
            (maxLogEntries === null || logs.length <= maxLogEntries)
          assert.equal(result.error === undefined, fits, 'fails output-limit exactly when the output does not fit')
          if (fits) assert.deepEqual(result.logs, logs)
        },
      ),
    )
  })
})
