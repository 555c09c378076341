import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from '@code-runtime/core'
import {
  DEFAULT_CONTAINER_CONFIG,
  DEFAULT_PROCESS_CONFIG,
  NODE_BASELINE_MEMORY_MB,
  nodeBaselineMemoryMb,
  resolveContainerConfig,
  resolveProcessConfig,
} from './config.js'

function assertInvalid(action: () => unknown, ...fragments: string[]): void {
  let caught: unknown
  try {
    action()
  } catch (error) {
    caught = error
  }
  assert.ok(CodeRuntimeError.is(caught), `expected a CodeRuntimeError, got ${String(caught)}`)
  assert.equal(caught.code, 'CODE_RUNTIME_INVALID_CONFIG')
  for (const fragment of fragments) assert.ok(caught.message.includes(fragment), `${caught.message} lacks ${fragment}`)
}

describe('resolveProcessConfig', () => {
  it('defaults every field like the worker-thread backend, plus the wire and memory limits', () => {
    assert.deepEqual(resolveProcessConfig(undefined), {
      computeMs: 60_000,
      maxWallMs: 600_000,
      maxOutputBytes: 67_108_864,
      maxLogEntries: 1_000_000,
      maxPendingCallBytes: 134_217_728,
      maxOldGenerationSizeMb: 512,
      spawnAhead: 1,
      maxSessions: 16,
      sessionIdleMs: 900_000,
      maxMessageBytes: 268_435_456,
      maxMemoryMb: 4096,
    })
    assert.deepEqual(resolveProcessConfig({}), DEFAULT_PROCESS_CONFIG)
  })

  it('returns a frozen object', () => {
    assert.ok(Object.isFrozen(resolveProcessConfig({ computeMs: 5 })))
  })

  it('names the field, the rule and the value', () => {
    assertInvalid(
      () => resolveProcessConfig({ computeMs: -5 }),
      'Invalid process config',
      'computeMs must be a finite number greater than 0 and at most 2147483647',
      '-5',
    )
    assertInvalid(
      () => resolveProcessConfig({ maxMessageBytes: 1000 }),
      'maxMessageBytes must be an integer from 1048576 to 536870912',
      '1000',
    )
    assertInvalid(() => resolveProcessConfig({ spawnAhead: 1.5 }), 'spawnAhead', '1.5')
    assertInvalid(() => resolveProcessConfig({ maxLogEntries: 0 }), 'maxLogEntries must be an integer from 1', '0')
    assertInvalid(
      () => resolveProcessConfig({ maxPendingCallBytes: 10 }),
      'maxPendingCallBytes must be an integer from 1024',
      '10',
    )
  })

  it('loads fractional budgets, as the reference does, and refuses non-finite, zero and negative ones', () => {
    const config = resolveProcessConfig({ computeMs: 5000.5, maxWallMs: 0.5 })
    assert.equal(config.computeMs, 5000.5)
    assert.equal(config.maxWallMs, 0.5)
    assert.equal(resolveContainerConfig({ computeMs: 5000.5 }).computeMs, 5000.5)
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assertInvalid(
        () => resolveProcessConfig({ computeMs: value }),
        'computeMs must be a finite number greater than 0',
      )
      assertInvalid(
        () => resolveContainerConfig({ maxWallMs: value }),
        'maxWallMs must be a finite number greater than 0',
      )
    }
  })

  it('refuses container-only fields and unknown fields', () => {
    assertInvalid(() => resolveProcessConfig({ maxProcesses: 10 }), 'unknown field "maxProcesses"')
    assertInvalid(() => resolveProcessConfig({ computeMS: 10 }), 'unknown field "computeMS"')
  })

  it('requires room for Node and the heap in maxMemoryMb', () => {
    const smallest = 512 + NODE_BASELINE_MEMORY_MB
    assertInvalid(
      () => resolveProcessConfig({ maxMemoryMb: smallest - 1 }),
      `maxMemoryMb must be an integer from ${smallest}`,
      String(smallest - 1),
    )
    assertInvalid(
      () => resolveProcessConfig({ maxOldGenerationSizeMb: 64, maxMemoryMb: 63 + NODE_BASELINE_MEMORY_MB }),
      `from ${64 + NODE_BASELINE_MEMORY_MB}`,
    )
    assert.equal(
      resolveProcessConfig({ maxOldGenerationSizeMb: 64, maxMemoryMb: 64 + NODE_BASELINE_MEMORY_MB }).maxMemoryMb,
      64 + NODE_BASELINE_MEMORY_MB,
    )
  })

  it('raises the default maxMemoryMb with a large heap', () => {
    assert.equal(resolveProcessConfig({ maxOldGenerationSizeMb: 8192 }).maxMemoryMb, 8192 + NODE_BASELINE_MEMORY_MB)
  })
})

describe('nodeBaselineMemoryMb', () => {
  it('gives each Node major the address space measured for it, and newer majors the newest', () => {
    assert.equal(nodeBaselineMemoryMb('20.18.0'), 1024)
    assert.equal(nodeBaselineMemoryMb('21.7.3'), 1088)
    assert.equal(nodeBaselineMemoryMb('22.12.0'), 1088)
    assert.equal(nodeBaselineMemoryMb('24.0.0'), 1536)
    assert.equal(nodeBaselineMemoryMb('26.1.0'), 1536)
  })

  it('is what the running Node uses', () => {
    assert.equal(NODE_BASELINE_MEMORY_MB, nodeBaselineMemoryMb(process.versions.node))
  })
})

describe('resolveContainerConfig', () => {
  it('adds the sandbox limits to the process defaults', () => {
    assert.deepEqual(resolveContainerConfig(undefined), {
      ...DEFAULT_PROCESS_CONFIG,
      maxProcesses: 64,
      tmpfsSizeMb: 64,
    })
    assert.deepEqual(resolveContainerConfig({}), DEFAULT_CONTAINER_CONFIG)
  })

  it('names the field, the rule and the value', () => {
    assertInvalid(
      () => resolveContainerConfig({ maxProcesses: 3 }),
      'Invalid container config',
      'maxProcesses must be an integer from 24 to 4096',
      '3',
    )
    assertInvalid(
      () => resolveContainerConfig({ tmpfsSizeMb: 0 }),
      'tmpfsSizeMb must be an integer from 1 to 65536',
      '0',
    )
    assertInvalid(() => resolveContainerConfig({ maxOutputBytes: 3 }), 'maxOutputBytes', '3')
  })
})
