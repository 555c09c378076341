import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it('runs an agent whose model answers from what run_code returned, and prints the structured outcome', async () => {
    const script = fileURLToPath(new URL('../examples/quick-start.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.equal(stdout, 'Rome is 17 °C warmer than Oslo. 17 2\n')
  })

  it('is shown verbatim in the README', async () => {
    const source = await readFile(new URL('../../examples/quick-start.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/quick-start.ts')
  })
})
