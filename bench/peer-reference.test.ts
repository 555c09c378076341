import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isNodeAtLeast, REFERENCE_MIN_NODE } from './peer-reference.js'

describe('the reference peer\'s Node check', () => {
  it('accepts the Node the reference needs and newer ones', () => {
    assert.equal(isNodeAtLeast('v22.13.0', REFERENCE_MIN_NODE), true)
    assert.equal(isNodeAtLeast('v22.20.1', REFERENCE_MIN_NODE), true)
    assert.equal(isNodeAtLeast('v24.1.0', REFERENCE_MIN_NODE), true)
  })

  it('refuses an older minor or major, so the column is skipped with a note instead of failing every run', () => {
    assert.equal(isNodeAtLeast('v22.12.9', REFERENCE_MIN_NODE), false)
    assert.equal(isNodeAtLeast('v20.20.2', REFERENCE_MIN_NODE), false)
  })
})
