import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchStarter } from './backends.js'
import { memoryRunCounts } from './measure-memory.js'
import { FULL_PLAN } from './measure.js'
import { keyedPerCaller } from './reuse-variants.js'

const RESULT: CodeRunResult = {
  logs: [],
  value: 1,
  usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 0 },
  calls: [],
}

function recordingStarter(seen: CodeRunRequest[]): BenchStarter {
  return {
    start: () =>
      Promise.resolve({
        run: request => {
          seen.push(request)
          return Promise.resolve(RESULT)
        },
        dispose: () => Promise.resolve(),
      }),
  }
}

describe('the reuse-key column', () => {
  it("sends one key per concurrent caller, the same key for a caller's every run", async () => {
    const seen: CodeRunRequest[] = []
    const runtime = await keyedPerCaller(recordingStarter(seen)).start({ reuseWorkers: true })
    for (const caller of [0, 1, 2, 3, 1, undefined]) await runtime.run({ program: 'return 1', bindings: [] }, caller)
    const keys = seen.map(request => request.reuseKey)
    assert.equal(new Set(keys.slice(0, 4)).size, 4, 'four callers, four tenants')
    assert.equal(keys[4], keys[1])
    assert.equal(keys[5], keys[0], 'a sampled run (no caller index) is caller 0')
    assert.equal(seen[0]?.program, 'return 1')
  })
})

describe('memory run counts', () => {
  it('take 10 000 runs where runs are fast and fewer with a fresh substrate per run', () => {
    assert.deepEqual(memoryRunCounts(FULL_PLAN, true), { firstRuns: 1_000, totalRuns: 10_000 })
    const fresh = memoryRunCounts(FULL_PLAN, false)
    assert.ok(fresh.firstRuns < fresh.totalRuns && fresh.totalRuns < 10_000)
  })
})
