import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isNodeAtLeast, placeReference, REFERENCE_MIN_NODE } from './peer-reference.js'

describe("the reference peer's Node check", () => {
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

describe('where the reference runs', () => {
  it('runs in this process on a Node it supports, whatever BENCH_PEER_NODE says', () => {
    assert.deepEqual(placeReference('v22.23.3', '/old/node', 'v18.0.0'), { where: 'in-process' })
  })

  it('runs in a child of BENCH_PEER_NODE on an older Node when that binary is new enough', () => {
    assert.deepEqual(placeReference('v20.20.2', '/opt/node22/bin/node', 'v22.23.3'), {
      where: 'child',
      nodeBinary: '/opt/node22/bin/node',
    })
  })

  it('is skipped with a reason naming the variable when there is no usable binary', () => {
    const unset = placeReference('v20.20.2', undefined, undefined)
    assert.equal(unset.where, 'nowhere')
    assert.match(unset.where === 'nowhere' ? unset.reason : '', /BENCH_PEER_NODE/)
    const tooOld = placeReference('v20.20.2', '/usr/bin/node', 'v20.1.0')
    assert.match(tooOld.where === 'nowhere' ? tooOld.reason : '', /is Node v20\.1\.0/)
    const broken = placeReference('v20.20.2', '/missing/node', undefined)
    assert.match(broken.where === 'nowhere' ? broken.reason : '', /did not start/)
  })
})
