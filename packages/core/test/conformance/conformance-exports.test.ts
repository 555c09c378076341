/**
 * Guards the surface of `@code-runtime/core/conformance`: backends code against exactly this
 * list, so a change to it must be deliberate.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

void describe('@code-runtime/core/conformance', () => {
  void it('exports runConformanceSuite and describeHostMemory and nothing else at runtime', async () => {
    const entry = await import('@code-runtime/core/conformance')
    assert.deepEqual(Object.keys(entry).sort(), ['describeHostMemory', 'runConformanceSuite'])
    assert.equal(typeof entry.describeHostMemory, 'function')
    assert.equal(typeof entry.runConformanceSuite, 'function')
  })
})
