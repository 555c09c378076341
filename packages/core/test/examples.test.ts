import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)

void describe('README examples', () => {
  void it('runs examples/quick-start and prints each outcome', async () => {
    const script = fileURLToPath(new URL('../examples/quick-start.js', import.meta.url))
    const { stdout, stderr } = await run(process.execPath, [script])
    assert.equal(stderr, '')
    const lines = stdout.trimEnd().split('\n')
    assert.equal(lines.length, 6)
    // Each run prints its outcome as JSON, then its output bytes and calls from usage and the call record.
    const outcomes = lines.slice(0, 4).map(line => {
      const tail = / \((\d+) output bytes, 0 calls\)$/.exec(line)
      assert.ok(tail !== null, `no usage after ${line}`)
      return JSON.parse(line.slice(0, tail.index)) as { value?: unknown; error?: { kind: string; message: string } }
    })
    assert.deepEqual(outcomes[0], { logs: [], value: { answer: 42 } })
    assert.ok(lines[0]?.endsWith('(15 output bytes, 0 calls)'))
    assert.equal(outcomes[1]?.error?.kind, 'exception')
    assert.equal(outcomes[2]?.error?.kind, 'invalid-output')
    assert.ok(outcomes[2]?.error?.message.startsWith('result is -0'))
    assert.equal(outcomes[3]?.error?.kind, 'output-limit')
    assert.ok(outcomes[3]?.error?.message.includes('200 bytes'))
    assert.ok(lines[4]?.startsWith('CODE_RUNTIME_INVALID_BINDINGS: '))
    assert.ok(lines[4]?.includes('"console"'))
    assert.ok(lines[5]?.startsWith('CODE_RUNTIME_INVALID_CONFIG: '))
    assert.ok(lines[5]?.includes('maxOutputBytes'))
  })
})

void describe('README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

  void it('shows examples/quick-start.ts as it is', () => {
    const source = readFileSync(new URL('../../examples/quick-start.ts', import.meta.url), 'utf8')
    const body = source.slice(source.indexOf('import '))
    assert.ok(readme.includes('```ts\n' + body + '```'), 'the README example differs from examples/quick-start.ts')
  })

  void it('shows what examples/quick-start prints', async () => {
    const script = fileURLToPath(new URL('../examples/quick-start.js', import.meta.url))
    const { stdout } = await run(process.execPath, [script])
    assert.ok(readme.includes('It prints:\n\n```text\n' + stdout + '```'), 'the README output differs from the example')
  })

  void it('keeps the conformance suite section', () => {
    assert.ok(readme.includes('\n## Conformance suite\n'))
  })
})
