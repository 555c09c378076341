import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { benchProgram, measureTypeCheck, renderTypeCheckSection } from './type-check.js'

describe('bench type check section', () => {
  it('measures a 60-line program that passes the check clean, so the warm figure is the common case', async () => {
    assert.equal(benchProgram(0).split('\n').length - 1, 60)
    const measurement = await measureTypeCheck(2)
    assert.equal(measurement.tools, 109)
    assert.equal(measurement.isClean, true)
    assert.equal(measurement.warm.count, 2)
    assert.ok(measurement.firstMs > 0 && measurement.warm.median > 0)
    assert.match(
      renderTypeCheckSection(measurement).join('\n'),
      /^## Type check\n[\s\S]*\| wall \| [\d.]+ ms \(goal ≤ 30: (met|not met)\)/,
    )
  })
})
