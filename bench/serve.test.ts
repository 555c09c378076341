import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { renderServeSection, type ServeMeasurements } from './serve.js'
import { quantile, summarizeSamples } from './statistics.js'

function pings(values: number[]): ServeMeasurements['pingIdleMs'] {
  return {
    ...summarizeSamples(values),
    p99: quantile(
      [...values].sort((a, b) => a - b),
      0.99,
    ),
  }
}

const MEASURED: ServeMeasurements = {
  columns: [
    {
      name: 'defaults',
      args: [],
      directMs: summarizeSamples([1, 2, 3]),
      runOneMs: summarizeSamples([7, 8, 9]),
      directTenMs: summarizeSamples([20]),
      runTenMs: summarizeSamples([35]),
      firstRunMs: 400,
    },
    { name: '--backend container', failed: 'bubblewrap cannot create a user namespace here' },
  ],
  initializeMs: summarizeSamples([60, 80]),
  toolsListMs: summarizeSamples([900]),
  pingIdleMs: pings([0.5, 0.6]),
  pingDuringChecksMs: pings([1, 3]),
  rss: { calls: 1_000, startMiB: 100, endMiB: 105 },
  approvals: [
    { transport: 'http-2025', askedMs: summarizeSamples([9, 10, 11]), unaskedMs: summarizeSamples([6]) },
    { transport: 'http-2026', askedMs: summarizeSamples([14]), unaskedMs: summarizeSamples([6]) },
  ],
  cluster: {
    approvalSameNodeMs: summarizeSamples([30]),
    approvalOtherNodeMs: summarizeSamples([34]),
    sessionSameNodeMs: summarizeSamples([8]),
    sessionAlternatingMs: summarizeSamples([11]),
  },
}

describe('the serve section', () => {
  it('derives the overhead per run_code and per inner call from the medians', () => {
    const text = renderServeSection(MEASURED)
    // direct 2, one-call program 8: 6 over; ten-call program 35: (35 − 8) / 9 − 2 = 1 per inner call.
    assert.match(
      text,
      /^\| defaults \| 2\.00 ms \| 8\.00 ms \| 6\.00 ms \| 1\.00 ms \| 20\.0 \/ 35\.0 ms \(1\.75×\) \| 400 ms \|$/m,
    )
    assert.match(text, /spawn → `initialize` answered, median 70\.0 ms/)
    assert.match(text, /100\.0 MiB after the first 100, 105\.0 MiB at the end \(\+5\.0 %\)/)
  })

  it('gives what an approval adds in each revision: the asked run minus the same run unasked', () => {
    const text = renderServeSection(MEASURED)
    assert.match(text, /^\| 2025-11-25 \(elicitation\) \| 10\.0 ms \| 6\.00 ms \| 4\.00 ms \|$/m)
    assert.match(text, /^\| 2026-07-28 \(input_required, retry\) \| 14\.0 ms \| 6\.00 ms \| 8\.00 ms \|$/m)
  })

  it('gives what crossing to the other gateway node adds, for an approval and for a session run', () => {
    const text = renderServeSection(MEASURED)
    assert.match(text, /^\| approval: pause → retry → resume \| 30\.0 ms \| 34\.0 ms \| 4\.00 ms \|$/m)
    assert.match(text, /^\| a run in a session by handle \| 8\.00 ms \| 11\.0 ms \| 3\.00 ms \|$/m)
    assert.match(
      renderServeSection({ ...MEASURED, cluster: { failed: 'nats-server is not installed' } }),
      /Not measured: nats-server is not installed/,
    )
  })

  it('names a config it could not measure, and a section that could not run', () => {
    assert.match(renderServeSection(MEASURED), /^\| --backend container \| not measured: bubblewrap cannot/m)
    assert.match(
      renderServeSection({ failed: 'mcp-server-memory is not installed' }),
      /Not measured: mcp-server-memory/,
    )
  })
})
