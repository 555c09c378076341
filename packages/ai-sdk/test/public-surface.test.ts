// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type * as AiSdkCodeMode from '@code-runtime/ai-sdk'

describe('public surface of @code-runtime/ai-sdk', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/ai-sdk'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), [
      'CodeModeError',
      'codeModeTool',
      'disposeCodeModeTool',
      'toolsNeedingApproval',
    ])
  })

  it("throws Code Mode's branded errors with stable codes", async () => {
    const specifier: string = '@code-runtime/ai-sdk'
    const { CodeModeError, codeModeTool, disposeCodeModeTool } = (await import(specifier)) as typeof AiSdkCodeMode
    const runtime = { run: async () => assert.fail('nothing runs here') }
    const codes: string[] = []
    for (const attempt of [
      () => codeModeTool({ tools: { bad: {} as never }, runtime }),
      () => codeModeTool({ tools: {}, runtime, namespace: '1x' }),
      () => disposeCodeModeTool({} as never),
    ]) {
      try {
        await attempt()
      } catch (error) {
        assert.ok(CodeModeError.is(error))
        codes.push(error.code)
      }
    }
    assert.deepEqual(codes, ['CODE_MODE_INVALID_TOOL', 'CODE_MODE_INVALID_OPTIONS', 'CODE_MODE_INVALID_OPTIONS'])
  })
})
