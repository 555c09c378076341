import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  buildOutputLimitResult,
  fitLogsPrefix,
  fitStringPrefix,
  jsonStringByteLength,
  jsonValueByteLength,
  logsByteLength,
  OutputLedger,
  outputLimitMessage,
} from './output-ledger.js'
import type { CodeJsonValue, CodeRunOutcome } from './types.js'

/** What the ledger must agree with: the UTF-8 size of the compact JSON. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8')
}

/** The charged size of a result, computed independently of the ledger (CONTRACT section #output-bytes). */
function resultBytes(result: CodeRunOutcome): number {
  return (
    jsonBytes(result.logs) +
    (result.value === undefined ? 0 : jsonBytes(result.value)) +
    (result.error === undefined ? 0 : jsonBytes(result.error.message))
  )
}

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = state
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

// One representative per byte class, weighted towards the awkward ones.
const PIECES = [
  'a',
  'Z',
  ' ',
  '~',
  '\u007f',
  '"',
  '\\',
  '\b',
  '\t',
  '\n',
  '\f',
  '\r',
  '\u0000',
  '\u0001',
  '\u001f',
  'é',
  '\u07ff',
  '\u0800',
  '€',
  '\u2028',
  '\uffff',
  '😀',
  '\u{10ffff}',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
]

function randomString(random: () => number, maxLength: number): string {
  const length = Math.floor(random() * maxLength)
  let text = ''
  for (let index = 0; index < length; index++) {
    text +=
      random() < 0.3
        ? String.fromCharCode(Math.floor(random() * 0x10000))
        : (PIECES[Math.floor(random() * PIECES.length)] as string)
  }
  return text
}

function randomValue(random: () => number, depth: number): CodeJsonValue {
  const pick = random()
  if (depth <= 0 || pick < 0.4) {
    const leaf = random()
    if (leaf < 0.15) return null
    if (leaf < 0.3) return random() < 0.5
    if (leaf < 0.6) {
      const numbers = [0, 1, -1, 0.1, -2.5, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 123456789.125, -0.000001]
      return random() < 0.5
        ? (numbers[Math.floor(random() * numbers.length)] as number)
        : (random() - 0.5) * 10 ** Math.floor(random() * 30)
    }
    return randomString(random, 12)
  }
  const size = Math.floor(random() * 5)
  if (pick < 0.7) return Array.from({ length: size }, () => randomValue(random, depth - 1))
  const object: Record<string, CodeJsonValue> = {}
  for (let index = 0; index < size; index++) object[randomString(random, 6)] = randomValue(random, depth - 1)
  return object
}

void describe('jsonStringByteLength [#output-bytes]', () => {
  const classes: ReadonlyArray<readonly [string, string, number]> = [
    ['the empty string', '', 2],
    ['ASCII', 'abc', 5],
    ['a quote', '"', 4],
    ['a backslash', '\\', 4],
    ['\\b', '\b', 4],
    ['\\t', '\t', 4],
    ['\\n', '\n', 4],
    ['\\f', '\f', 4],
    ['\\r', '\r', 4],
    ['NUL', '\u0000', 8],
    ['another control character', '\u001f', 8],
    ['DEL, which JSON leaves alone', '\u007f', 3],
    ['a two-byte character', 'é', 4],
    ['the last two-byte character', '\u07ff', 4],
    ['the first three-byte character', '\u0800', 5],
    ['the euro sign', '€', 5],
    ['a line separator, which JSON leaves alone', '\u2028', 5],
    ['an astral pair', '😀', 6],
    ['the last code point', '\u{10ffff}', 6],
    ['a lone high surrogate', '\ud800', 8],
    ['a lone low surrogate', '\udfff', 8],
    ['a reversed pair', '\udc00\ud800', 14],
    ['a high surrogate at the end', 'a\ud83d', 9],
  ]
  for (const [name, text, bytes] of classes) {
    void it(`measures ${name} as ${bytes} bytes`, () => {
      assert.equal(jsonStringByteLength(text), bytes)
      assert.equal(jsonBytes(text), bytes)
    })
  }

  void it('agrees with Buffer.byteLength(JSON.stringify(s)) for every single code unit', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = String.fromCharCode(code)
      assert.equal(jsonStringByteLength(text), jsonBytes(text), `U+${code.toString(16)}`)
    }
  })

  void it('agrees with Buffer.byteLength(JSON.stringify(s)) for every pair of byte classes', () => {
    for (const first of PIECES) {
      for (const second of PIECES) {
        const text = first + second
        assert.equal(jsonStringByteLength(text), jsonBytes(text), JSON.stringify(text))
      }
    }
  })

  void it('agrees with Buffer.byteLength(JSON.stringify(s)) on random strings', () => {
    const random = createRandom(1)
    for (let round = 0; round < 3_000; round++) {
      const text = randomString(random, 64)
      assert.equal(jsonStringByteLength(text), jsonBytes(text), JSON.stringify(text))
    }
  })

  void it('agrees on long strings with and without characters to escape', () => {
    const plain = 'word €😀 '.repeat(100_000)
    assert.equal(jsonStringByteLength(plain), jsonBytes(plain))
    const escaped = `${plain}"\n\u0001\ud800`
    assert.equal(jsonStringByteLength(escaped), jsonBytes(escaped))
  })
})

