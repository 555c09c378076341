import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { encodeFrame, FRAME_HEADER_BYTES, FrameDecoder, RAW_TEXT_MARKER, RAW_TEXT_MIN_CHARS } from './wire-framing.js'

const CAP = 1024

function frameOf(message: unknown): Buffer {
  const encoded = encodeFrame(message, CAP)
  assert.ok(encoded.ok)
  return encoded.value
}

function rawFrame(body: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES)
  header.writeUInt32BE(body.length, 0)
  return Buffer.concat([header, body])
}

describe('encodeFrame', () => {
  it('writes a big-endian length and the UTF-8 JSON', () => {
    const frame = frameOf({ kind: 'log-line', text: '€' })
    const json = '{"kind":"log-line","text":"€"}'
    assert.equal(frame.readUInt32BE(0), Buffer.byteLength(json))
    assert.equal(frame.subarray(FRAME_HEADER_BYTES).toString('utf8'), json)
  })

  it('reports the byte length of a message over the cap instead of encoding it', () => {
    const text = '€'.repeat(400)
    const encoded = encodeFrame({ text }, CAP)
    assert.deepEqual(encoded, { ok: false, error: { byteLength: Buffer.byteLength(JSON.stringify({ text })) } })
  })

  it('accepts a message of exactly the cap', () => {
    const text = 'x'.repeat(CAP - '{"t":""}'.length)
    const encoded = encodeFrame({ t: text }, CAP)
    assert.ok(encoded.ok)
    assert.equal(encoded.value.length, FRAME_HEADER_BYTES + CAP)
  })

  it('reports a message that cannot be serialized instead of throwing', () => {
    const cycle: Record<string, unknown> = {}
    cycle['self'] = cycle
    assert.deepEqual(encodeFrame(cycle, CAP), { ok: false, error: { byteLength: Number.POSITIVE_INFINITY } })
  })
})

describe('FrameDecoder', () => {
  it('decodes several frames arriving in one chunk', () => {
    const decoder = new FrameDecoder(CAP)
    const decoded = decoder.push(Buffer.concat([frameOf({ a: 1 }), frameOf([2]), frameOf('three')]))
    assert.deepEqual(decoded, { ok: true, value: [{ a: 1 }, [2], 'three'] })
    assert.equal(decoder.pendingBytes, 0)
  })

  it('decodes a frame split at every byte, header included', () => {
    const frame = frameOf({ kind: 'log-line', text: 'split €' })
    const decoder = new FrameDecoder(CAP)
    const messages: unknown[] = []
    for (let index = 0; index < frame.length; index++) {
      const decoded = decoder.push(frame.subarray(index, index + 1))
      assert.ok(decoded.ok)
      messages.push(...decoded.value)
    }
    assert.deepEqual(messages, [{ kind: 'log-line', text: 'split €' }])
  })

  it('keeps a partial frame until the rest arrives', () => {
    const first = frameOf({ n: 1 })
    const second = frameOf({ n: 2 })
    const decoder = new FrameDecoder(CAP)
    const joined = Buffer.concat([first, second])
    const cut = first.length + 3
    assert.deepEqual(decoder.push(joined.subarray(0, cut)), { ok: true, value: [{ n: 1 }] })
    assert.equal(decoder.pendingBytes, 3)
    assert.deepEqual(decoder.push(joined.subarray(cut)), { ok: true, value: [{ n: 2 }] })
  })

  it('refuses a header over the cap before the body arrives', () => {
    const decoder = new FrameDecoder(CAP)
    const header = Buffer.alloc(FRAME_HEADER_BYTES)
    header.writeUInt32BE(CAP + 1, 0)
    const decoded = decoder.push(header)
    assert.equal(decoded.ok, false)
    assert.match(decoded.ok ? '' : decoded.error, /1025 bytes, over the limit of 1024/)
  })

  it('refuses a 4 GiB header without buffering', () => {
    const decoder = new FrameDecoder(CAP)
    const decoded = decoder.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7b]))
    assert.equal(decoded.ok, false)
    assert.equal(decoder.pendingBytes, 0)
  })

  it('refuses a body that is not UTF-8', () => {
    const decoded = new FrameDecoder(CAP).push(rawFrame(Buffer.from([0x22, 0xff, 0xfe, 0x22])))
    assert.deepEqual(decoded, { ok: false, error: 'a message that is not UTF-8' })
  })

  it('refuses a body that is not JSON', () => {
    const decoded = new FrameDecoder(CAP).push(rawFrame(Buffer.from('{"kind": ')))
    assert.deepEqual(decoded, { ok: false, error: 'a message that is not JSON' })
  })

  it('never throws, even for JSON nested 200 000 levels deep', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000)
    const decoded = new FrameDecoder(1_000_000).push(rawFrame(Buffer.from(deep)))
    assert.equal(typeof decoded.ok, 'boolean')
  })

  it('stays broken after a refusal, even for a good frame', () => {
    const decoder = new FrameDecoder(CAP)
    assert.equal(decoder.push(rawFrame(Buffer.from('garbage'))).ok, false)
    assert.equal(decoder.push(frameOf({ fine: true })).ok, false)
  })

  it('keeps a literal __proto__ key as an own property', () => {
    const decoded = new FrameDecoder(CAP).push(rawFrame(Buffer.from('{"__proto__":{"polluted":true}}')))
    assert.ok(decoded.ok)
    const message = decoded.value[0] as Record<string, unknown>
    assert.ok(Object.hasOwn(message, '__proto__'))
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined)
  })

  it('decodes an empty chunk as no messages', () => {
    assert.deepEqual(new FrameDecoder(CAP).push(Buffer.alloc(0)), { ok: true, value: [] })
  })
})

