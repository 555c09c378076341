// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import { startRuntime } from './langchain-test-env.js'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type * as LangChainCodeMode from '@code-runtime/langchain'
import type { ClientTool } from '@langchain/core/tools'

describe('public surface of @code-runtime/langchain', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/langchain'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), ['codeModeTool'])
  })

  it("throws Code Mode's branded errors with stable codes", async () => {
    const specifier: string = '@code-runtime/langchain'
    const { codeModeTool } = (await import(specifier)) as typeof LangChainCodeMode
    const { CodeModeError } = await import('@code-runtime/code-mode')
    const started = await startRuntime()
    try {
      const codes: string[] = []
      for (const attempt of [
        () => codeModeTool({ tools: [{ name: 'x' } as unknown as ClientTool], runtime: started.runtime }),
        () => codeModeTool({ tools: [], runtime: started.runtime, namespace: '1x' }),
      ]) {
        try {
          attempt()
        } catch (error) {
          assert.ok(CodeModeError.is(error))
          codes.push(error.code)
        }
      }
      assert.deepEqual(codes, ['CODE_MODE_INVALID_TOOL', 'CODE_MODE_INVALID_OPTIONS'])
    } finally {
      await started.dispose()
    }
  })
})
