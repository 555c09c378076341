import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BenchUsageError, isFullRun, parseBenchOptions, SECTION_NAMES } from './cli-options.js'
import { WORKLOAD_NAMES } from './workloads.js'

const BACKENDS = ['worker-thread', 'process']

describe('bench options', () => {
  it('selects every workload and backend, and is a full run, without flags', () => {
    const options = parseBenchOptions([], BACKENDS)
    assert.deepEqual(options.workloads, WORKLOAD_NAMES)
    assert.deepEqual(options.sections, SECTION_NAMES)
    assert.deepEqual(options.backends, BACKENDS)
    assert.equal(isFullRun(options), true)
  })

  it('keeps report order whatever order --only names the workloads in', () => {
    const options = parseBenchOptions(['--only', 'throughput, trivial-b2b,trivial'], BACKENDS)
    assert.deepEqual(options.workloads, ['trivial', 'trivial-b2b', 'throughput'])
    assert.deepEqual(options.sections, [])
  })

  it('takes a section by name beside workloads, or alone', () => {
    assert.deepEqual(parseBenchOptions(['--only', 'typecheck,trivial'], BACKENDS).sections, ['typecheck'])
    const alone = parseBenchOptions(['--only', 'typecheck'], BACKENDS)
    assert.deepEqual([alone.workloads, alone.sections], [[], ['typecheck']])
  })

  it('never counts a quick or narrowed run as full, so it cannot replace the committed results', () => {
    assert.equal(isFullRun(parseBenchOptions(['--quick'], BACKENDS)), false)
    assert.equal(isFullRun(parseBenchOptions(['--only', 'trivial'], BACKENDS)), false)
    assert.equal(isFullRun(parseBenchOptions(['--backend', 'process'], BACKENDS)), false)
  })

  it('refuses an unknown workload, backend or flag with the names to choose from', () => {
    assert.throws(
      () => parseBenchOptions(['--only', 'trivia'], BACKENDS),
      (error: unknown) => error instanceof BenchUsageError && /'trivia'.*trivial-b2b/.test(error.message),
    )
    assert.throws(() => parseBenchOptions(['--backend', 'docker'], BACKENDS), BenchUsageError)
    assert.throws(() => parseBenchOptions(['--fast'], BACKENDS), BenchUsageError)
  })
})
