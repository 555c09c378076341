// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'

describe('public surface of @code-runtime/openai-agents', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/openai-agents'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), ['RUN_CODE_CUSTOM_DATA_KEY', 'codeModeTool', 'readRunCodeOutput'])
    assert.equal(entry.RUN_CODE_CUSTOM_DATA_KEY, 'codeMode')
  })
})
