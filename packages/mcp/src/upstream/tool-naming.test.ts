import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '@code-runtime/code-mode'
import { assignToolMembers, type ServerToolName } from './tool-naming.js'

describe('assignToolMembers', () => {
  it('joins server and tool into one member', () => {
    assert.deepEqual(
      assignToolMembers([
        { server: 'files', tool: 'read_text_file' },
        { server: 'memory', tool: 'create_entities' },
        { server: 'everything', tool: 'get-tiny-image' },
        { server: 'my server', tool: 'délai' },
      ]),
      ['files_read_text_file', 'memory_create_entities', 'everything_get_tiny_image', 'my_server_delai'],
    )
  })

  it('keeps every member distinct, whatever the names, and the same whatever the order', () => {
    const pairs: ServerToolName[] = [
      { server: 'a', tool: 'b_c' },
      { server: 'a_b', tool: 'c' },
      { server: 'a-b', tool: 'c' },
      { server: 'a', tool: 'b_c_2' },
      { server: '文件', tool: 'read' },
      { server: '!!', tool: '??' },
    ]
    const members = assignToolMembers(pairs)
    assert.equal(new Set(members).size, pairs.length)
    const byPair = new Map(pairs.map((pair, index) => [`${pair.server}/${pair.tool}`, members[index]]))
    // The natural name of a pair nobody competes with is never taken by a suffixed one.
    assert.equal(byPair.get('a/b_c_2'), 'a_b_c_2')
    for (const order of [[...pairs].reverse(), [...pairs.slice(2), ...pairs.slice(0, 2)]]) {
      const again = assignToolMembers(order)
      order.forEach((pair, index) => assert.equal(again[index], byPair.get(`${pair.server}/${pair.tool}`)))
    }
  })

  it('gives members that Code Mode keeps as they are', () => {
    const members = assignToolMembers([
      { server: 'x', tool: 'constructor' },
      { server: 'then', tool: '' },
      { server: '__proto__', tool: 'y' },
      { server: '1st', tool: 'go' },
    ])
    const { memberNames } = emitSdk(members.map(member => ({ name: member, inputSchema: { type: 'object' } })))
    for (const member of members) assert.equal(memberNames.get(member), member)
  })
})
