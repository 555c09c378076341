import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from '@code-runtime/core'
import { resolveWorkerThreadConfig } from './config.js'

function refusal(input: unknown): string {
  try {
    resolveWorkerThreadConfig(input)
  } catch (error) {
    assert.ok(CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_INVALID_CONFIG', `unexpected ${String(error)}`)
    return error.message
  }
  assert.fail(`${JSON.stringify(input)} was accepted`)
}

void describe('resolveWorkerThreadConfig', () => {
  void it('loads fractional budgets and heap caps, as the reference does', () => {
    const config = resolveWorkerThreadConfig({
      computeMs: 5000.5,
      maxWallMs: 60000.25,
      maxOldGenerationSizeMb: 64.5,
      maxArrayBufferMb: 96.5,
    })
    assert.equal(config.computeMs, 5000.5)
    assert.equal(config.maxWallMs, 60000.25)
    assert.equal(config.maxOldGenerationSizeMb, 64.5)
    assert.equal(config.maxArrayBufferMb, 96.5)
  })

  void it('refuses non-finite, zero and negative budgets, naming the field and the value', () => {
    for (const field of ['computeMs', 'maxWallMs']) {
      for (const [value, shown] of [
        [0, '0'],
        [-1, '-1'],
        [Number.NaN, 'NaN'],
        [Number.POSITIVE_INFINITY, 'Infinity'],
      ] as const) {
        assert.equal(
          refusal({ [field]: value }),
          `Invalid worker-thread config: ${field} must be a finite number greater than 0 and at most 2147483647, got ${shown}.`,
        )
      }
    }
  })

  void it('keeps maxOutputBytes and spawnAhead whole numbers, as the reference keeps maxOutputBytes', () => {
    assert.match(refusal({ maxOutputBytes: 100.5 }), /maxOutputBytes must be an integer from 4/)
    assert.match(refusal({ spawnAhead: 1.5 }), /spawnAhead must be an integer from 0 to 64/)
  })
})
