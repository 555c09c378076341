import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CODE_RUN_FAILURE_KINDS, type CodeJsonValue } from '@code-runtime/core'
import { formatJsonValue, renderRunResult, truncateText } from './render-result.js'

describe('renderRunResult', () => {
  it('prints logs, then a string value raw', () => {
    assert.equal(renderRunResult({ logs: ['a', 'b'], value: 'plain text' }, 1000), 'a\nb\nplain text')
  })

  it('pretty-prints JSON near the top and keeps deep levels on one line', () => {
    const text = formatJsonValue({ top: { middle: { deep: { deeper: [1, 2] } } }, list: [] })
    assert.equal(text, '{\n  "top": {\n    "middle": {\n      "deep": {"deeper":[1,2]}\n    }\n  },\n  "list": []\n}')
    assert.deepEqual(JSON.parse(text), { top: { middle: { deep: { deeper: [1, 2] } } }, list: [] })
  })

  it('renders a value nested 100 000 levels deep (issue 11 item 6: JSON.stringify ran out of stack)', () => {
    const depth = 100_000
    let value: CodeJsonValue = 0
    for (let level = 0; level < depth; level++) value = [value]
    const text = renderRunResult({ logs: [], value: { deep: value } }, 10_000_000)
    // The top levels are indented, the rest compact: without white space it is the compact JSON.
    assert.equal(text.replace(/\s/g, ''), `{"deep":${'['.repeat(depth)}0${']'.repeat(depth)}}`)
  })

  for (const kind of CODE_RUN_FAILURE_KINDS) {
    it(`renders a ${kind} failure after the captured output`, () => {
      const text = renderRunResult({ logs: ['before'], error: { kind, message: 'what happened' } }, 1000)
      assert.equal(text, `before\ncode run failed (${kind}): what happened`)
    })
  }

  it('says so when a run printed and returned nothing', () => {
    assert.equal(renderRunResult({ logs: [] }, 1000), '(the program returned nothing and printed nothing)')
  })

  it('cuts long text with a marker that says how much was left out, within the limit', () => {
    const text = renderRunResult({ logs: [], value: 'x'.repeat(5000) }, 300)
    assert.ok(text.length <= 300)
    assert.match(text, /\[\.\.\. \d+ more characters left out; return or log less to see it all\]$/)
    const omitted = Number(/(\d+) more characters/.exec(text)?.[1])
    assert.equal(text.indexOf('\n[...') + omitted, 5000)
  })

  it('never cuts inside a surrogate pair', () => {
    const emoji = '😀'.repeat(200)
    const text = truncateText(emoji, 150)
    const kept = text.slice(0, text.indexOf('\n['))
    assert.equal(kept.length % 2, 0)
  })
})
