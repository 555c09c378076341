import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startProgress, styleFor, writeErrorLine } from './terminal-output.js'

function stream(isTTY: boolean): { isTTY: boolean; text: string; write(chunk: string): boolean } {
  return {
    isTTY,
    text: '',
    write(chunk) {
      this.text += chunk
      return true
    },
  }
}

describe('terminal output', () => {
  it('colours only a terminal, and never under NO_COLOR', () => {
    assert.equal(styleFor(stream(true), {}).red('x'), '\u001b[31mx\u001b[39m')
    assert.equal(styleFor(stream(true), { NO_COLOR: '1' }).red('x'), 'x')
    assert.equal(styleFor(stream(true), { NO_COLOR: '' }).red('x'), '\u001b[31mx\u001b[39m')
    assert.equal(styleFor(stream(false), {}).red('x'), 'x')
  })

  it('writes an error as one line', () => {
    const target = stream(false)
    writeErrorLine(target, 'first\n  second')
    assert.equal(target.text, 'code-runtime: first second\n')
  })

  it('shows no progress when the stream is not a terminal', () => {
    const target = stream(false)
    startProgress(target, () => 3).stop()
    assert.equal(target.text, '')
  })
})
