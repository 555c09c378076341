import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeMessage, parseChildMessage, parseHostMessage, PeerProtocolError } from './peer-line-protocol.js'

describe("the line protocol with a peer's child process", () => {
  it('carries each host message through one line unchanged', () => {
    const messages = [
      { op: 'start', config: { computeMs: 1000 } },
      { op: 'run', id: 7, program: 'return "a\\nb"', isAbortable: false },
      { op: 'run', id: 8, program: 'return 1', isAbortable: true, reuseKey: 'tenant-3' },
      { op: 'abort', id: 8 },
    ] as const
    for (const message of messages) {
      const line = encodeMessage(message)
      assert.equal(line.indexOf('\n'), line.length - 1, 'one line, newline-terminated')
      assert.deepEqual(parseHostMessage(line.trimEnd()), message)
    }
  })

  it("carries the child's answers, a run's result included", () => {
    const result = {
      logs: ['x'],
      value: 1,
      usage: { wallMs: 2, busyMs: 1, bindingCalls: 0, outputBytes: 5 },
      calls: [],
    }
    assert.deepEqual(parseChildMessage(encodeMessage({ op: 'result', id: 3, result })), { op: 'result', id: 3, result })
    assert.deepEqual(parseChildMessage('{"op":"ready"}'), { op: 'ready' })
    assert.deepEqual(parseChildMessage('{"op":"failed","message":"no cordis"}'), { op: 'failed', message: 'no cordis' })
  })

  it('refuses a line that is no message, so a stray print cannot pass for a result', () => {
    for (const line of [
      '',
      'hello',
      '[1]',
      '{"op":"result","id":-1,"result":{}}',
      '{"op":"result","id":1}',
      '{"op":"nope"}',
      '{"op":"failed"}',
    ]) {
      assert.throws(() => parseChildMessage(line), PeerProtocolError, line)
    }
    for (const line of [
      '{"op":"run","id":1,"program":1,"isAbortable":false}',
      '{"op":"run","id":1,"program":"","isAbortable":false,"reuseKey":5}',
      '{"op":"run","id":1.5,"program":"","isAbortable":false}',
      '{"op":"run","id":1,"program":""}',
      '{"op":"start"}',
      '{"op":"abort"}',
    ]) {
      assert.throws(() => parseHostMessage(line), PeerProtocolError, line)
    }
  })
})
