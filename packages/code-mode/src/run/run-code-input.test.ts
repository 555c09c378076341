import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { listRunCode, safeParseRunCodeInput } from '@code-runtime/code-mode'

describe('safeParseRunCodeInput', () => {
  it('decodes code and description, reset false when absent', () => {
    assert.deepEqual(safeParseRunCodeInput({ code: 'return 1', description: 'one' }), {
      ok: true,
      value: { code: 'return 1', description: 'one', reset: false },
    })
    assert.deepEqual(safeParseRunCodeInput({ code: 'x', description: '', reset: true }), {
      ok: true,
      value: { code: 'x', description: '', reset: true },
    })
  })

  it('names the field the model got wrong, in one sentence', () => {
    const errorOf = (input: unknown): string => {
      const read = safeParseRunCodeInput(input)
      assert.equal(read.ok, false)
      return read.ok ? '' : read.error
    }
    assert.match(errorOf(null), /takes an object/)
    assert.match(errorOf('return 1'), /takes an object/)
    assert.match(errorOf({}), /needs `code`/)
    assert.match(errorOf({ code: '   ', description: 'blank' }), /needs `code`/)
    assert.match(errorOf({ code: 'return 1' }), /needs `description`/)
    assert.match(errorOf({ code: 'return 1', description: 'd', reset: 'yes' }), /`reset` as true or false/)
  })
})

describe('safeParseRunCodeInput with session handles', () => {
  it('reads session only where sessions are named by handles', () => {
    const input = { code: 'return 1', description: 'one', session: 's_abc-123' }
    assert.deepEqual(safeParseRunCodeInput(input), {
      ok: true,
      value: { code: 'return 1', description: 'one', reset: false },
    })
    assert.deepEqual(safeParseRunCodeInput(input, { sessionHandles: true }), {
      ok: true,
      value: { code: 'return 1', description: 'one', reset: false, session: 's_abc-123' },
    })
    assert.deepEqual(safeParseRunCodeInput({ code: 'x', description: 'd' }, { sessionHandles: true }), {
      ok: true,
      value: { code: 'x', description: 'd', reset: false },
    })
  })

  it('refuses a session that is not an id a server hands out', () => {
    for (const session of [1, '', 'a b', 'x'.repeat(301), '../other', 'é', null]) {
      const read = safeParseRunCodeInput({ code: 'x', description: 'd', session }, { sessionHandles: true })
      assert.equal(read.ok, false, JSON.stringify(session))
      assert.match(read.ok ? '' : read.error, /`session` as the session id an earlier result gave/)
    }
  })
})

describe('listRunCode', () => {
  it('lists session beside reset where sessions are named by handles', () => {
    const handles = listRunCode('d', { session: 'handle' })
    assert.deepEqual(Object.keys(handles.inputSchema.properties as object), ['code', 'description', 'reset', 'session'])
    assert.deepEqual(handles.inputSchema.required, ['code', 'description'])
    assert.ok(Object.isFrozen(handles.inputSchema))
  })

  it('lists reset only for a session, over the same two required fields', () => {
    const plain = listRunCode('d', { session: false })
    const bound = listRunCode('d', { session: true })
    assert.equal(plain.name, 'run_code')
    assert.deepEqual(Object.keys(plain.inputSchema.properties as object), ['code', 'description'])
    assert.deepEqual(Object.keys(bound.inputSchema.properties as object), ['code', 'description', 'reset'])
    assert.deepEqual(bound.inputSchema.required, ['code', 'description'])
    assert.ok(Object.isFrozen(plain.inputSchema) && Object.isFrozen(bound.inputSchema))
  })
})
