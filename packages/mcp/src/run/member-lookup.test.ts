import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { closestMembers, editDistance, type MemberNames } from './member-lookup.js'

/** The filesystem server's tools under the server name `files`, and a few of the memory server's. */
const CATALOG: MemberNames = {
  tools: [
    ...[
      'create_directory',
      'directory_tree',
      'edit_file',
      'get_file_info',
      'list_allowed_directories',
      'list_directory',
      'list_directory_with_sizes',
      'move_file',
      'read_file',
      'read_media_file',
      'read_multiple_files',
      'read_text_file',
      'search_files',
      'write_file',
    ].map(toolName => ({ member: `files_${toolName}`, toolName })),
    ...[
      'add_observations',
      'create_entities',
      'create_relations',
      'delete_entities',
      'open_nodes',
      'read_graph',
      'search_nodes',
    ].map(toolName => ({ member: `memory_${toolName}`, toolName })),
    { member: 'everything_get_sum', toolName: 'get-sum' },
  ],
}

describe('editDistance', () => {
  it('counts insertions, deletions and replacements', () => {
    assert.equal(editDistance('', ''), 0)
    assert.equal(editDistance('abc', ''), 3)
    assert.equal(editDistance('kitten', 'sitting'), 3)
    assert.equal(editDistance('read_txt_file', 'read_text_file'), 1)
  })
})

describe('closestMembers', () => {
  it('puts the member of a tool named without its server first', () => {
    const [first, ...next] = closestMembers(CATALOG, 'read_text_file', 3)
    assert.equal(first, 'files_read_text_file')
    assert.deepEqual(next.sort(), ['files_read_file', 'files_read_media_file'])
    assert.equal(closestMembers(CATALOG, 'get-sum', 1)[0], 'everything_get_sum')
    assert.equal(closestMembers(CATALOG, 'get_sum', 1)[0], 'everything_get_sum')
  })

  it('ranks near misses by edit distance, before members that merely come first alphabetically', () => {
    assert.equal(closestMembers(CATALOG, 'memory_create_entity', 1)[0], 'memory_create_entities')
    assert.equal(closestMembers(CATALOG, 'files_read_txt_file', 1)[0], 'files_read_text_file')
    assert.equal(closestMembers(CATALOG, 'Files_Write_File', 1)[0], 'files_write_file')
  })

  it('ranks members containing the name before the rest', () => {
    assert.deepEqual(closestMembers(CATALOG, 'entities', 2), ['memory_create_entities', 'memory_delete_entities'])
  })

  it('gives at most the number asked for, and stays quick for an absurdly long name', () => {
    assert.equal(closestMembers(CATALOG, 'x', 5).length, 5)
    const started = performance.now()
    assert.equal(closestMembers(CATALOG, 'y'.repeat(1_000_000), 2).length, 2)
    // Bounded work (names compared on 120 characters); without the bound this takes minutes.
    assert.ok(performance.now() - started < 10_000)
  })
})
