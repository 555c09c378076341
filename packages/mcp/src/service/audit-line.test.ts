import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { auditLine, type ToolOfMember } from './audit-line.js'

const toolOf: ToolOfMember = member =>
  member === 'files_write_file' ? { server: 'files', tool: 'write_file' } : undefined

const structured: RunCodeOutput['structured'] = {
  logs: ['secret log line'],
  result: 'secret result',
  calls: [
    {
      namespace: 'tools',
      member: 'files_write_file',
      startMs: 1,
      durationMs: 12.4,
      outcome: 'ok',
      args: { path: '/tmp/x', content: 'secret content' },
      result: { written: true },
      approval: { decision: 'allowed', decidedBy: 'approver', waitMs: 900 },
    },
    { namespace: 'tools', member: 'gone_tool', startMs: 20, durationMs: 3, outcome: 'error', error: 'secret failure' },
  ],
}

describe('auditLine', () => {
  const startedAt = new Date('2026-12-03T08:00:00.000Z')

  it('names who ran what and every call, without arguments, results, logs or the value', () => {
    const line = auditLine(
      { startedAt, durationMs: 40.6, principal: 'alice', session: 's-1', description: 'Write the note', structured },
      toolOf,
    )
    assert.deepEqual(JSON.parse(line), {
      audit: 'run_code',
      time: '2026-12-03T08:00:00.000Z',
      principal: 'alice',
      session: 's-1',
      description: 'Write the note',
      durationMs: 41,
      outcome: 'ok',
      calls: [
        {
          server: 'files',
          tool: 'write_file',
          outcome: 'ok',
          durationMs: 12,
          approval: 'allowed',
          approvedBy: 'approver',
        },
        { server: null, tool: 'gone_tool', outcome: 'error', durationMs: 3 },
      ],
    })
    assert.doesNotMatch(line, /secret/)
  })

  it('carries the values only when asked', () => {
    const parsed = JSON.parse(
      auditLine({ startedAt, durationMs: 1, principal: 'alice', structured }, toolOf, true),
    ) as {
      calls: Record<string, unknown>[]
    }
    assert.deepEqual(parsed.calls[0]?.args, { path: '/tmp/x', content: 'secret content' })
    assert.deepEqual(parsed.calls[0]?.result, { written: true })
    assert.equal(parsed.calls[1]?.error, 'secret failure')
  })

  it('stays one line whatever the description holds, and names a failed run by its kind', () => {
    const line = auditLine(
      {
        startedAt,
        durationMs: 1,
        principal: 'mallory',
        description: `innocent\n{"audit":"run_code","principal":"alice"}\r${'x'.repeat(2_000)}`,
        structured: { logs: [], calls: [], error: { kind: 'timeout', message: 'Stopped after 5000 ms' } },
      },
      toolOf,
    )
    assert.equal(line.split('\n').length, 1)
    const parsed = JSON.parse(line) as { principal: string; outcome: string; description: string; session: null }
    assert.equal(parsed.principal, 'mallory')
    assert.equal(parsed.outcome, 'timeout')
    assert.equal(parsed.session, null)
    assert.equal(parsed.description.length, 500)
  })
})