void describe('jsonValueByteLength [#output-bytes]', () => {
  void it('agrees with Buffer.byteLength(JSON.stringify(v)) on fixed values', () => {
    const values: CodeJsonValue[] = [
      null,
      true,
      false,
      0,
      -1,
      0.1,
      1e21,
      1e-7,
      5e-324,
      -Number.MAX_VALUE,
      '',
      '€',
      [],
      {},
      [[]],
      [{}],
      { '': [] },
      [1, 'two', null, true, { three: [3] }],
      { 'k"ey': 'v\nal', nested: { deeper: { deepest: ['😀', '\ud800'] } }, list: [1, 2, 3] },
      JSON.parse('{"__proto__": {"a": 1}, "b": [1]}') as CodeJsonValue,
    ]
    for (const value of values) assert.equal(jsonValueByteLength(value), jsonBytes(value), JSON.stringify(value))
  })

  void it('agrees with Buffer.byteLength(JSON.stringify(v)) on random nested values', () => {
    const random = createRandom(2)
    for (let round = 0; round < 1_000; round++) {
      const value = randomValue(random, 5)
      assert.equal(jsonValueByteLength(value), jsonBytes(value), JSON.stringify(value))
    }
  })

  void it('measures 100 000 levels of nesting without overflowing the stack', () => {
    let value: CodeJsonValue = 'leaf'
    for (let level = 0; level < 100_000; level++) value = level % 2 === 0 ? [value] : { k: value }
    assert.equal(jsonValueByteLength(value), 6 + 50_000 * 2 + 50_000 * 6)
  })
})

void describe('logsByteLength [#output-bytes]', () => {
  void it('charges brackets, each entry and one comma between entries', () => {
    assert.equal(logsByteLength([]), 2)
    assert.equal(logsByteLength(['abc']), 7)
    assert.equal(logsByteLength(['abc', '']), 10)
    assert.equal(logsByteLength(['€', '"']), jsonBytes(['€', '"']))
  })

  void it('agrees with Buffer.byteLength(JSON.stringify(logs)) on random logs', () => {
    const random = createRandom(3)
    for (let round = 0; round < 500; round++) {
      const logs = Array.from({ length: Math.floor(random() * 8) }, () => randomString(random, 20))
      assert.equal(logsByteLength(logs), jsonBytes(logs))
    }
  })
})

void describe('fitStringPrefix [#output-limit]', () => {
  void it('keeps the whole string when it fits exactly', () => {
    assert.equal(fitStringPrefix('abc', 5), 'abc')
    assert.equal(fitStringPrefix('€', 5), '€')
  })

  void it('returns the empty string when only the quotes fit, and undefined when they do not', () => {
    assert.equal(fitStringPrefix('abc', 2), '')
    assert.equal(fitStringPrefix('abc', 1), undefined)
    assert.equal(fitStringPrefix('', 0), undefined)
  })

  void it('never splits a surrogate pair', () => {
    assert.equal(fitStringPrefix('😀😀', 9), '😀')
    assert.equal(fitStringPrefix('😀😀', 7), '😀')
    assert.equal(fitStringPrefix('😀😀', 5), '')
    assert.equal(fitStringPrefix('a😀', 6), 'a')
  })

  void it('never splits an escape', () => {
    assert.equal(fitStringPrefix('a\nb', 4), 'a')
    assert.equal(fitStringPrefix('a\u0001b', 8), 'a')
    assert.equal(fitStringPrefix('a\u0001b', 9), 'a\u0001')
  })

  void it('returns the longest code-point prefix that fits, on random strings and limits', () => {
    const random = createRandom(4)
    for (let round = 0; round < 3_000; round++) {
      const text = randomString(random, 30)
      const maxBytes = Math.floor(random() * (jsonBytes(text) + 4))
      const prefix = fitStringPrefix(text, maxBytes)
      if (maxBytes < 2) {
        assert.equal(prefix, undefined)
        continue
      }
      assert.ok(prefix !== undefined && text.startsWith(prefix))
      assert.ok(jsonBytes(prefix) <= maxBytes)
      if (prefix.length < text.length) {
        const next = text.codePointAt(prefix.length) as number
        const nextUnits = next > 0xffff && prefix.length + 1 < text.length ? 2 : 1
        assert.ok(jsonBytes(text.slice(0, prefix.length + nextUnits)) > maxBytes, 'a longer prefix would fit')
        const last = prefix.charCodeAt(prefix.length - 1)
        const following = text.charCodeAt(prefix.length)
        assert.ok(!(last >= 0xd800 && last <= 0xdbff && following >= 0xdc00 && following <= 0xdfff), 'split a pair')
      }
    }
  })
})

