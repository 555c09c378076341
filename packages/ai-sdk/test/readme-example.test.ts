import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it("runs generateText's loop offline and prints the model's answer and the tools the program called", async () => {
    const script = fileURLToPath(new URL('../examples/generate-text.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.equal(stdout, 'It is 69.8 °F. getWeather convert\n')
  })

  it('is shown verbatim in the README', async () => {
    const source = await readFile(new URL('../../examples/generate-text.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/generate-text.ts')
  })
})
