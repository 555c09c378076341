import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'

const run = promisify(execFile)

describe('the README session example', () => {
  it('fetches once and reuses the kept rows in the next run', async () => {
    const script = fileURLToPath(new URL('../examples/session-example.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.equal(stdout, '{"first":3,"second":[1,3],"fetches":1}\n')
  })

  it('is quoted in the README exactly', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const source = readFileSync(new URL('../../examples/session-example.ts', import.meta.url), 'utf8')
    assert.ok(readme.includes(`\`\`\`ts\n${source}\`\`\``), 'the README quotes examples/session-example.ts as it is')
  })
})

describe('the README example', () => {
  it('runs the restock program against the example bindings and prints its logs and value', async () => {
    const script = fileURLToPath(new URL('../examples/run-example.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.match(stdout, /^\[log\] checking 4 products\n/)
    assert.match(stdout, /\[log\] expected failure from getStock: no product with sku NOPE-404\n/)
    const value = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { lowStock: number; report: { sku: string }[] }
    assert.equal(value.lowStock, 3)
    assert.deepEqual(
      value.report.map(line => line.sku),
      ['LAMP-01', 'PEN-03', 'BAG-04'],
    )
  })
})
