// The emitted SDK for each corpus file, compared byte for byte with test/fixtures/golden/.
// Regenerate after an intended change with `UPDATE_GOLDEN=1 node scripts/run-tests.mjs packages/code-mode/`
// and review the diff like code: it is exactly what models will read.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { emitSdk } from '@code-runtime/code-mode'
import { CORPUS_SERVERS, packageFileUrl, readCorpus } from './corpus.js'

const isUpdating = process.env.UPDATE_GOLDEN === '1'

describe('SDK golden files', () => {
  for (const server of CORPUS_SERVERS) {
    it(`emits the recorded SDK for the ${server} corpus`, t => {
      const { declarations } = emitSdk(readCorpus(server))
      const goldenUrl = packageFileUrl(`test/fixtures/golden/${server}.d.ts`)
      if (isUpdating) {
        writeFileSync(goldenUrl, declarations)
        t.diagnostic(`updated ${goldenUrl.pathname}`)
        return
      }
      assert.equal(declarations, readFileSync(goldenUrl, 'utf8'))
    })
  }

  it('emits the same bytes whatever the order of the tools', () => {
    for (const server of CORPUS_SERVERS) {
      const tools = readCorpus(server)
      const expected = emitSdk(tools).text
      const interleaved = [
        ...tools.filter((_, index) => index % 2 === 1),
        ...tools.filter((_, index) => index % 2 === 0),
      ]
      assert.equal(emitSdk([...tools].reverse()).text, expected, server)
      assert.equal(emitSdk(interleaved).text, expected, server)
    }
  })
})
