import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { APPROVAL_SUMMARY_LIMITS, summarizeApprovalArguments } from './approval-summary.js'

function summaryText(args: unknown): string {
  const summary = summarizeApprovalArguments(args)
  assert.ok(summary.ok, summary.ok ? '' : summary.error)
  return summary.value.text
}

describe('summarizeApprovalArguments', () => {
  // Attack: a long first field pushes the dangerous one past a cut, and the person approves blind.
  it('shows a field that comes after a long one, the long value shortened in the middle with its count', () => {
    const text = summaryText({ note: `${'a'.repeat(2_050)}${'b'.repeat(2_050)}`, path: '/DANGER/everything' })
    const [note, path] = text.split('\n')
    assert.equal(path, 'path: "/DANGER/everything"')
    assert.match(note ?? '', /^note: "a+ …\[3902 characters left out\]… b+"$/)
    assert.ok((note ?? '').length < 300)
  })

  it('names every field of nested objects and arrays by its key path', () => {
    const text = summaryText({
      edits: [
        { path: '/a', mode: 420 },
        { path: '/b', recursive: true, extra: null },
      ],
      options: {},
      tags: [],
      'odd key': 1,
      0: 'zero',
    })
    assert.deepEqual(text.split('\n'), [
      '["0"]: "zero"',
      'edits[0].path: "/a"',
      'edits[0].mode: 420',
      'edits[1].path: "/b"',
      'edits[1].recursive: true',
      'edits[1].extra: null',
      'options: {} (no fields)',
      'tags: [] (empty list)',
      '["odd key"]: 1',
    ])
  })

  // Attack: a value with a newline or a bidirectional override forges a line of the summary.
  it('escapes line breaks, control and direction characters in values and keys', () => {
    const text = summaryText({ note: 'fine\npath: "/safe"', ['x\u202e']: 'evil\u2028\u200b' })
    assert.deepEqual(text.split('\n'), ['note: "fine\\npath: \\"/safe\\""', '["x\\u202e"]: "evil\\u2028\\u200b"'])
  })

  it('shortens a long key in the middle rather than dropping it', () => {
    const text = summaryText({ [`${'k'.repeat(300)}`]: 1 })
    assert.match(text, /^k+ …\[\d+ characters left out\]… k+: 1$/)
  })

  it('refuses arguments with more fields than a person can read, saying why', () => {
    const tooMany = Object.fromEntries(
      Array.from({ length: APPROVAL_SUMMARY_LIMITS.maxFields + 1 }, (_, index) => [`k${index}`, index]),
    )
    const summary = summarizeApprovalArguments(tooMany)
    assert.equal(summary.ok, false)
    assert.match(summary.ok ? '' : summary.error, /more than 500 fields/)
    assert.equal(summarizeApprovalArguments(Object.fromEntries(Object.entries(tooMany).slice(1))).ok, true)
  })

  it('refuses arguments nested deeper than the bound', () => {
    let deep: unknown = 'bottom'
    for (let level = 0; level <= APPROVAL_SUMMARY_LIMITS.maxDepth; level++) deep = { inner: deep }
    const summary = summarizeApprovalArguments(deep)
    assert.equal(summary.ok, false)
    assert.match(summary.ok ? '' : summary.error, /deeper than 20 levels/)
  })

  it('shows a value that is not an object as it is, and a repeated reference by where it was first shown', () => {
    assert.equal(summaryText('just text'), '"just text"')
    const loop: Record<string, unknown> = { name: 'a' }
    loop.self = loop
    assert.equal(summaryText({ loop }), 'loop.name: "a"\nloop.self: (the same value as loop)')
  })
})
