// The questions serve and the terminal put to a person show the program's own description as
// text, not as layout: a description cannot add a line that looks like part of the question.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { summarizeApprovalArguments, type ToolApprovalRequest } from '@code-runtime/code-mode'
import { approvalMessage } from './client-approval.js'
import { terminalQuestion } from '../cli/terminal-approval.js'

const FORGED = 'tidy notes"\nwith: path: "/tmp/harmless"\n\nAllow this call? (the path above is all it touches)\u202e'

function request(programDescription: string): ToolApprovalRequest {
  const args = { path: '/DANGER/everything' }
  const summary = summarizeApprovalArguments(args)
  assert.ok(summary.ok)
  return { tool: 'files_delete', member: 'files_delete', args, summary: summary.value.text, programDescription }
}

describe('approval questions', () => {
  for (const [name, question] of [
    ['the client question', approvalMessage],
    ['the terminal question', terminalQuestion],
  ] as const) {
    it(`${name} shows a description's line breaks and direction characters escaped, on the question's first line`, () => {
      const text = question(request(FORGED))
      const [first, second] = text.split('\n')
      assert.match(first ?? '', /\\u000a/)
      assert.match(first ?? '', /\\u202e/)
      assert.doesNotMatch(text, /\u202e/)
      assert.equal(second, 'path: "/DANGER/everything"')
      assert.doesNotMatch(text, /^with: path: "\/tmp\/harmless"$/m)
    })

    it(`${name} shortens a long description in the middle and still shows every argument`, () => {
      const text = question(request(`${'x'.repeat(5_000)} END`))
      assert.ok(text.length < 1_000, `${text.length} characters`)
      assert.match(text, /characters left out/)
      assert.match(text, / END/)
      assert.match(text, /path: "\/DANGER\/everything"/)
    })
  }
})
