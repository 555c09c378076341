import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeModeError } from '../errors.js'
import { assignMemberNames, preferredMemberName } from './tool-names.js'

/** Every permutation-like reordering we check: given, reversed, and rotated by each offset. */
function reorderings<T>(items: readonly T[]): T[][] {
  const orders = [[...items], [...items].reverse()]
  for (let offset = 1; offset < items.length; offset++) orders.push([...items.slice(offset), ...items.slice(0, offset)])
  return orders
}

describe('preferredMemberName', () => {
  it('turns separators into one underscore', () => {
    assert.equal(preferredMemberName('read-file'), 'read_file')
    assert.equal(preferredMemberName('a.b'), 'a_b')
    assert.equal(preferredMemberName('fetch page'), 'fetch_page')
    assert.equal(preferredMemberName('a..b--c'), 'a_b_c')
    assert.equal(preferredMemberName('billing.invoices.list'), 'billing_invoices_list')
  })

  it('drops separators at either end but keeps underscores the name already had', () => {
    assert.equal(preferredMemberName('-leading'), 'leading')
    assert.equal(preferredMemberName('trailing.'), 'trailing')
    assert.equal(preferredMemberName('_private'), '_private')
    assert.equal(preferredMemberName('keep__double'), 'keep__double')
  })

  it('transliterates accented letters and spells out the rest as code points', () => {
    assert.equal(preferredMemberName('Créer un événement'), 'Creer_un_evenement')
    assert.equal(preferredMemberName('Straße.suchen'), 'Strasse_suchen')
    assert.equal(preferredMemberName('搜索'), 'u641c_u7d22')
    assert.equal(preferredMemberName('read_文件'), 'read_u6587_u4ef6')
    assert.equal(preferredMemberName('🔍 lookup'), 'u1f50d_lookup')
  })

  it('prefixes a leading digit', () => {
    assert.equal(preferredMemberName('2fa-verify'), '_2fa_verify')
    assert.equal(preferredMemberName('123'), '_123')
  })

  it('suffixes reserved words of JavaScript and Python but keeps soft keywords', () => {
    assert.equal(preferredMemberName('delete'), 'delete_')
    assert.equal(preferredMemberName('class'), 'class_')
    assert.equal(preferredMemberName('import'), 'import_')
    assert.equal(preferredMemberName('lambda'), 'lambda_')
    assert.equal(preferredMemberName('None'), 'None_')
    assert.equal(preferredMemberName('type'), 'type')
    assert.equal(preferredMemberName('match'), 'match')
  })

  it('never gives a name every object already has', () => {
    for (const name of ['constructor', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', 'then', 'toJSON']) {
      const member = preferredMemberName(name)
      assert.notEqual(member, name)
      assert.equal(member in {}, false, `${member} is inherited by plain objects`)
    }
  })

  it('reduces dunder names to their word', () => {
    assert.equal(preferredMemberName('__proto__'), 'proto')
    assert.equal(preferredMemberName('__init__'), 'init')
    assert.equal(preferredMemberName('____'), 'tool')
  })

  it('falls back to tool for a name without letters or digits', () => {
    assert.equal(preferredMemberName('$$$'), 'tool')
    assert.equal(preferredMemberName('!!!'), 'tool')
  })
})

describe('assignMemberNames', () => {
  it('keeps an exact identifier and gives the rewritten name a suffix', () => {
    for (const order of reorderings(['read-file', 'read_file'])) {
      const members = assignMemberNames(order)
      assert.equal(members.get('read_file'), 'read_file')
      assert.equal(members.get('read-file'), 'read_file_2')
    }
  })

  it('gives the same members whatever the order of the names', () => {
    const names = [
      'fetch page',
      'fetch-page',
      'fetch.page',
      'fetch_page',
      'fetch_page_2',
      '$$$',
      '!!!',
      'delete',
      'delete_',
    ]
    const expected = [...assignMemberNames(names)]
    for (const order of reorderings(names)) assert.deepEqual([...assignMemberNames(order)], expected)
  })

  it("never gives two tools one member, even when a suffix is some tool's own name", () => {
    const names = [
      'fetch page',
      'fetch-page',
      'fetch.page',
      'fetch_page',
      'fetch_page_2',
      'delete',
      'delete_',
      '$$$',
      '!!!',
    ]
    const members = assignMemberNames(names)
    assert.equal(new Set(members.values()).size, names.length)
    assert.equal(members.get('fetch_page'), 'fetch_page')
    assert.equal(members.get('fetch_page_2'), 'fetch_page_2')
    assert.equal(members.get('delete_'), 'delete_')
    assert.equal(members.get('delete'), 'delete__2')
    for (const member of members.values()) assert.match(member, /^[A-Za-z_][A-Za-z0-9_]*$/)
  })

  it('lists the members in member-name order', () => {
    const members = assignMemberNames(['zeta', 'Alpha', 'beta', 'a-lpha'])
    assert.deepEqual([...members.values()], ['Alpha', 'a_lpha', 'beta', 'zeta'])
  })

  it('refuses a duplicate tool name', () => {
    assert.throws(
      () => assignMemberNames(['search', 'fetch', 'search']),
      (error: unknown) => {
        assert.ok(CodeModeError.is(error))
        assert.equal(error.code, 'CODE_MODE_DUPLICATE_TOOL_NAME')
        assert.equal(error.field, 'tools[2].name')
        assert.ok(error.message.includes('"search"'))
        return true
      },
    )
  })

  it('refuses a name that is not a string', () => {
    assert.throws(
      () => assignMemberNames(['ok', 7 as unknown as string]),
      (error: unknown) => {
        assert.ok(CodeModeError.is(error))
        assert.equal(error.code, 'CODE_MODE_INVALID_TOOL')
        return true
      },
    )
  })
})
