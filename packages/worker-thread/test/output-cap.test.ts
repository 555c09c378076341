import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { logsByteLength, jsonStringByteLength } from '@code-runtime/core/json'
import { startWorkerRuntime } from './start.js'

describe('worker-thread output cap [#output-cap]', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  before(async () => {
    started = await startWorkerRuntime()
  })
  after(() => started.dispose())

  // 64 MiB = 67 108 864 bytes: "[]" (2) + the string's quotes (2) leave 67 108 860 characters.
  it('fits a returned string of 67 108 860 characters under the default 64 MiB cap', async () => {
    const result = await started.runtime.run({ program: "return 'x'.repeat(67_108_860)", bindings: [] })
    assert.equal(result.error, undefined)
    assert.equal((result.value as string).length, 67_108_860)
  })

  it('fails one character past the default cap with output-limit naming the cap', async () => {
    const result = await started.runtime.run({ program: "return 'x'.repeat(67_108_861)", bindings: [] })
    assert.equal(result.error?.kind, 'output-limit')
    assert.match(result.error?.message ?? '', /67108864 bytes \(maxOutputBytes\)/)
    assert.equal('value' in result, false)
  })

  it('keeps the logs that fit when a flood passes a small cap, never above the cap', async () => {
    const { runtime, dispose } = await startWorkerRuntime({ maxOutputBytes: 300 })
    try {
      const result = await runtime.run({
        program: "for (let i = 0; ; i++) console.log('line ' + i + ' €')",
        bindings: [],
      })
      assert.equal(result.error?.kind, 'output-limit')
      assert.ok(result.logs.length > 0)
      assert.equal(result.logs[0], 'line 0 €')
      const total = logsByteLength(result.logs) + jsonStringByteLength(result.error?.message ?? '')
      assert.ok(total <= 300, `total ${total} is above the cap`)
    } finally {
      await dispose()
    }
  })

  // The guest stops sending at the cap; if its count ran one byte ahead of the host's, the host
  // never saw the crossing line and the flood ended in a timeout instead. Every cap in a range
  // hits every alignment of line ends against the cap.
  it('ends a flood as output-limit at every cap in a range, never as a timeout', async () => {
    for (let cap = 60; cap < 90; cap++) {
      const { runtime, dispose } = await startWorkerRuntime({ maxOutputBytes: cap, computeMs: 5_000 })
      try {
        const result = await runtime.run({
          program: "for (let i = 0; ; i++) console.log('n' + (i % 10))",
          bindings: [],
        })
        assert.equal(result.error?.kind, 'output-limit', `cap ${cap}`)
        // A timeout over the cap also reads output-limit; the budget it used tells them apart.
        assert.ok(result.usage.busyMs < 5_000, `cap ${cap}: the flood ran into computeMs`)
      } finally {
        await dispose()
      }
    }
  })
})

describe('worker-thread tool results larger than the sandbox parses at once', () => {
  // The sandbox's JSON.parse refuses texts over 2 × 2^24 characters (a native walk the compute
  // budget could not stop); a tool result is read through it, so the program gets a call error
  // that says what happened and what to do, not an unexplained failure.
  it('rejects the call with a message naming the size and asking for less data', async () => {
    const { runtime, dispose } = await startWorkerRuntime()
    try {
      const huge = 'x'.repeat(40_000_000)
      const bindings = [{ global: 'tools', functions: { big: async () => huge, small: async () => 'ok' } }]
      const program = `
        let refusal
        try { await tools.big({}) } catch (error) { refusal = error.message }
        return { refusal, after: await tools.small({}) }`
      const result = await runtime.run({ program, bindings })
      assert.equal(result.error, undefined, result.error?.message)
      assert.deepEqual(result.value, {
        refusal:
          'The tool result (40000002 characters of JSON) is too large to read in the sandbox; ask the tool for less data.',
        after: 'ok',
      })
    } finally {
      await dispose()
    }
  })
})
