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
  readRecordField,
  readStringField,
  readStringListField,
  readStringRecordField,
} from './config-fields.js'
import {
  joinConfigPath,
  nestConfigLabel,
  refuseConfigField,
  type ConfigPlace,
  type ConfigRefusal,
} from './config-place.js'

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
    assert.ok(
      caught.message.includes(fragment),
      `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(fragment)}`,
    )
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
    const error = assertInvalidConfig(
      () => readConfigObject(LABEL, { computeMS: 5 }, KNOWN),
      'Invalid worker-thread config',
      'unknown field "computeMS"',
      'known fields are computeMs, maxWallMs, reuseWorkers, mode, name',
    )
    assert.equal(error.field, 'computeMS')
    assert.ok(error.message.includes('unknown field "computeMS" (did you mean "computeMs"?)'), error.message)
  })

  void it('refuses a key that only an Object.prototype method has', () => {
    assertInvalidConfig(() => readConfigObject(LABEL, { toString: 1 }, KNOWN), 'unknown field "toString"')
    assertInvalidConfig(
      () => readConfigObject(LABEL, JSON.parse('{"__proto__": 1}'), KNOWN),
      'unknown field "__proto__"',
    )
  })

  void it('refuses a config that is not a plain object', () => {
    class Options {
      computeMs = 5
    }
    for (const input of [5, 'computeMs=5', true, [1, 2], new Map([['computeMs', 5]]), new Date(0), new Options()]) {
      assertInvalidConfig(
        () => readConfigObject(LABEL, input, KNOWN),
        'Invalid worker-thread config',
        'expected a plain object',
      )
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
    assert.equal(
      error.message,
      'Invalid worker-thread config: computeMs must be an integer from 1 to 2147483647, got -5.',
    )
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
      assertInvalidConfig(
        () => readIntegerField(LABEL, { computeMs: value }, 'computeMs', rule),
        'computeMs must be an integer from 1 to 2147483647',
        shown,
      )
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
    assert.equal(
      error.message,
      'Invalid worker-thread config: computeMs must be a finite number greater than 0 and at most 2147483647, got 0.',
    )
    assert.equal(error.rule, 'must be a finite number greater than 0 and at most 2147483647')
    assertInvalidConfig(
      () => readNumberField(LABEL, { heap: 7.5 }, 'heap', { default: 512, min: 8, max: 65_536 }),
      'heap must be a finite number from 8 to 65536, got 7.5',
    )
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
      assertInvalidConfig(
        () => readNumberField(LABEL, { computeMs: value }, 'computeMs', budget),
        'computeMs must be a finite number greater than 0',
        shown,
      )
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
    for (const [value, shown] of [
      [1, 'got 1'],
      ['true', 'got "true"'],
      [null, 'got null'],
    ] as const) {
      assertInvalidConfig(
        () => readBooleanField(LABEL, { reuseWorkers: value }, 'reuseWorkers', false),
        'Invalid worker-thread config: reuseWorkers must be true or false',
        shown,
      )
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
    for (const [value, shown] of [
      ['FAST', 'got "FAST"'],
      ['', 'got ""'],
      [1, 'got 1'],
    ] as const) {
      assertInvalidConfig(
        () => readOneOfField(LABEL, { mode: value }, 'mode', choices, 'safe'),
        'Invalid worker-thread config: mode must be one of "fast", "safe"',
        shown,
      )
    }
  })
})

void describe('readStringField [#invalid-config]', () => {
  void it('returns a non-empty string or the default', () => {
    assert.equal(readStringField(LABEL, {}, 'name', 'runtime'), 'runtime')
    assert.equal(readStringField(LABEL, { name: 'mine' }, 'name', 'runtime'), 'mine')
  })

  void it('refuses an empty string or a non-string', () => {
    for (const [value, shown] of [
      ['', 'got ""'],
      [3, 'got 3'],
      [['a'], 'got an array'],
    ] as const) {
      assertInvalidConfig(
        () => readStringField(LABEL, { name: value }, 'name', 'runtime'),
        'Invalid worker-thread config: name must be a non-empty string',
        shown,
      )
    }
  })
})

