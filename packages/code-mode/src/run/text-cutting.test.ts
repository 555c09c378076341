import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { cutLogLines, cutWithMarker, MIN_LOG_EXCERPT_CHARS } from './text-cutting.js'

const numbered = (count: number): string[] => Array.from({ length: count }, (_, index) => `line ${index}`)

/** The head lines, the omitted count from the marker, and the tail lines of an excerpt. */
function readExcerpt(text: string): { head: string[]; omitted: number; omittedChars: number; tail: string[] } {
  const lines = text.split('\n')
  const at = lines.findIndex(line => line.startsWith('[... '))
  assert.ok(at >= 0, `no marker in ${JSON.stringify(text.slice(0, 200))}`)
  const match = /^\[\.\.\. (\d+) log lines? left out here \((\d+) characters\); log less to see them all\]$/.exec(
    lines[at] as string,
  )
  assert.ok(match, `unexpected marker ${lines[at]}`)
  return {
    head: lines.slice(0, at),
    omitted: Number(match[1]),
    omittedChars: Number(match[2]),
    tail: lines.slice(at + 1),
  }
}

describe('cutWithMarker', () => {
  it('keeps the beginning and says how much is left out, within the limit', () => {
    assert.equal(
      cutWithMarker('abcdefgh', 6, omitted => `[-${omitted}]`),
      'ab[-6]',
    )
    assert.equal(
      cutWithMarker('abc', 3, () => '[cut]'),
      'abc',
    )
  })

  it('never cuts inside a surrogate pair', () => {
    const text = cutWithMarker('😀'.repeat(100), 50, () => '|')
    assert.equal(text, `${'😀'.repeat(24)}|`)
  })
})

describe('cutLogLines', () => {
  it('returns lines that fit as they are', () => {
    assert.equal(cutLogLines(['a', 'b'], 3), 'a\nb')
  })

  it('keeps the first and the last lines and says how many were left out between them', () => {
    const lines = numbered(10_000)
    const text = cutLogLines(lines, 1_000)
    assert.ok(text.length <= 1_000, `${text.length} characters`)
    const { head, omitted, omittedChars, tail } = readExcerpt(text)
    assert.deepEqual(head, lines.slice(0, head.length))
    assert.deepEqual(tail, lines.slice(lines.length - tail.length))
    assert.equal(head.length + omitted + tail.length, lines.length)
    assert.equal(omittedChars, lines.slice(head.length, lines.length - tail.length).join('\n').length)
    // Both ends get a fair share of the budget.
    assert.ok(head.length > 30 && tail.length > 30, `${head.length} head and ${tail.length} tail lines`)
  })

  it('cuts a huge line where it stands, saying so, and keeps the lines around it', () => {
    const text = cutLogLines(['start', 'x'.repeat(100_000), 'end'], 1_000)
    assert.ok(text.length <= 1_000, `${text.length} characters`)
    const [first, cut, last, ...rest] = text.split('\n')
    assert.equal(first, 'start')
    assert.equal(last, 'end')
    assert.deepEqual(rest, [])
    const match = /^(x+) \[\.\.\. (\d+) more characters of this line left out\]$/.exec(cut as string)
    assert.ok(match, `unexpected cut line ${cut}`)
    assert.equal((match[1] as string).length + Number(match[2]), 100_000)
    assert.ok((match[1] as string).length > 800, 'the cut line gets the room the others left')
  })

  it('cuts a huge line amid many others and counts the rest as left out', () => {
    const lines = [...numbered(50), 'y'.repeat(50_000), ...numbered(5_000)]
    const text = cutLogLines(lines, 2_000)
    assert.ok(text.length <= 2_000, `${text.length} characters`)
    assert.match(
      text,
      /\ny+ \[\.\.\. \d+ more characters of this line left out\]\n\[\.\.\. \d+ log lines left out here/,
    )
    const { head, omitted, tail } = readExcerpt(text)
    assert.equal(head.length + omitted + tail.length, lines.length, 'the cut line counts as kept')
    assert.deepEqual(tail, lines.slice(lines.length - tail.length))
  })

  it('stays within the limit for any mix of line lengths', () => {
    let seed = 7
    const random = (below: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed % below
    }
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + random(60) }, () =>
        'z'.repeat(random(4) === 0 ? random(5_000) : random(80)),
      )
      const maxChars = MIN_LOG_EXCERPT_CHARS + random(3_000)
      const text = cutLogLines(lines, maxChars)
      assert.ok(text.length <= maxChars, `round ${round}: ${text.length} > ${maxChars}`)
      if (lines.join('\n').length <= maxChars) assert.equal(text, lines.join('\n'))
    }
  })
})
