import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatTable } from './format-log.js'

/** The header line of a rendered table, e.g. `│ (index) │ a │`. */
function headerOf(table: string): string {
  return table.split('\n')[1] ?? ''
}

void describe('formatTable', () => {
  void it('shows every own column without a columns filter', () => {
    assert.equal(headerOf(formatTable([{ a: 1, b: 2 }, { c: 3 }])), '│ (index) │ a │ b │ c │')
  })

  void it('shows only the given columns, in their order, once each', () => {
    const table = formatTable([{ a: 1, b: 2 }, { b: 3 }], ['b', 'missing', 'b', 'a'])
    assert.equal(headerOf(table), '│ (index) │ b │ missing │ a │')
    assert.equal(table.split('\n')[4], '│ 1       │ 3 │         │   │')
  })

  void it('accepts number and symbol columns as property keys', () => {
    const key = Symbol('k')
    const table = formatTable([[10, 20], { [key]: 'sym' }], [1, key])
    assert.equal(headerOf(table), '│ (index) │ 1  │ Symbol(k) │')
    assert.match(table, /│ 0 +│ 20 │ +│/)
    assert.match(table, /│ 1 +│ +│ 'sym' +│/)
  })

  void it('never runs a getter of the columns array or of a row', () => {
    let ran = false
    const columns = ['a']
    Object.defineProperty(columns, 1, {
      get: () => {
        ran = true
        return 'b'
      },
      enumerable: true,
    })
    const row = {
      get a() {
        ran = true
        return 1
      },
    }
    const table = formatTable([row], columns)
    assert.equal(ran, false)
    assert.match(table, /\[getter\]/)
  })

  void it('refuses a columns array of enormous length without walking it', () => {
    for (const length of [10_001, 2 ** 32 - 1]) {
      const columns: string[] = []
      columns.length = length
      assert.equal(formatTable([{ a: 1 }], columns), '[table that cannot be shown]')
    }
  })

  void it('renders a table of more rows than a spread call can take', () => {
    const rows = Array.from({ length: 200_000 }, (_, index) => ({ n: index }))
    const table = formatTable(rows, ['n'])
    assert.equal(table.split('\n').length, 200_000 + 4)
  })
})
