import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { CodeRuntimeError } from './errors.js'
import {
  readBooleanField,
  readConfigObject,
  readIntegerField,
  readNumberField,
  readOneOfField,
  readStringField,
} from './config-fields.js'

const LABEL = 'worker-thread'
const KNOWN = ['computeMs', 'maxWallMs', 'reuseWorkers', 'mode', 'name'] as const

function assertInvalidConfig(action: () => unknown, ...fragments: string[]): CodeRuntimeError {
  let caught: unknown
  try {
    action()
  } catch (error) {
    caught = error
  }
  assert.ok(CodeRuntimeError.is(caught), `expected a CodeRuntimeError, got ${String(caught)}`)
  assert.equal(caught.code, 'CODE_RUNTIME_INVALID_CONFIG')
  for (const fragment of fragments) {
    assert.ok(caught.message.includes(fragment), `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(fragment)}`)
  }
  return caught
}

void describe('readConfigObject [#invalid-config]', () => {
  void it('treats an absent config as all defaults', () => {
    assert.deepEqual(readConfigObject(LABEL, undefined, KNOWN), {})
    assert.deepEqual(readConfigObject(LABEL, null, KNOWN), {})
  })

  void it('returns the known fields it was given', () => {
    const config = readConfigObject(LABEL, { computeMs: 5, mode: 'fast' }, KNOWN)
    assert.deepEqual(config, { computeMs: 5, mode: 'fast' })
  })

  void it('refuses an unknown key and lists the known ones', () => {
    const error = assertInvalidConfig(() => readConfigObject(LABEL, { computeMS: 5 }, KNOWN),
      'Invalid worker-thread config', 'unknown field "computeMS"',
      'known fields are computeMs, maxWallMs, reuseWorkers, mode, name')
    assert.equal(error.field, 'computeMS')
  })

  void it('refuses a key that only an Object.prototype method has', () => {
    assertInvalidConfig(() => readConfigObject(LABEL, { toString: 1 }, KNOWN), 'unknown field "toString"')
    assertInvalidConfig(() => readConfigObject(LABEL, JSON.parse('{"__proto__": 1}'), KNOWN), 'unknown field "__proto__"')
  })

  void it('refuses a config that is not a plain object', () => {
    class Options {
      computeMs = 5
    }
    for (const input of [5, 'computeMs=5', true, [1, 2], new Map([['computeMs', 5]]), new Date(0), new Options()]) {
      assertInvalidConfig(() => readConfigObject(LABEL, input, KNOWN), 'Invalid worker-thread config', 'expected a plain object')
    }
  })

  void it('accepts a null-prototype object and a plain object from another realm', () => {
    const bare = Object.assign(Object.create(null) as object, { computeMs: 5 })
    assert.deepEqual(readConfigObject(LABEL, bare, KNOWN), { computeMs: 5 })
    assert.deepEqual(readConfigObject(LABEL, vm.runInNewContext('({ mode: "fast" })'), KNOWN), { mode: 'fast' })
  })
})

void describe('readIntegerField [#invalid-config]', () => {
  const rule = { default: 60_000, min: 1, max: 2_147_483_647 }

  void it('returns the default when the field is absent', () => {
    assert.equal(readIntegerField(LABEL, {}, 'computeMs', rule), 60_000)
    assert.equal(readIntegerField(LABEL, { computeMs: undefined }, 'computeMs', rule), 60_000)
  })

  void it('accepts both ends of the range', () => {
    assert.equal(readIntegerField(LABEL, { computeMs: 1 }, 'computeMs', rule), 1)
    assert.equal(readIntegerField(LABEL, { computeMs: 2_147_483_647 }, 'computeMs', rule), 2_147_483_647)
  })

  void it('names the field, the rule and the value received', () => {
    const error = assertInvalidConfig(() => readIntegerField(LABEL, { computeMs: -5 }, 'computeMs', rule))
    assert.equal(error.message, 'Invalid worker-thread config: computeMs must be an integer from 1 to 2147483647, got -5.')
    assert.equal(error.field, 'computeMs')
    assert.equal(error.value, -5)
    assert.equal(error.rule, 'must be an integer from 1 to 2147483647')
  })

  void it('refuses values outside the range or not integers, without clamping or rounding', () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [0, 'got 0'],
      [2_147_483_648, 'got 2147483648'],
      [1.5, 'got 1.5'],
      [Number.NaN, 'got NaN'],
      [Number.POSITIVE_INFINITY, 'got Infinity'],
      ['5000', 'got "5000"'],
      [null, 'got null'],
      [5000n, 'got 5000n'],
      [true, 'got true'],
    ]
    for (const [value, shown] of cases) {
      assertInvalidConfig(() => readIntegerField(LABEL, { computeMs: value }, 'computeMs', rule),
        'computeMs must be an integer from 1 to 2147483647', shown)
    }
  })
})

