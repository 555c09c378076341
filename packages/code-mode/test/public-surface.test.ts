// The package's public surface, read through its exports map by package name, so an export
// cannot appear or vanish unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type * as CodeMode from '@code-runtime/code-mode'

describe('public surface of @code-runtime/code-mode', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/code-mode'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), [
      'APPROVAL_SUMMARY_LIMITS',
      'CodeModeError',
      'DEFAULT_MAX_RESULT_CHARS',
      'DEFAULT_SDK_EMITTER_OPTIONS',
      'DEFAULT_TYPE_CHECK_MODE',
      'MAX_RESULT_CHARS_LIMIT',
      'RUN_CODE_SESSION_HANDLE_SENTENCE',
      'RUN_CODE_SESSION_SENTENCE',
      'createCodeMode',
      'createCodeModeSession',
      'emitSdk',
      'fenceTypeScript',
      'foreignToolSchema',
      'formatJsonValue',
      'formatProgramDiagnostics',
      'listRunCode',
      'preferredMemberName',
      'programNeedsMoreInput',
      'safeParseRunCodeInput',
      'schemaToTypeScript',
      'showProgramText',
      'stopTypeChecker',
      'summarizeApprovalArguments',
      'toolNeedsApproval',
    ])
  })

  it('throws branded errors with stable codes', async () => {
    const specifier: string = '@code-runtime/code-mode'
    const { CodeModeError, emitSdk } = (await import(specifier)) as typeof CodeMode
    const codes: string[] = []
    for (const attempt of [
      () =>
        emitSdk([
          { name: 'a', inputSchema: {} },
          { name: 'a', inputSchema: {} },
        ]),
      () => emitSdk([{ name: 1, inputSchema: {} } as unknown as { name: string; inputSchema: Record<string, never> }]),
      () => emitSdk([], { namespace: '1x' }),
    ]) {
      try {
        attempt()
      } catch (error) {
        assert.ok(CodeModeError.is(error))
        codes.push(error.code)
      }
    }
    assert.deepEqual(codes, ['CODE_MODE_DUPLICATE_TOOL_NAME', 'CODE_MODE_INVALID_TOOL', 'CODE_MODE_INVALID_OPTIONS'])
  })
})
