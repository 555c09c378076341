import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileBundle } from './bundle-code-cache.js'

/**
 * A bundle source no other test compiled: V8 keeps recent compiles of this isolate and would
 * answer from those without looking at the cache offered.
 */
function uniqueSource(): string {
  return `module.exports.answer = () => 6 * 7 // ${Math.random()}`
}

/** Runs a compiled bundle as CommonJS and returns its exports. */
function exportsOf(compiled: ReturnType<typeof compileBundle>): { answer(): number } {
  const module = { exports: {} as { answer(): number } }
  const run = compiled.script.runInThisContext() as (exports: unknown, require: unknown, module: unknown) => void
  run(module.exports, undefined, module)
  return module.exports
}

describe('compileBundle', () => {
  it('accepts a code cache made from the same source, and runs the bundle', () => {
    const SOURCE = uniqueSource()
    const first = compileBundle('/bundle.cjs', SOURCE, undefined)
    assert.equal(exportsOf(first).answer(), 42)
    const cached = compileBundle('/bundle.cjs', SOURCE, first.script.createCachedData())
    assert.equal(cached.cacheRejected, false)
    assert.equal(exportsOf(cached).answer(), 42)
  })

  it('falls back to a plain compile when the cache is for another source or is garbage', () => {
    const other = compileBundle('/bundle.cjs', 'module.exports.answer = () => 0', undefined).script.createCachedData()
    for (const cache of [other, Buffer.from('not a code cache')]) {
      const compiled = compileBundle('/bundle.cjs', uniqueSource(), cache)
      assert.equal(compiled.cacheRejected, true)
      assert.equal(exportsOf(compiled).answer(), 42)
    }
  })
})