void describe("readers at a place of the caller's own", () => {
  class FileError extends Error {
    readonly refusal: ConfigRefusal
    constructor(refusal: ConfigRefusal) {
      super(`servers.json: ${refusal.text}.`)
      this.refusal = refusal
    }
  }
  const root: ConfigPlace = { refuse: refusal => new FileError(refusal) }
  const server = nestConfigLabel(nestConfigLabel(root, 'mcpServers'), 'files')

  function refusalOf(action: () => unknown): FileError {
    try {
      action()
    } catch (error) {
      assert.ok(error instanceof FileError, `expected the place's error, got ${String(error)}`)
      return error
    }
    assert.fail('expected a refusal')
  }

  void it("names the whole path of a nested field and throws the place's error", () => {
    const error = refusalOf(() =>
      readIntegerField(server, { timeoutMs: 0 }, 'timeoutMs', { min: 1, max: 10, unit: 'milliseconds' }),
    )
    assert.equal(
      error.message,
      'servers.json: mcpServers.files.timeoutMs must be an integer from 1 to 10 (milliseconds), got 0.',
    )
    assert.equal(error.refusal.field, 'mcpServers.files.timeoutMs')
    assert.equal(error.refusal.value, 0)
  })

  void it('writes keys that are not identifiers, and list indexes, as a reader of the file would', () => {
    assert.equal(joinConfigPath('mcpServers', 'my server'), 'mcpServers["my server"]')
    assert.equal(joinConfigPath('args', '2'), 'args[2]')
    assert.equal(joinConfigPath(undefined, 'my server'), 'my server')
    const error = refusalOf(() => readStringListField(server, { args: ['a', 3] }, 'args', []))
    assert.equal(error.refusal.field, 'mcpServers.files.args[1]')
    assert.match(error.message, /args\[1\] must be a string, got 3\.$/)
  })

  void it('treats a field without a default as required', () => {
    assert.match(
      refusalOf(() => readStringField(server, {}, 'command')).message,
      /mcpServers\.files\.command must be a non-empty string, got undefined\.$/,
    )
    assert.match(
      refusalOf(() => readIntegerField(server, {}, 'n', { min: 1, max: 2 })).message,
      /n must be an integer from 1 to 2, got undefined/,
    )
  })

  void it('reads string lists and records as frozen copies, or their defaults', () => {
    const input = ['x']
    const list = readStringListField(root, { args: input }, 'args', [])
    input.push('later')
    assert.deepEqual(list, ['x'])
    assert.ok(Object.isFrozen(list))
    assert.equal(readStringListField(root, {}, 'include', undefined), undefined)
    const env = readStringRecordField(root, { env: { A: '1' } }, 'env', {})
    assert.deepEqual(env, { A: '1' })
    assert.ok(Object.isFrozen(env))
    assert.match(
      refusalOf(() => readStringRecordField(server, { env: { A: 1 } }, 'env', {})).message,
      /mcpServers\.files\.env\.A must be a string, got 1\./,
    )
    assert.match(
      refusalOf(() => readStringRecordField(server, { env: ['A=1'] }, 'env', {})).message,
      /env must be an object of string values, got an array\./,
    )
  })

  void it('reads a nested record that must be present, refusing unknown keys with a suggestion', () => {
    assert.deepEqual(readRecordField(root, { mcpServers: { files: {} } }, 'mcpServers'), { files: {} })
    assert.match(
      refusalOf(() => readRecordField(root, {}, 'mcpServers', { expected: 'an object of servers by name' })).message,
      /^servers\.json: mcpServers must be an object of servers by name, got undefined\.$/,
    )
    const error = refusalOf(() =>
      readRecordField(nestConfigLabel(root, 'mcpServers'), { files: { comand: 'x' } }, 'files', {
        knownFields: ['command', 'args'],
      }),
    )
    assert.equal(
      error.message,
      'servers.json: mcpServers.files has an unknown field "comand" (did you mean "command"?); known fields are command, args.',
    )
    assert.equal(error.refusal.field, 'mcpServers.files.comand')
  })

  void it('lets a caller refuse a rule of its own in the same words', () => {
    const error = refusalOf(() => refuseConfigField(server, 'type', 'must be "stdio" or "http"', 'sse'))
    assert.equal(error.message, 'servers.json: mcpServers.files.type must be "stdio" or "http", got "sse".')
  })
})