void describe('fitLogsPrefix [#output-limit]', () => {
  void it('keeps every entry when they fit', () => {
    assert.deepEqual(fitLogsPrefix(['abc', 'def'], 13), ['abc', 'def'])
  })

  void it('cuts the first entry that does not fit and drops the rest', () => {
    assert.deepEqual(fitLogsPrefix(['abc', 'def', 'ghi'], 11), ['abc', 'd'])
    assert.deepEqual(fitLogsPrefix(['abc', '😀x'], 14), ['abc', '😀'])
    assert.deepEqual(fitLogsPrefix(['abc', '😀x'], 13), ['abc'])
  })

  void it('drops an entry cut to nothing', () => {
    assert.deepEqual(fitLogsPrefix(['abc', 'def'], 10), ['abc'])
    assert.deepEqual(fitLogsPrefix(['😀'], 5), [])
    assert.deepEqual(fitLogsPrefix(['abc'], 2), [])
  })

  void it('stays within the limit and keeps a prefix, on random logs and limits', () => {
    const random = createRandom(5)
    for (let round = 0; round < 2_000; round++) {
      const logs = Array.from({ length: Math.floor(random() * 6) }, () => randomString(random, 12))
      const maxBytes = 2 + Math.floor(random() * jsonBytes(logs))
      const kept = fitLogsPrefix(logs, maxBytes)
      assert.ok(jsonBytes(kept) <= maxBytes)
      kept.forEach((entry, index) => {
        const original = logs[index] as string
        if (index < kept.length - 1) assert.equal(entry, original)
        else assert.ok(entry === original || (original.startsWith(entry) && entry.length > 0))
      })
      const last = kept.length - 1
      const isLastCut = last >= 0 && kept[last] !== logs[last]
      if (kept.length === logs.length && !isLastCut) continue
      // One more code point, of the cut entry or of the next one, must not fit.
      const source = (isLastCut ? logs[last] : logs[kept.length]) as string
      const start = isLastCut ? (kept[last] as string).length : 0
      const step = String.fromCodePoint(source.codePointAt(start) ?? 0x61).length
      const longer = isLastCut
        ? [...kept.slice(0, last), source.slice(0, start + step)]
        : [...kept, source.slice(0, step)]
      assert.ok(jsonBytes(longer) > maxBytes, `${JSON.stringify(kept)} is not the longest prefix within ${maxBytes}`)
    }
  })
})

void describe('buildOutputLimitResult [#output-limit]', () => {
  void it('fails output-limit with no value and a message naming the cap', () => {
    const result = buildOutputLimitResult(['x'.repeat(5_000)], 1_000)
    assert.equal(result.error?.kind, 'output-limit')
    assert.ok(result.error.message.includes('1000 bytes'))
    assert.ok(result.error.message.includes('maxOutputBytes'))
    assert.equal(Object.hasOwn(result, 'value'), false)
    assert.equal(resultBytes(result), 1_000)
    assert.equal(outputLimitMessage(1_000), result.error.message)
  })

  void it('keeps the longest prefix of the logs that fits beside the message', () => {
    const logs = ['first line', 'second line', 'x'.repeat(1_000)]
    const result = buildOutputLimitResult(logs, 200)
    assert.deepEqual(result.logs.slice(0, 2), ['first line', 'second line'])
    assert.ok(resultBytes(result) <= 200)
    assert.ok(resultBytes(result) >= 199, 'the cut entry uses the room left')
  })

  void it('never exceeds the cap, even for tiny caps', () => {
    for (const cap of [4, 5, 6, 7, 10, 11, 20, 50, 100, 101, 150]) {
      for (const logs of [[], ['abc'], ['😀😀😀', 'more'], ['x'.repeat(500)]]) {
        const result = buildOutputLimitResult(logs, cap)
        assert.equal(result.error?.kind, 'output-limit')
        assert.ok(resultBytes(result) <= cap, `cap ${cap}: ${JSON.stringify(result)}`)
      }
    }
    assert.deepEqual(buildOutputLimitResult(['abc'], 4), { logs: [], error: { kind: 'output-limit', message: '' } })
    assert.equal(buildOutputLimitResult([], 10).error?.message, 'Over m')
  })

  // Issue 11 item 16: the full advice (107 bytes) ate a 96-byte cap and left one character of the log.
  void it('uses a short message under a small cap, so most of the first log line survives', () => {
    const line = 'x'.repeat(200)
    const result = buildOutputLimitResult([line], 96)
    assert.equal(result.error?.message, 'Over maxOutputBytes (96).')
    assert.equal(resultBytes(result), 96)
    assert.equal(result.logs[0], 'x'.repeat(96 - 2 - 2 - JSON.stringify('Over maxOutputBytes (96).').length))
    assert.ok((result.logs[0] ?? '').length >= 60)
  })

  void it('keeps the full advice once it takes at most half of the cap', () => {
    const full = 'Output exceeded 1000 bytes (maxOutputBytes). Print less and return only what you need next.'
    assert.equal(outputLimitMessage(1_000), full)
    assert.equal(outputLimitMessage(200), full.replace('1000', '200'))
    assert.equal(outputLimitMessage(150), 'Over maxOutputBytes (150).')
  })
})

