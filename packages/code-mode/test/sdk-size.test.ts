// The size rule: the SDK for the whole corpus takes at most 65 % of the characters of the raw
// tool definitions it came from, while every tool description appears in it in full.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '@code-runtime/code-mode'
import { CORPUS_SERVERS, rawDefinitionChars, readCorpus, readFullCorpus } from './corpus.js'

const MAX_SIZE_RATIO = 0.65

/** The text of every comment line with its decoration (`/**`, ` * `, `*\/`) taken off. */
function commentText(sdk: string): string {
  return sdk
    .split('\n')
    .map(line =>
      line
        .trim()
        .replace(/^\/\*\*\s?/, '')
        .replace(/^\*(?:\s|$)/, '')
        .replace(/\s?\*\/$/, ''),
    )
    .join('\n')
}

/** A description as it may appear in a comment: lines trimmed at the end, `*\/` broken. */
function asCommented(description: string): string {
  return description
    .split(/\r\n|[\r\n]/)
    .map(line => line.trimEnd())
    .join('\n')
    .trim()
    .replace(/\*\//g, '*\\/')
}

describe('SDK size', () => {
  const tools = readFullCorpus()

  it('covers at least 100 tools', t => {
    t.diagnostic(
      `${tools.length} tools: ${CORPUS_SERVERS.map(server => `${server} ${readCorpus(server).length}`).join(', ')}`,
    )
    assert.ok(tools.length >= 100, `${tools.length} tools`)
  })

  it('keeps every tool description in full', () => {
    const text = commentText(emitSdk(tools).text)
    for (const tool of tools) {
      if (tool.description === undefined) continue
      assert.ok(text.includes(asCommented(tool.description)), `description of ${tool.name} is not complete`)
    }
  })

  it(`takes at most ${MAX_SIZE_RATIO * 100} % of the characters of the raw definitions`, t => {
    const rawChars = rawDefinitionChars(tools)
    const sdkChars = emitSdk(tools).text.length
    const ratio = sdkChars / rawChars
    t.diagnostic(`full corpus: SDK ${sdkChars} chars / raw ${rawChars} chars = ${(ratio * 100).toFixed(1)} %`)
    const real = CORPUS_SERVERS.filter(server => server !== 'synthetic').flatMap(server => readCorpus(server))
    const realRatio = emitSdk(real).text.length / rawDefinitionChars(real)
    t.diagnostic(`real MCP servers only (${real.length} tools): ${(realRatio * 100).toFixed(1)} %`)
    assert.ok(ratio <= MAX_SIZE_RATIO, `ratio ${ratio.toFixed(3)} exceeds ${MAX_SIZE_RATIO}`)
  })
})
