import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README quick start', () => {
  it('runs and prints the value, the number of tool calls and that a prompt was built', async () => {
    const script = fileURLToPath(new URL('../examples/quick-start.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.equal(stdout, '17 2 true\n')
  })

  it('is shown verbatim in the README, in under 20 lines from tools to run_code', async () => {
    const source = await readFile(new URL('../../examples/quick-start.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/quick-start.ts')
    const lines = source.split('\n')
    const fromTools = lines.findIndex(line => line.startsWith('const tools'))
    const toRunCode = lines.findIndex((line, index) => index > fromTools && line.startsWith('})'))
    assert.ok(fromTools >= 0 && toRunCode > fromTools, 'the example declares tools, then calls run_code')
    assert.ok(toRunCode - fromTools + 1 < 20, `${toRunCode - fromTools + 1} lines from tools to run_code`)
  })
})