// Issue 11 item 7b: 15 million empty lines cost the host 2.3 GB while the cap charged 3 bytes each.
void describe('OutputLedger: maxLogEntries', () => {
  void it('overflows on the entry past the limit, keeps the entries before it and names the limit', () => {
    const ledger = new OutputLedger(10_000, undefined, { maxLogEntries: 3 })
    assert.equal(ledger.appendLog(''), true)
    assert.equal(ledger.appendLog(''), true)
    assert.equal(ledger.appendLog('third'), true)
    assert.equal(ledger.appendLog(''), false)
    assert.equal(ledger.isOverflowed, true)
    const result = ledger.settleOverflow()
    assert.deepEqual(result.logs, ['', '', 'third'])
    assert.equal(result.error?.kind, 'output-limit')
    assert.equal(
      result.error.message,
      'Output exceeded 3 log entries (maxLogEntries). Print fewer, longer lines and return only what you need next.',
    )
    assert.equal(ledger.outputBytes, resultBytes(result))
  })

  void it('keeps the byte accounting exact under the limit', () => {
    const ledger = new OutputLedger(11, undefined, { maxLogEntries: 1 })
    assert.equal(ledger.appendLog('abc'), true)
    assert.deepEqual(ledger.settleValue('xy', jsonValueByteLength('xy')), { logs: ['abc'], value: 'xy' })
    assert.equal(ledger.outputBytes, 11)
  })

  void it('names maxLogEntries even when the value would have fitted', () => {
    const ledger = new OutputLedger(1_000, undefined, { maxLogEntries: 2 })
    for (let index = 0; index < 5; index++) ledger.appendLog(String(index))
    const result = ledger.settleValue(1, 1)
    assert.match(result.error?.message ?? '', /maxLogEntries/)
    assert.deepEqual(result.logs, ['0', '1'])
    assert.ok(resultBytes(result) <= 1_000)
  })
})

