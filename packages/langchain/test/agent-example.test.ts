import { NO_TRACING_ENV } from './langchain-test-env.js'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it('runs an agent whose program calls both tools, and prints the answer and the number of calls', async () => {
    const script = fileURLToPath(new URL('../examples/agent.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script], { env: { ...process.env, ...NO_TRACING_ENV } })
    assert.equal(stdout, 'Rome is warmer by 30.6 °F. 3\n')
  })

  it('is shown verbatim in the README', async () => {
    const source = await readFile(new URL('../../examples/agent.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/agent.ts')
  })
})
