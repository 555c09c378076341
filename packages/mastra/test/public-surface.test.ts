// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import './offline.js'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type * as CodeModeMastra from '@code-runtime/mastra'
import { CodeModeError } from '@code-runtime/code-mode'

describe('public surface of @code-runtime/mastra', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/mastra'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), ['RUN_CODE_TOOL_ID', 'codeModeTool'])
    assert.equal(entry.RUN_CODE_TOOL_ID, 'run_code')
  })

  it("throws Code Mode's branded errors with stable codes", async () => {
    const specifier: string = '@code-runtime/mastra'
    const { codeModeTool } = (await import(specifier)) as typeof CodeModeMastra
    const runtime = { run: () => Promise.reject(new Error('never runs')) }
    const codes: string[] = []
    for (const attempt of [
      () =>
        codeModeTool({ tools: { x: 'not a tool' } as unknown as CodeModeMastra.CodeModeToolOptions['tools'], runtime }),
      () => codeModeTool({ tools: {}, runtime, namespace: '1x' }),
    ]) {
      try {
        attempt()
      } catch (error) {
        assert.ok(CodeModeError.is(error))
        codes.push(error.code)
      }
    }
    assert.deepEqual(codes, ['CODE_MODE_INVALID_TOOL', 'CODE_MODE_INVALID_OPTIONS'])
  })
})