void describe('OutputLedger [#output-cap]', () => {
  void it("charges 7 bytes for returning '€' with no logs", () => {
    assert.deepEqual(new OutputLedger(7).settleValue('€', jsonValueByteLength('€')), { logs: [], value: '€' })
    const over = new OutputLedger(6).settleValue('€', jsonValueByteLength('€'))
    assert.equal(over.error?.kind, 'output-limit')
    assert.equal(Object.hasOwn(over, 'value'), false)
    assert.ok(resultBytes(over) <= 6)
  })

  void it("charges 11 bytes for one log 'abc' plus returning 'xy'", () => {
    const fits = new OutputLedger(11)
    assert.equal(fits.appendLog('abc'), true)
    assert.deepEqual(fits.settleValue('xy', jsonValueByteLength('xy')), { logs: ['abc'], value: 'xy' })
    const over = new OutputLedger(10)
    assert.equal(over.appendLog('abc'), true)
    const result = over.settleValue('xy', jsonValueByteLength('xy'))
    assert.equal(result.error?.kind, 'output-limit')
    assert.ok(resultBytes(result) <= 10)
  })

  void it('charges a failure message the same way as a value', () => {
    const fits = new OutputLedger(11)
    fits.appendLog('abc')
    assert.deepEqual(fits.settleFailure('exception', 'xy'), {
      logs: ['abc'],
      error: { kind: 'exception', message: 'xy' },
    })
    const over = new OutputLedger(10)
    over.appendLog('abc')
    const result = over.settleFailure('timeout', 'xy')
    assert.equal(result.error?.kind, 'output-limit')
    assert.ok(resultBytes(result) <= 10)
  })

  void it('leaves the value key absent when the program returned nothing', () => {
    const result = new OutputLedger(100).settleValue(undefined, 0)
    assert.deepEqual(result, { logs: [] })
    assert.equal(Object.hasOwn(result, 'value'), false)
    assert.deepEqual(new OutputLedger(100).settleValue(null, 4), { logs: [], value: null })
  })

  void it('fits logs alone exactly at the cap and overflows one byte past it', () => {
    const ledger = new OutputLedger(12)
    assert.equal(ledger.appendLog('abc'), true) // ["abc"] = 7
    assert.equal(ledger.appendLog('d'), true) // ["abc","d"] = 11
    assert.equal(ledger.logsBytes, 11)
    assert.equal(ledger.appendLog(''), false) // ["abc","d",""] = 14
    assert.equal(ledger.isOverflowed, true)
    assert.equal(ledger.appendLog('later'), false)
    assert.deepEqual(ledger.logs, ['abc', 'd', ''])
    const result = ledger.settleValue(undefined, 0)
    assert.equal(result.error?.kind, 'output-limit')
    assert.ok(resultBytes(result) <= 12)
  })

  void it('keeps the longest prefix of the logs on overflow', () => {
    const ledger = new OutputLedger(300)
    ledger.appendLog('kept line')
    ledger.appendLog('y'.repeat(1_000))
    const result = ledger.settleFailure('exception', 'boom')
    assert.equal(result.error?.kind, 'output-limit')
    assert.ok(result.error.message.includes('300 bytes'))
    assert.equal(result.logs[0], 'kept line')
    assert.ok((result.logs[1] ?? '').startsWith('yyy'))
    assert.ok(resultBytes(result) <= 300)
  })

  void it('fails exactly when logs plus value pass the cap, on random runs', () => {
    const random = createRandom(6)
    for (let round = 0; round < 2_000; round++) {
      const logs = Array.from({ length: Math.floor(random() * 5) }, () => randomString(random, 10))
      const value = random() < 0.2 ? undefined : randomValue(random, 3)
      const needed = jsonBytes(logs) + (value === undefined ? 0 : jsonBytes(value))
      const cap = Math.max(4, needed + Math.floor(random() * 7) - 3)
      const ledger = new OutputLedger(cap)
      for (const entry of logs) ledger.appendLog(entry)
      const result = ledger.settleValue(value, value === undefined ? 0 : jsonValueByteLength(value))
      if (needed <= cap) {
        assert.equal(result.error, undefined)
        assert.deepEqual(result.logs, logs)
      } else {
        assert.equal(result.error?.kind, 'output-limit')
      }
      assert.ok(resultBytes(result) <= cap)
    }
  })
})

void describe('OutputLedger: live logs', () => {
  void it('streams entries that no outcome can cut, holds back the rest, and delivers the final logs exactly once', () => {
    const seen: string[] = []
    const ledger = new OutputLedger(11, text => seen.push(text))
    ledger.appendLog('abc')
    assert.deepEqual(seen, [], "'abc' could still be cut by an output-limit message, so it waits")
    const result = ledger.settleValue('xy', 4)
    assert.deepEqual(result.logs, ['abc'])
    assert.deepEqual(seen, ['abc'])
    assert.equal(ledger.outputBytes, 11)
  })

  void it('streams at once under a roomy cap and hands over the cut entry on overflow', () => {
    const seen: string[] = []
    const ledger = new OutputLedger(400, text => seen.push(text))
    let index = 0
    while (ledger.appendLog(`line ${index}`)) index++
    assert.ok(seen.length > 0 && seen.length < index + 1)
    const result = ledger.settleOverflow()
    assert.equal(result.error?.kind, 'output-limit')
    assert.deepEqual(seen, result.logs)
    assert.equal(ledger.outputBytes, logsByteLength(result.logs) + jsonStringByteLength(result.error?.message ?? ''))
  })

  void it('ignores an observer that throws or rejects', () => {
    const ledger = new OutputLedger(1_000, () => {
      throw new Error('observer failed')
    })
    assert.equal(ledger.appendLog('fine'), true)
    const rejecting = new OutputLedger(
      1_000,
      () => Promise.reject(new Error('async observer failed')) as unknown as void,
    )
    assert.equal(rejecting.appendLog('fine'), true)
    assert.deepEqual(ledger.settleFailure('exception', 'boom').logs, ['fine'])
  })
})
