import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { renderTracingSection } from './tracing.js'

describe('renderTracingSection', () => {
  it('reports the goals against the no-SDK column', () => {
    const column = { trivialMs: 5, callsMs: 25, spanCodePerRunUs: 1.5, spanCodePerCallUs: 0.25 }
    const text = renderTracingSection({ columns: [{ sdk: 'none', ...column }] })
    assert.match(text, /\| no SDK registered \| 5\.00 ms \| 100\.0 µs \| 1\.50 µs \| 0\.25 µs \|/)
    assert.match(
      text,
      /0\.030 % of the median trivial run \(goal < 1 %: met\) and 0\.25 µs per call \(goal < 2 µs: met\)/,
    )
    const slow = renderTracingSection({ columns: [{ sdk: 'none', ...column, spanCodePerCallUs: 3 }] })
    assert.match(slow, /3\.00 µs per call \(goal < 2 µs: not met\)/)
  })

  it('says why when nothing was measured', () => {
    assert.equal(renderTracingSection({ failed: 'no worker' }), '## Tracing\n\nNot measured: no worker\n')
  })
})
