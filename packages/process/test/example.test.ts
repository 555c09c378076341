import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it('runs the refund program in the container backend and prints its logs and value', async () => {
    const script = fileURLToPath(new URL('../examples/run-example.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.equal(
      stdout,
      [
        '[backend] container',
        '[log] 2 late orders',
        '[log] refund failed: no order Z-999',
        '{"refunded":["A-100","A-102"],"totalEur":200}',
        '',
      ].join('\n'),
    )
  })
})
