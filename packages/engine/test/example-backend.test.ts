// The README's "write your own backend" example is a working backend: the conformance suite
// runs against it, and the README shows its files exactly as they are.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { startCodeRuntime } from '@code-runtime/core'
import { runConformanceSuite } from '@code-runtime/core/conformance'
import { MinimalCodeRuntime } from '../examples/minimal-runtime.js'

runConformanceSuite({
  name: 'minimal example backend',
  isolation: 'worker-thread',
  start: config => startCodeRuntime(MinimalCodeRuntime, config),
})

describe('the README section "Write your own backend"', () => {
  it('quotes every file of the example, each exactly', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const section = readme.slice(
      readme.indexOf('## Write your own backend'),
      readme.indexOf('\n## ', readme.indexOf('## Write your own backend') + 1),
    )
    const quoted = [...section.matchAll(/```ts\n(\/\/ examples\/([\w-]+\.ts)[^\n]*\n[\s\S]*?)```/g)]
    assert.deepEqual(
      quoted.map(match => match[2]),
      ['minimal-entry.ts', 'minimal-substrate.ts', 'minimal-runtime.ts'],
    )
    for (const [, text, file] of quoted) {
      assert.equal(
        text,
        readFileSync(new URL(`../../examples/${String(file)}`, import.meta.url), 'utf8'),
        `${String(file)} as quoted`,
      )
    }
  })
})
