import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { SignedHandles } from './signed-handles.js'

const ADDRESS = 'runner-7~Qk9uZ0tleQ~anchor-1'

describe('SignedHandles', () => {
  const handles = new SignedHandles(randomBytes(32))

  it('gives back the address of a handle it sealed, for the principal it sealed it for', () => {
    const handle = handles.seal(ADDRESS, 'alice')
    assert.match(handle, /^c[A-Za-z0-9_-]+$/)
    assert.equal(handles.open(handle, 'alice'), ADDRESS)
  })

  it('names nothing for another principal, another key, or a handle changed anywhere', () => {
    const handle = handles.seal(ADDRESS, 'alice')
    assert.equal(handles.open(handle, 'bob'), undefined)
    assert.equal(new SignedHandles(randomBytes(32)).open(handle, 'alice'), undefined)
    for (let index = 0; index < handle.length; index++) {
      const changed = handle.slice(0, index) + (handle[index] === 'A' ? 'B' : 'A') + handle.slice(index + 1)
      assert.equal(handles.open(changed, 'alice'), undefined, `changed at ${index}`)
    }
    // Cut short, lengthened, empty, or of characters base64url does not have.
    for (const bad of ['', 'c', handle.slice(0, 23), `${handle}A`, `${handle.slice(0, -1)}.`, `x${handle.slice(1)}`]) {
      assert.equal(handles.open(bad, 'alice'), undefined, bad)
    }
  })
})
