import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Measurement } from './measure.js'
import { formatAgainstFloor, formatAgainstSandboxFloor, msPerRun } from './report-floors.js'
import { summarizeSamples } from './statistics.js'

const NO_PROBLEMS = { failedRuns: 0, reasons: [] }

function samples(values: number[]): Measurement {
  return { kind: 'samples', unit: 'ms', summary: summarizeSamples(values), samples: values, problems: NO_PROBLEMS }
}

function rate(runsPerSecond: number): Measurement {
  const latencyMs = summarizeSamples([1])
  return {
    kind: 'rate',
    unit: 'runs/s',
    runsPerSecond,
    runs: 1,
    seconds: 1,
    callers: 1,
    latencyMs,
    cpuMsPerRun: 1,
    problems: NO_PROBLEMS,
  }
}

describe('ratios to the floors', () => {
  it("takes a sampled workload's median and a throughput's wall time per run", () => {
    assert.equal(msPerRun(samples([10, 30, 20])), 20)
    assert.equal(msPerRun(rate(50)), 20)
  })

  it('has no time per run for an empty, skipped or stalled measurement', () => {
    assert.equal(msPerRun(samples([])), undefined)
    assert.equal(msPerRun(rate(0)), undefined)
    assert.equal(msPerRun({ kind: 'skipped', reason: 'not built' }), undefined)
    assert.equal(msPerRun(undefined), undefined)
  })

  it('prints the value and its ratio to the floor, or a dash when either is missing', () => {
    assert.equal(formatAgainstFloor(45, 30), '45.0 ms = 1.50×')
    assert.equal(formatAgainstFloor(undefined, 30), '—')
    assert.equal(formatAgainstFloor(45, undefined), '—')
    assert.equal(formatAgainstFloor(45, 0), '—')
  })

  it('names the sandbox floor a cold run is against, and says when it could not be measured', () => {
    assert.equal(formatAgainstSandboxFloor(80, 'bare-bwrap-child', 64), '80.0 ms = 1.25× (bare-bwrap-child)')
    assert.equal(formatAgainstSandboxFloor(80, 'bare-bwrap-child', undefined), 'bare-bwrap-child not measured')
    assert.equal(formatAgainstSandboxFloor(80, undefined, 64), '—')
  })
})
