// Property-based checks of the wire framing: random and deep messages cut
// at random points come back whole and in order; random and forged bytes never make the decoder
// throw. Seeded and stopped after a few seconds per property; FUZZ_SEED=<seed> reproduces one.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { stringifyJsonValue, type CodeJsonValue } from '@code-runtime/core/json'
import { encodeFrame, FRAME_HEADER_BYTES, FrameDecoder } from './wire-framing.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201)
const TIME_LIMIT_MS = 3_000
const CAP = 1024 * 1024

function check<T>(property: fc.IProperty<T>, numRuns = 1_000): void {
  fc.assert(property, { seed: SEED, numRuns, interruptAfterTimeLimit: TIME_LIMIT_MS })
}

const anyString = fc.oneof(
  fc.string16bits(),
  fc.fullUnicodeString(),
  fc.constantFrom('', '\ud800', '\udc00', '\u2028', '"\\'),
)

const jsonValue: fc.Arbitrary<CodeJsonValue> = fc.letrec<{ value: CodeJsonValue }>(tie => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter(number => !Object.is(number, -0)),
    anyString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 5 }),
  ),
})).value

/** Sometimes nested far past the native serializer's stack (the frame must still encode). */
const message = fc
  .tuple(jsonValue, fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })))
  .map(([inner, depth]) => {
    let value: CodeJsonValue = inner
    for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value }
    return { kind: 'log-line', text: 'x', value } as CodeJsonValue
  })

/** Cuts `bytes` at the given fractions of its length. */
function cut(bytes: Buffer, fractions: readonly number[]): Buffer[] {
  const points = [...new Set(fractions.map(fraction => Math.floor(fraction * bytes.length)))].sort((a, b) => a - b)
  const pieces: Buffer[] = []
  let start = 0
  for (const point of points) {
    pieces.push(bytes.subarray(start, point))
    start = point
  }
  pieces.push(bytes.subarray(start))
  return pieces
}

void describe('fuzz: wire framing', () => {
  void it('delivers every message whole and in order, however the bytes are cut', () => {
    check(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
        (messages, fractions) => {
          const frames = messages.map(each => {
            const encoded = encodeFrame(each, CAP)
            assert.ok(encoded.ok, 'a message under the cap encodes at any depth')
            return encoded.value
          })
          const decoder = new FrameDecoder(CAP)
          const received: unknown[] = []
          for (const piece of cut(Buffer.concat(frames), fractions)) {
            const decoded = decoder.push(piece)
            assert.ok(decoded.ok, !decoded.ok ? decoded.error : '')
            received.push(...decoded.value)
          }
          assert.equal(decoder.pendingBytes, 0)
          assert.deepEqual(
            received.map(each => stringifyJsonValue(each as CodeJsonValue)),
            messages.map(each => stringifyJsonValue(each)),
          )
        },
      ),
      300,
    )
  })

  void it('never throws on random bytes, and stays refused once it refused', () => {
    check(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 64 }),
        (chunks, maxFrameBytes) => {
          const decoder = new FrameDecoder(maxFrameBytes)
          let refused: string | undefined
          for (const chunk of chunks) {
            const decoded = decoder.push(Buffer.from(chunk))
            if (refused !== undefined) assert.deepEqual(decoded, { ok: false, error: refused })
            else if (!decoded.ok) refused = decoded.error
            assert.ok(decoder.pendingBytes <= FRAME_HEADER_BYTES + maxFrameBytes)
          }
        },
      ),
    )
  })

  void it('refuses forged frames (bad UTF-8, not JSON, over the cap) with a problem, never a throw', () => {
    check(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (body, claimed) => {
        const header = Buffer.alloc(FRAME_HEADER_BYTES)
        header.writeUInt32BE(claimed, 0)
        const decoder = new FrameDecoder(64)
        const decoded = decoder.push(Buffer.concat([header, Buffer.from(body)]))
        if (claimed > 64) assert.equal(decoded.ok, false, 'a header over the cap is refused before any body arrives')
        if (decoded.ok) assert.ok(decoded.value.length <= 1)
      }),
    )
  })
})
