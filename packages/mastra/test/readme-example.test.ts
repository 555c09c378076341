import './offline.js'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it('runs an Agent whose model calls run_code, and prints its answer and the calls made', async () => {
    const script = fileURLToPath(new URL('../examples/weather-agent.js', import.meta.url))
    // Offline: no usage report, no provider lists fetched.
    const { stdout } = await run(process.execPath, [script], {
      env: { ...process.env, MASTRA_TELEMETRY_DISABLED: '1', MASTRA_OFFLINE: '1' },
    })
    assert.equal(stdout, 'The program said: 30.6 | 3 tool calls\n')
  })

  it('is shown verbatim in the README', async () => {
    const source = await readFile(new URL('../../examples/weather-agent.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/weather-agent.ts')
  })
})
