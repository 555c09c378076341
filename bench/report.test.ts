import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FULL_PLAN, type Measurement } from './measure.js'
import { renderTable, type BenchResults, type ResultCell, type Subject } from './report.js'
import type { WorkloadName } from './workloads.js'

function rate(runsPerSecond: number): Measurement {
  const latencyMs = { count: 1, median: 1, p90: 1, min: 1, max: 1, mean: 1 }
  return {
    kind: 'rate',
    unit: 'runs/s',
    runsPerSecond,
    runs: 1,
    seconds: 1,
    callers: 4,
    latencyMs,
    cpuMsPerRun: 1,
    problems: { failedRuns: 0, reasons: [] },
  }
}

function resultsOf(subjects: Subject[], cells: ResultCell[], workloads: WorkloadName[]): BenchResults {
  return {
    machine: {
      date: '',
      node: 'v20',
      cpuModel: '',
      cores: 2,
      platform: '',
      totalMemoryGiB: 1,
      loadAverageAtStart: 0,
      loadAverageAtEnd: 0,
    },
    options: { isQuick: true, workloads, backends: ['worker-thread', 'process'] },
    plan: FULL_PLAN,
    workloadDescriptions: {},
    bigValue: undefined,
    pauseMs: 60,
    refillPauses: {},
    skippedBackends: [],
    floors: [],
    subjects,
    cells,
  }
}

const SUBJECTS: Subject[] = [
  { id: 'worker-thread', role: 'backend', backend: 'worker-thread' },
  { id: 'worker-thread cold', role: 'cold', backend: 'worker-thread' },
  { id: 'worker-thread reuse', role: 'reuse', backend: 'worker-thread' },
  { id: 'process', role: 'backend', backend: 'process' },
  { id: 'process cold', role: 'cold', backend: 'process' },
  { id: 'isolated-vm', role: 'peer' },
]

function rowsOf(table: string): string[][] {
  return table.split('\n').map(line =>
    line
      .split('|')
      .slice(1, -1)
      .map(cell => cell.trim()),
  )
}

describe("the table's reuse columns", () => {
  it('follow their backend, with their ratio to the isolated-vm peer; a backend without reuse gets none', () => {
    const cells: ResultCell[] = [
      { subject: 'worker-thread reuse', workload: 'throughput', measurement: rate(600) },
      { subject: 'isolated-vm', workload: 'throughput', measurement: rate(400) },
    ]
    const [header = [], , row = []] = rowsOf(renderTable(resultsOf(SUBJECTS, cells, ['throughput'])))
    const reuseAt = header.indexOf('worker-thread reuse')
    assert.deepEqual(header.slice(reuseAt, reuseAt + 3), [
      'worker-thread reuse',
      'worker-thread reuse / isolated-vm',
      'process',
    ])
    assert.equal(row[reuseAt], '600 runs/s')
    assert.equal(row[reuseAt + 1], '1.50×')
    assert.equal(
      header.filter(name => name.startsWith('process')).length,
      3,
      'process, process cold, process / cold: no reuse columns',
    )
  })

  it('leave a workload the reuse column does not run as a dash, not as a measurement or n/a', () => {
    const [header = [], , row = []] = rowsOf(renderTable(resultsOf(SUBJECTS, [], ['hotloop'])))
    assert.equal(row[header.indexOf('worker-thread reuse')], '—')
  })

  it('drop the ratio column when the isolated-vm peer is not in the run', () => {
    const [header = []] = rowsOf(
      renderTable(
        resultsOf(
          SUBJECTS.filter(subject => subject.role !== 'peer'),
          [],
          ['throughput'],
        ),
      ),
    )
    assert.ok(header.includes('worker-thread reuse'))
    assert.ok(!header.some(name => name.includes('/ isolated-vm')))
  })
})