void describe('readNumberField [#invalid-config]', () => {
  const budget = { default: 60_000, min: 0, minIsExclusive: true, max: 2_147_483_647 }

  void it('returns the default when the field is absent', () => {
    assert.equal(readNumberField(LABEL, {}, 'computeMs', budget), 60_000)
  })

  void it('accepts fractions, as the reference does, and both ends of the range', () => {
    assert.equal(readNumberField(LABEL, { computeMs: 5000.5 }, 'computeMs', budget), 5000.5)
    assert.equal(readNumberField(LABEL, { computeMs: 0.25 }, 'computeMs', budget), 0.25)
    assert.equal(readNumberField(LABEL, { computeMs: 2_147_483_647 }, 'computeMs', budget), 2_147_483_647)
    assert.equal(readNumberField(LABEL, { heap: 8 }, 'heap', { default: 512, min: 8, max: 65_536 }), 8)
  })

  void it('names the field, the rule and the value received', () => {
    const error = assertInvalidConfig(() => readNumberField(LABEL, { computeMs: 0 }, 'computeMs', budget))
    assert.equal(error.message, 'Invalid worker-thread config: computeMs must be a finite number greater than 0 and at most 2147483647, got 0.')
    assert.equal(error.rule, 'must be a finite number greater than 0 and at most 2147483647')
    assertInvalidConfig(() => readNumberField(LABEL, { heap: 7.5 }, 'heap', { default: 512, min: 8, max: 65_536 }),
      'heap must be a finite number from 8 to 65536, got 7.5')
  })

  void it('refuses non-finite, zero, negative and out-of-range values and non-numbers', () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [0, 'got 0'],
      [-0, 'got -0'],
      [-1, 'got -1'],
      [-0.5, 'got -0.5'],
      [2_147_483_647.5, 'got 2147483647.5'],
      [Number.NaN, 'got NaN'],
      [Number.POSITIVE_INFINITY, 'got Infinity'],
      [Number.NEGATIVE_INFINITY, 'got -Infinity'],
      ['5000', 'got "5000"'],
      [null, 'got null'],
      [5000n, 'got 5000n'],
    ]
    for (const [value, shown] of cases) {
      assertInvalidConfig(() => readNumberField(LABEL, { computeMs: value }, 'computeMs', budget),
        'computeMs must be a finite number greater than 0', shown)
    }
  })
})

void describe('readBooleanField [#invalid-config]', () => {
  void it('returns the value or the default', () => {
    assert.equal(readBooleanField(LABEL, {}, 'reuseWorkers', true), true)
    assert.equal(readBooleanField(LABEL, { reuseWorkers: false }, 'reuseWorkers', true), false)
    assert.equal(readBooleanField(LABEL, { reuseWorkers: true }, 'reuseWorkers', false), true)
  })

  void it('refuses anything but true or false', () => {
    for (const [value, shown] of [[1, 'got 1'], ['true', 'got "true"'], [null, 'got null']] as const) {
      assertInvalidConfig(() => readBooleanField(LABEL, { reuseWorkers: value }, 'reuseWorkers', false),
        'Invalid worker-thread config: reuseWorkers must be true or false', shown)
    }
  })
})

void describe('readOneOfField [#invalid-config]', () => {
  const choices = ['fast', 'safe'] as const

  void it('returns a listed choice or the default', () => {
    assert.equal(readOneOfField(LABEL, {}, 'mode', choices, 'safe'), 'safe')
    assert.equal(readOneOfField(LABEL, { mode: 'fast' }, 'mode', choices, 'safe'), 'fast')
  })

  void it('refuses other values and lists the choices', () => {
    for (const [value, shown] of [['FAST', 'got "FAST"'], ['', 'got ""'], [1, 'got 1']] as const) {
      assertInvalidConfig(() => readOneOfField(LABEL, { mode: value }, 'mode', choices, 'safe'),
        'Invalid worker-thread config: mode must be one of "fast", "safe"', shown)
    }
  })
})

void describe('readStringField [#invalid-config]', () => {
  void it('returns a non-empty string or the default', () => {
    assert.equal(readStringField(LABEL, {}, 'name', 'runtime'), 'runtime')
    assert.equal(readStringField(LABEL, { name: 'mine' }, 'name', 'runtime'), 'mine')
  })

  void it('refuses an empty string or a non-string', () => {
    for (const [value, shown] of [['', 'got ""'], [3, 'got 3'], [['a'], 'got an array']] as const) {
      assertInvalidConfig(() => readStringField(LABEL, { name: value }, 'name', 'runtime'),
        'Invalid worker-thread config: name must be a non-empty string', shown)
    }
  })
})
