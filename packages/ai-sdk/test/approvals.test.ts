/**
 * Tools with the AI SDK's `needsApproval` inside a program, when codeModeTool is given an
 * approver: they are in the SDK, marked; a `needsApproval` function decides per call whether the
 * person is asked; a declined call is a failed call the program catches; the tool never runs.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { CodeModeError, codeModeTool, type CodeModeToolResult } from '@code-runtime/ai-sdk'
import type { ToolApprovalRequest } from '@code-runtime/code-mode'
import { NO_TELEMETRY, scriptedModel, startRuntime } from './scripted-models.js'

describe('codeModeTool with an approver', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  function payments(paid: number[]) {
    return {
      pay: tool({
        description: 'Pays an amount.',
        inputSchema: z.object({ amount: z.number() }),
        // Only large payments need a person, as the SDK would ask per call.
        needsApproval: async ({ amount }, { messages }) => amount > 100 && messages.length > 0,
        execute: async ({ amount }) => (paid.push(amount), 'paid'),
      }),
      deleteAccount: tool({
        description: 'Deletes the account.',
        inputSchema: z.object({}),
        needsApproval: true,
        execute: async () => (paid.push(-1), 'deleted'),
      }),
    }
  }

  it('asks only for the calls the tool says need it, and a refusal is caught by the program', async () => {
    const paid: number[] = []
    const asked: ToolApprovalRequest[] = []
    const runCode = codeModeTool({
      tools: payments(paid),
      runtime: started.runtime,
      approve: request => (
        asked.push(request),
        request.tool === 'pay' ? { action: 'allow' } : { action: 'decline', reason: 'never' }
      ),
    })
    const description = String(runCode.description)
    assert.match(description, /@needsApproval \*\/\n {2}deleteAccount\(/)
    assert.match(description, /@needsApproval \*\/\n {2}pay\(/)
    const model = scriptedModel([
      'await tools.pay({ amount: 5 })\nawait tools.pay({ amount: 500 })\ntry { await tools.deleteAccount() } catch (error) { return error.message }',
    ])
    const result = await generateText({
      model,
      prompt: 'Pay and close.',
      tools: { run_code: runCode },
      stopWhen: stepCountIs(3),
      telemetry: NO_TELEMETRY,
    })
    const output = result.steps[0]?.staticToolResults[0]?.output as CodeModeToolResult
    assert.equal(
      output.result,
      'tools.deleteAccount: the person declined this call, so it was not made. Their reason: never',
    )
    assert.deepEqual(paid, [5, 500])
    assert.deepEqual(
      asked.map(request => [request.tool, request.args]),
      [
        ['pay', { amount: 500 }],
        ['deleteAccount', {}],
      ],
    )
    assert.deepEqual(
      output.calls.map(call => call.approval?.decision),
      ['allowed', 'allowed', 'declined'],
    )
  })

  it('refuses an approver that is not a function', () => {
    assert.throws(
      () => codeModeTool({ tools: payments([]), runtime: started.runtime, approve: 'yes' as never }),
      (error: unknown) =>
        CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS' && error.field === 'approve',
    )
  })
})
