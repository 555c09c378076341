import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from './errors.js'
import { MAX_TIMER_MS } from './config-fields.js'
import { DEFAULT_SHARED_BACKEND_CONFIG, readSharedBackendConfig } from './shared-backend-config.js'

function refusal(action: () => unknown): CodeRuntimeError {
  try {
    action()
  } catch (error) {
    assert.ok(CodeRuntimeError.is(error))
    return error
  }
  assert.fail('expected a refusal')
}

void describe('readSharedBackendConfig', () => {
  void it('defaults every shared field', () => {
    assert.deepEqual(readSharedBackendConfig('test', {}, { wholeHeapMb: true }), DEFAULT_SHARED_BACKEND_CONFIG)
    assert.equal(DEFAULT_SHARED_BACKEND_CONFIG.computeMs, 60_000)
    assert.equal(DEFAULT_SHARED_BACKEND_CONFIG.maxOutputBytes, 64 * 1024 * 1024)
    assert.equal(DEFAULT_SHARED_BACKEND_CONFIG.maxSessions, 16)
    assert.equal(DEFAULT_SHARED_BACKEND_CONFIG.sessionIdleMs, 900_000)
  })

  void it('takes fractional budgets and the bounds of every range', () => {
    const config = readSharedBackendConfig(
      'test',
      {
        computeMs: 5000.5,
        maxWallMs: MAX_TIMER_MS,
        maxOutputBytes: 4,
        maxLogEntries: 1,
        maxPendingCallBytes: 1024,
        maxOldGenerationSizeMb: 8,
        spawnAhead: 0,
        maxSessions: 0,
        sessionIdleMs: 0.5,
      },
      { wholeHeapMb: true },
    )
    assert.deepEqual(config, {
      computeMs: 5000.5,
      maxWallMs: MAX_TIMER_MS,
      maxOutputBytes: 4,
      maxLogEntries: 1,
      maxPendingCallBytes: 1024,
      maxOldGenerationSizeMb: 8,
      spawnAhead: 0,
      maxSessions: 0,
      sessionIdleMs: 0.5,
    })
  })

  void it('takes a fractional heap cap only when the substrate does', () => {
    assert.equal(
      readSharedBackendConfig('test', { maxOldGenerationSizeMb: 64.5 }, { wholeHeapMb: false }).maxOldGenerationSizeMb,
      64.5,
    )
    const error = refusal(() =>
      readSharedBackendConfig('process', { maxOldGenerationSizeMb: 64.5 }, { wholeHeapMb: true }),
    )
    assert.equal(error.field, 'maxOldGenerationSizeMb')
    assert.match(
      error.message,
      /^Invalid process config: maxOldGenerationSizeMb must be an integer from 8 to 65536, got 64\.5\.$/,
    )
  })

  void it('refuses values outside a range, naming the label, the field and the value', () => {
    for (const [field, value] of [
      ['computeMs', 0],
      ['maxWallMs', MAX_TIMER_MS + 1],
      ['maxOutputBytes', 3],
      ['maxLogEntries', 0],
      ['maxPendingCallBytes', 1023],
      ['spawnAhead', 65],
      ['maxSessions', -1],
      ['maxSessions', 1.5],
      ['sessionIdleMs', 0],
      ['sessionIdleMs', MAX_TIMER_MS + 1],
    ] as const) {
      const error = refusal(() => readSharedBackendConfig('worker-thread', { [field]: value }, { wholeHeapMb: false }))
      assert.equal(error.code, 'CODE_RUNTIME_INVALID_CONFIG')
      assert.equal(error.field, field)
      assert.ok(error.message.startsWith(`Invalid worker-thread config: ${field} must be`), error.message)
      assert.ok(error.message.endsWith(`got ${value}.`), error.message)
    }
  })
})
