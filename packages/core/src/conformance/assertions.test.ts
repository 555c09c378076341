import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { assertNoHostPaths, installPrefixOf } from './assertions.js'

void describe('the host-path fragments of the conformance suite', () => {
  void it('takes the first two folders of a path as the install prefix, and none of a shallow or relative one', () => {
    assert.equal(installPrefixOf('/home/ada/src/code-runtime/packages/core'), '/home/ada/')
    assert.equal(installPrefixOf('/srv/app'), '/srv/app/')
    assert.equal(installPrefixOf('/srv'), undefined)
    assert.equal(installPrefixOf('relative/path/here'), undefined)
  })

  void it("refuses text naming this machine's own install folder, wherever the checkout is", () => {
    const prefix = installPrefixOf(fileURLToPath(import.meta.url)) as string
    assert.throws(() => assertNoHostPaths(`at run (${prefix}somewhere/else.js:1:1)`, 'a stack'), /host path fragment/)
    assertNoHostPaths('at program.ts:3:7', 'a program frame')
  })
})
