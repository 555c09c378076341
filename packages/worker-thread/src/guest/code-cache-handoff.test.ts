import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MessageChannel } from 'node:worker_threads'
import { readCodeCacheHandoff, readProcessCodeCaches } from './code-cache-handoff.js'

const bytes = (length: number): Uint8Array => new Uint8Array(length).fill(7)

describe('readProcessCodeCaches', () => {
  it('takes a bundle cache and a map of in-context script caches', () => {
    const caches = readProcessCodeCaches({ bundle: bytes(10), contexts: new Map([['code-runtime:guards', bytes(5)]]) })
    assert.equal(caches?.bundle.byteLength, 10)
    assert.deepEqual([...(caches?.contexts.keys() ?? [])], ['code-runtime:guards'])
  })

  it('refuses anything else whole, never throwing', () => {
    const throwing = {
      get bundle(): never {
        throw new Error('no')
      },
    }
    for (const offer of [
      undefined,
      null,
      'cache',
      [],
      {},
      throwing,
      { bundle: bytes(10) },
      { bundle: 'text', contexts: new Map() },
      { bundle: bytes(0), contexts: new Map() },
      { bundle: bytes(17 * 1024 * 1024), contexts: new Map() },
      { bundle: bytes(10), contexts: { a: bytes(1) } },
      { bundle: bytes(10), contexts: new Map([[1, bytes(1)]]) },
      { bundle: bytes(10), contexts: new Map([['a', 'b']]) },
      { bundle: bytes(10), contexts: new Map([['x'.repeat(300), bytes(1)]]) },
      { bundle: bytes(10), contexts: new Map(Array.from({ length: 300 }, (_, index) => [`s${index}`, bytes(1)])) },
    ]) {
      assert.equal(safeRead(offer), undefined, String(offer))
    }
  })
})

function safeRead(offer: unknown): unknown {
  try {
    return readProcessCodeCaches(offer)
  } catch (error) {
    return error
  }
}

describe('readCodeCacheHandoff', () => {
  it("reads the caches and the port of a worker's data, and nothing from anything else", () => {
    const { port1, port2 } = new MessageChannel()
    try {
      const handoff = readCodeCacheHandoff({
        maxArrayBufferBytes: 1,
        codeCaches: { bundle: bytes(3), contexts: new Map() },
        codeCachePort: port1,
      })
      assert.equal(handoff.caches?.bundle.byteLength, 3)
      assert.equal(handoff.port, port1)
      assert.deepEqual(readCodeCacheHandoff({ codeCaches: 'x', codeCachePort: {} }), {})
      assert.deepEqual(readCodeCacheHandoff(undefined), {})
    } finally {
      port1.close()
      port2.close()
    }
  })
})
