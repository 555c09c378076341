import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)

describe('the README example', () => {
  it('runs the restock program against the example bindings and prints its logs and value', async () => {
    const script = fileURLToPath(new URL('../examples/run-example.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.match(stdout, /^\[log\] checking 4 products\n/)
    assert.match(stdout, /\[log\] expected failure from getStock: no product with sku NOPE-404\n/)
    const value = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { lowStock: number; report: { sku: string }[] }
    assert.equal(value.lowStock, 3)
    assert.deepEqual(value.report.map((line) => line.sku), ['LAMP-01', 'PEN-03', 'BAG-04'])
  })
})
