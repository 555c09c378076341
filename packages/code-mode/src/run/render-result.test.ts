import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CODE_RUN_FAILURE_KINDS, type CodeJsonValue } from '@code-runtime/core'
import { formatJsonValue, renderRunResult } from './render-result.js'

describe('renderRunResult', () => {
  it('prints logs, then a string value raw', () => {
    assert.equal(renderRunResult({ logs: ['a', 'b'], value: 'plain text' }, 1000), 'a\nb\nplain text')
  })

  it('pretty-prints JSON near the top and keeps deep levels on one line', () => {
    const text = formatJsonValue({ top: { middle: { deep: { deeper: [1, 2] } } }, list: [] })
    assert.equal(text, '{\n  "top": {\n    "middle": {\n      "deep": {"deeper":[1,2]}\n    }\n  },\n  "list": []\n}')
    assert.deepEqual(JSON.parse(text), { top: { middle: { deep: { deeper: [1, 2] } } }, list: [] })
  })

  it('renders a value nested 100 000 levels deep (JSON.stringify ran out of stack on it)', () => {
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

  it('cuts a long value with a marker that says how much was left out, within the limit', () => {
    const text = renderRunResult({ logs: [], value: 'x'.repeat(5000) }, 300)
    assert.ok(text.length <= 300)
    assert.match(text, /\[\.\.\. \d+ more characters of the returned value left out; return less to see it all\]$/)
    const omitted = Number(/(\d+) more characters/.exec(text)?.[1])
    assert.equal(text.indexOf('\n[...') + omitted, 5000)
  })

  it('keeps the returned value whole when the logs are past the budget, and cuts the logs in the middle', () => {
    const logs = Array.from({ length: 5_000 }, (_, index) => `progress ${index}`)
    const text = renderRunResult({ logs, value: { answer: 42 } }, 2_000)
    assert.ok(text.length <= 2_000, `${text.length} characters`)
    assert.ok(text.endsWith('\n{\n  "answer": 42\n}'), 'the value comes last, whole')
    assert.ok(text.startsWith('progress 0\nprogress 1\n'), 'the first lines are kept')
    assert.match(text, /\nprogress 4999\n\{/, 'the last line is kept')
    const omitted = Number(
      /\n\[\.\.\. (\d+) log lines left out here \(\d+ characters\); log less to see them all\]\n/.exec(text)?.[1],
    )
    assert.equal(text.split('\n').filter(line => line.startsWith('progress ')).length + omitted, 5_000)
  })

  it('keeps the error whole when the logs are past the budget', () => {
    const logs = Array.from({ length: 5_000 }, (_, index) => `step ${index}`)
    const text = renderRunResult(
      { logs, error: { kind: 'exception', message: 'ToolCallError: files_read_text_file: ENOENT' } },
      1_000,
    )
    assert.ok(text.length <= 1_000, `${text.length} characters`)
    assert.ok(text.endsWith('\nstep 4999\ncode run failed (exception): ToolCallError: files_read_text_file: ENOENT'))
    assert.match(text, /\[\.\.\. \d+ log lines left out here/)
  })

  it('cuts a value that alone is past the budget, says so, and keeps some logs', () => {
    const text = renderRunResult({ logs: ['found 3 files'], value: 'v'.repeat(10_000) }, 500)
    assert.ok(text.length <= 500, `${text.length} characters`)
    assert.ok(text.startsWith('found 3 files\nvvv'))
    const omitted = Number(
      /\n\[\.\.\. (\d+) more characters of the returned value left out; return less to see it all\]$/.exec(text)?.[1],
    )
    assert.equal((text.split('\n')[1]?.length as number) + omitted, 10_000)
  })

  it('gives the logs at least a quarter of the budget next to a huge value', () => {
    const logs = Array.from({ length: 1_000 }, (_, index) => `line ${index}`)
    const text = renderRunResult({ logs, value: 'v'.repeat(10_000) }, 4_000)
    assert.ok(text.length <= 4_000, `${text.length} characters`)
    const logsPart = text.slice(0, text.indexOf('\nvvv'))
    assert.ok(logsPart.length >= 900 && logsPart.length <= 1_000, `${logsPart.length} characters of logs`)
    assert.match(logsPart, /^line 0\n[^]*\nline 999$/)
  })

  it('cuts a huge error message and says so', () => {
    const text = renderRunResult({ logs: [], error: { kind: 'exception', message: 'e'.repeat(10_000) } }, 300)
    assert.ok(text.length <= 300)
    assert.match(
      text,
      /^code run failed \(exception\): e+\n\[\.\.\. \d+ more characters of the error message left out\]$/,
    )
  })

  it('stays within the budget at its smallest (200) for every mix', () => {
    for (const logs of [[], ['short'], ['l'.repeat(1_000)], Array.from({ length: 500 }, () => 'a line')]) {
      for (const ending of [
        {},
        { value: 'v'.repeat(1_000) },
        { value: 7 },
        { error: { kind: 'exception' as const, message: 'm'.repeat(1_000) } },
      ]) {
        const text = renderRunResult({ logs, ...ending }, 200)
        assert.ok(
          text.length <= 200,
          `${JSON.stringify({ logs: logs.length, ending: Object.keys(ending) })}: ${text.length}`,
        )
      }
    }
  })

  it('never cuts inside a surrogate pair', () => {
    const emoji = '😀'.repeat(200)
    const text = renderRunResult({ logs: [], value: emoji }, 201)
    const kept = text.slice(0, text.indexOf('\n['))
    assert.equal(kept.length % 2, 0)
  })
})
