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
    assert.deepEqual(JSON.parse(lines[0] ?? ''), { logs: [], value: { answer: 42 } })
    assert.equal((JSON.parse(lines[1] ?? '') as { error: { kind: string } }).error.kind, 'exception')
    const invalid = JSON.parse(lines[2] ?? '') as { error: { kind: string; message: string } }
    assert.equal(invalid.error.kind, 'invalid-output')
    assert.ok(invalid.error.message.startsWith('result is -0'))
    const overflow = JSON.parse(lines[3] ?? '') as { error: { kind: string; message: string } }
    assert.equal(overflow.error.kind, 'output-limit')
    assert.ok(overflow.error.message.includes('200 bytes'))
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
