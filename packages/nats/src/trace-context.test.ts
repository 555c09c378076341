import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { trace } from '@opentelemetry/api'
import { contextOf, decodeTraceContext } from './trace-context.js'

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

describe('trace context on the wire', () => {
  it('keeps a well-formed traceparent and tracestate, and runs under it as a remote parent', () => {
    const wire = decodeTraceContext({ traceparent: TRACEPARENT, tracestate: 'vendor=1' })
    assert.deepEqual(wire, { traceparent: TRACEPARENT, tracestate: 'vendor=1' })
    const parent = trace.getSpanContext(contextOf(wire))
    assert.equal(parent?.traceId, '0af7651916cd43dd8448eb211c80319c')
    assert.equal(parent?.spanId, 'b7ad6b7169203331')
    assert.equal(parent?.isRemote, true)
    assert.equal(parent?.traceState?.get('vendor'), '1')
  })

  it('drops what a forged message may carry: other versions, bad hex, zero ids, objects, a flood of tracestate', () => {
    for (const traceparent of [
      '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
      { toString: () => TRACEPARENT },
      42,
    ]) {
      const wire = decodeTraceContext({ traceparent })
      assert.equal(trace.getSpanContext(contextOf(wire)), undefined, `refused: ${String(traceparent)}`)
    }
    assert.equal(decodeTraceContext(null), undefined)
    assert.equal(decodeTraceContext('00-x'), undefined)
    assert.deepEqual(decodeTraceContext({ traceparent: TRACEPARENT, tracestate: 'a=1'.repeat(1_000) }), {
      traceparent: TRACEPARENT,
    })
    assert.deepEqual(decodeTraceContext({ traceparent: TRACEPARENT, tracestate: 'a=\n1' }), {
      traceparent: TRACEPARENT,
    })
  })
})