describe('raw-text frames', () => {
  const BIG_CAP = 1024 * 1024
  // Quotes, backslashes, multi-byte characters and a leading byte-order mark: everything the
  // JSON framing would have escaped, and the bytes a text decoder could drop.
  const valueJson = '\uFEFF' + JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ i, text: 'q"\\€😀' })))

  function rawTextBody(envelope: string, text: string): Buffer {
    const prefix = Buffer.alloc(5)
    prefix[0] = RAW_TEXT_MARKER
    prefix.writeUInt32BE(Buffer.byteLength(envelope), 1)
    return Buffer.concat([prefix, Buffer.from(envelope), Buffer.from(text)])
  }

  it('carries a long JSON text raw and restores the message exactly, even split at every chunk size', () => {
    assert.ok(valueJson.length >= RAW_TEXT_MIN_CHARS)
    const message = { kind: 'call-result', id: 7, ok: true, valueJson }
    const encoded = encodeFrame(message, BIG_CAP)
    assert.ok(encoded.ok)
    assert.equal(encoded.value[FRAME_HEADER_BYTES], RAW_TEXT_MARKER)
    // Smaller than the same message framed as JSON, which escapes every quote of the text.
    assert.ok(encoded.value.length < Buffer.byteLength(JSON.stringify(message)))
    for (const size of [1, 4099, encoded.value.length]) {
      const decoder = new FrameDecoder(BIG_CAP)
      const messages: unknown[] = []
      for (let offset = 0; offset < encoded.value.length; offset += size) {
        const decoded = decoder.push(encoded.value.subarray(offset, offset + size))
        assert.ok(decoded.ok)
        messages.push(...decoded.value)
      }
      assert.deepEqual(messages, [message])
    }
  })

  it('keeps short texts inside the JSON', () => {
    const encoded = encodeFrame({ kind: 'run-end', outcome: 'value', valueJson: '[1]' }, CAP)
    assert.ok(encoded.ok)
    assert.equal(
      encoded.value.subarray(FRAME_HEADER_BYTES).toString('utf8'),
      '{"kind":"run-end","outcome":"value","valueJson":"[1]"}',
    )
  })

  it('reports the byte length of a raw-text frame over the cap instead of encoding it', () => {
    const encoded = encodeFrame(
      { kind: 'call-request', id: 1, namespace: 0, member: 'm', argsJson: 'x'.repeat(RAW_TEXT_MIN_CHARS) },
      RAW_TEXT_MIN_CHARS,
    )
    assert.equal(encoded.ok, false)
    assert.ok(!encoded.ok && encoded.error.byteLength > RAW_TEXT_MIN_CHARS)
  })

  it('refuses a forged raw-text frame whose envelope does not fit or is not [field, object]', () => {
    const envelopePastEnd = Buffer.alloc(9)
    envelopePastEnd.writeUInt32BE(1000, 1)
    const forged: [Buffer, string][] = [
      [Buffer.from([RAW_TEXT_MARKER, 0, 0]), 'a malformed raw-text frame'],
      [envelopePastEnd, 'a malformed raw-text frame'],
      [rawTextBody('{"valueJson":1}', 'x'), 'a malformed raw-text frame'],
      [rawTextBody('[1,{}]', 'x'), 'a malformed raw-text frame'],
      [rawTextBody('["valueJson",[]]', 'x'), 'a malformed raw-text frame'],
      [rawTextBody('["valueJson",{"valueJson":"shadow"}]', 'x'), 'a malformed raw-text frame'],
      [rawTextBody('["valueJson",{}', 'x'), 'a malformed raw-text frame'],
      [Buffer.concat([rawTextBody('["valueJson",{}]', ''), Buffer.from([0xff, 0xfe])]), 'a message that is not UTF-8'],
    ]
    for (const [body, problem] of forged) {
      assert.deepEqual(new FrameDecoder(CAP).push(rawFrame(body)), { ok: false, error: problem })
    }
  })

  it('keeps a raw field named __proto__ as an own property', () => {
    const decoded = new FrameDecoder(CAP).push(rawFrame(rawTextBody('["__proto__",{"kind":"x"}]', '{"polluted":true}')))
    assert.ok(decoded.ok)
    const [message] = decoded.value as [Record<string, unknown>]
    assert.equal(Object.getPrototypeOf(message), Object.prototype)
    assert.equal(Object.getOwnPropertyDescriptor(message, '__proto__')?.value, '{"polluted":true}')
  })
})
