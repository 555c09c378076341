import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from './errors.js'
import {
  DUNDER_PATTERN,
  ECMASCRIPT_RESERVED_WORDS,
  PYTHON_RESERVED_WORDS,
  RESERVED_GLOBALS,
  RESERVED_MEMBER_NAME_PROPERTIES,
  validateBindings,
  validateRunRequest,
} from './binding-names.js'
import { MAX_REUSE_KEY_LENGTH, type CodeBindingFunction, type CodeRunRequest } from './types.js'

const noop: CodeBindingFunction = async () => null

/** Asserts that `action` throws a {@link CodeRuntimeError} with `code` and every fragment in its message. */
function assertRefused(action: () => unknown, code: string, ...fragments: string[]): CodeRuntimeError {
  let caught: unknown
  try {
    action()
  } catch (error) {
    caught = error
  }
  assert.ok(CodeRuntimeError.is(caught), `expected a CodeRuntimeError, got ${String(caught)}`)
  assert.equal(caught.code, code)
  for (const fragment of fragments) {
    assert.ok(
      caught.message.includes(fragment),
      `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(fragment)}`,
    )
  }
  return caught
}

function withGlobal(global: unknown): unknown[] {
  return [{ global, functions: { run: noop } }]
}

function withErrorClass(errorClass: unknown): unknown[] {
  return [{ global: 'tools', functions: { run: noop }, errorClass }]
}

void describe('validateBindings: accepted names [#names]', () => {
  for (const name of [
    'tools',
    'Tools',
    '_tools',
    'tools2',
    'a',
    'A_B_C',
    'process',
    'Math',
    'window',
    'print',
    '__x',
    'x__',
    '__x_',
  ]) {
    void it(`accepts the global ${JSON.stringify(name)}`, () => {
      const [namespace] = validateBindings(withGlobal(name))
      assert.equal(namespace?.global, name)
    })
  }

  void it('accepts an empty list of namespaces', () => {
    assert.deepEqual(validateBindings([]), [])
  })

  void it('accepts several namespaces with distinct globals and error classes', () => {
    const namespaces = validateBindings([
      {
        global: 'tools',
        functions: { search: noop },
        errorClass: { name: 'ToolError', memberNameProperty: 'toolName' },
      },
      {
        global: 'memory',
        functions: { read: noop },
        errorClass: { name: 'MemoryError', memberNameProperty: 'operation' },
      },
      { global: 'files', functions: {} },
    ])
    assert.deepEqual(
      namespaces.map(namespace => namespace.global),
      ['tools', 'memory', 'files'],
    )
    assert.deepEqual(namespaces[0]?.errorClass, { name: 'ToolError', memberNameProperty: 'toolName' })
    assert.equal(namespaces[2]?.errorClass, undefined)
    assert.equal(Object.hasOwn(namespaces[2] ?? {}, 'errorClass'), false)
  })

  for (const property of [
    'toolName',
    'x',
    '_',
    '__x',
    'x__',
    '__',
    '___',
    'name2',
    'Name',
    'MESSAGE',
    'member name',
    '$',
    'ünïcode',
  ]) {
    void it(`accepts the memberNameProperty ${JSON.stringify(property)}`, () => {
      const [namespace] = validateBindings(withErrorClass({ name: 'ToolError', memberNameProperty: property }))
      assert.equal(namespace?.errorClass?.memberNameProperty, property)
    })
  }

  void it('returns frozen copies that do not follow later changes to the input', () => {
    const functions: Record<string, CodeBindingFunction> = { search: noop }
    const errorClass = { name: 'ToolError', memberNameProperty: 'toolName' }
    const input = [{ global: 'tools', functions, errorClass }]
    const namespaces = validateBindings(input)
    functions['later'] = noop
    errorClass.name = 'Changed'
    input[0] = { global: 'other', functions, errorClass }
    assert.ok(Object.isFrozen(namespaces))
    assert.ok(Object.isFrozen(namespaces[0]))
    assert.ok(Object.isFrozen(namespaces[0]?.errorClass))
    assert.equal(namespaces[0]?.global, 'tools')
    assert.equal(namespaces[0]?.errorClass?.name, 'ToolError')
    assert.deepEqual([...(namespaces[0]?.functions.keys() ?? [])], ['search'])
  })
})

void describe('validateBindings: refused globals [#global-names]', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['not valid!', '[A-Za-z_][A-Za-z0-9_]*'],
    ['$tools', 'no $'],
    ['a$b', 'no $'],
    ['1tools', 'not starting with a digit'],
    ['9', 'not starting with a digit'],
    ['', 'must match'],
    ['tools-list', 'must match'],
    ['tööls', 'must match'],
    ['await', 'reserved word of JavaScript'],
    ['class', 'reserved word of JavaScript'],
    ['let', 'reserved word of JavaScript'],
    ['static', 'reserved word of JavaScript'],
    ['implements', 'reserved word of JavaScript'],
    ['arguments', 'reserved word of JavaScript'],
    ['eval', 'reserved word of JavaScript'],
    ['yield', 'reserved word of JavaScript'],
    ['lambda', 'reserved word of Python'],
    ['None', 'reserved word of Python'],
    ['nonlocal', 'reserved word of Python'],
    ['match', 'reserved word of Python'],
    ['case', 'reserved word of JavaScript'],
    ['type', 'reserved word of Python'],
    ['_', 'reserved word of Python'],
    ['undefined', 'read-only global'],
    ['NaN', 'read-only global'],
    ['Infinity', 'read-only global'],
    ['console', 'reserves for itself'],
    ['__dsh_main__', 'reserves for itself'],
    ['__builtins__', 'reserves for itself'],
    ['__name__', 'reserves for itself'],
    ['__debug__', 'reserves for itself'],
  ]
  for (const [name, rule] of cases) {
    void it(`refuses the global ${JSON.stringify(name)}`, () => {
      const error = assertRefused(
        () => validateBindings(withGlobal(name)),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].global',
        JSON.stringify(name),
        rule,
      )
      assert.equal(error.field, 'bindings[0].global')
      assert.equal(error.value, name)
      assert.equal(typeof error.rule, 'string')
    })
  }

  void it('refuses every word of the exported reserved sets as a global', () => {
    const everyName = [...ECMASCRIPT_RESERVED_WORDS, ...PYTHON_RESERVED_WORDS, ...RESERVED_GLOBALS]
    for (const name of everyName) {
      assertRefused(() => validateBindings(withGlobal(name)), 'CODE_RUNTIME_INVALID_BINDINGS', JSON.stringify(name))
    }
  })

  void it('refuses a global that is not a string', () => {
    for (const value of [undefined, null, 1, {}, ['tools']]) {
      assertRefused(
        () => validateBindings(withGlobal(value)),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].global',
        'must be a string',
      )
    }
  })

  void it('refuses a duplicate global and names the first holder', () => {
    const error = assertRefused(
      () =>
        validateBindings([
          { global: 'tools', functions: {} },
          { global: 'files', functions: {} },
          { global: 'tools', functions: {} },
        ]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[2].global',
      '"tools"',
      'already taken by bindings[0].global',
    )
    assert.equal(error.field, 'bindings[2].global')
  })
})

void describe('validateBindings: refused error classes [#error-class-names] [#member-name-property]', () => {
  void it('refuses an error-class name that breaks the global name rules', () => {
    for (const [name, rule] of [
      ['Tool Error', 'must match'],
      ['$Error', 'no $'],
      ['class', 'reserved word'],
      ['lambda', 'reserved word of Python'],
      ['console', 'reserves for itself'],
      ['__name__', 'reserves for itself'],
    ]) {
      assertRefused(
        () => validateBindings(withErrorClass({ name, memberNameProperty: 'toolName' })),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].errorClass.name',
        JSON.stringify(name),
        rule as string,
      )
    }
  })

  void it('refuses an error-class name equal to its own namespace global', () => {
    assertRefused(
      () =>
        validateBindings([
          { global: 'tools', functions: {}, errorClass: { name: 'tools', memberNameProperty: 'toolName' } },
        ]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].errorClass.name',
      '"tools"',
      'already taken by bindings[0].global',
    )
  })

  void it('refuses an error-class name equal to a later namespace global, blaming the error class', () => {
    assertRefused(
      () =>
        validateBindings([
          { global: 'tools', functions: {}, errorClass: { name: 'files', memberNameProperty: 'toolName' } },
          { global: 'files', functions: {} },
        ]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].errorClass.name',
      '"files"',
      'already taken by bindings[1].global',
    )
  })

  void it("refuses an error-class name equal to another namespace's error-class name", () => {
    assertRefused(
      () =>
        validateBindings([
          { global: 'tools', functions: {}, errorClass: { name: 'CallError', memberNameProperty: 'toolName' } },
          { global: 'files', functions: {}, errorClass: { name: 'CallError', memberNameProperty: 'operation' } },
        ]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[1].errorClass.name',
      '"CallError"',
      'already taken by bindings[0].errorClass.name',
    )
  })

  void it('refuses an errorClass that is not an object', () => {
    for (const value of [null, 'ToolError', 1, true]) {
      assertRefused(
        () => validateBindings(withErrorClass(value)),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].errorClass',
        'must be an object',
      )
    }
  })

  void it('refuses an error-class name or memberNameProperty that is not a string', () => {
    assertRefused(
      () => validateBindings(withErrorClass({ memberNameProperty: 'toolName' })),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].errorClass.name',
      'must be a string',
    )
    assertRefused(
      () => validateBindings(withErrorClass({ name: 'ToolError', memberNameProperty: 7 })),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].errorClass.memberNameProperty',
      'must be a string',
    )
  })

  void it('refuses an empty memberNameProperty', () => {
    assertRefused(
      () => validateBindings(withErrorClass({ name: 'ToolError', memberNameProperty: '' })),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].errorClass.memberNameProperty',
      '""',
      'must not be empty',
    )
  })

  for (const property of ['name', 'message', 'stack', 'args', 'with_traceback', 'add_note']) {
    void it(`refuses the memberNameProperty ${JSON.stringify(property)}`, () => {
      const error = assertRefused(
        () => validateBindings(withErrorClass({ name: 'ToolError', memberNameProperty: property })),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].errorClass.memberNameProperty',
        JSON.stringify(property),
        'errors need for themselves',
      )
      assert.equal(error.value, property)
    })
  }

  for (const property of ['__x__', '__init__', '____', '__class__', '__a b__']) {
    void it(`refuses the dunder memberNameProperty ${JSON.stringify(property)}`, () => {
      assertRefused(
        () => validateBindings(withErrorClass({ name: 'ToolError', memberNameProperty: property })),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].errorClass.memberNameProperty',
        JSON.stringify(property),
        'dunder',
      )
    })
  }

  void it('exports the refused member-name properties and the dunder pattern it applies', () => {
    assert.deepEqual([...RESERVED_MEMBER_NAME_PROPERTIES].sort(), [
      'add_note',
      'args',
      'message',
      'name',
      'stack',
      'with_traceback',
    ])
    assert.ok(DUNDER_PATTERN.test('__x__'))
    assert.ok(!DUNDER_PATTERN.test('__x'))
  })
})

void describe('validateBindings: members [#member-names]', () => {
  void it('keeps __proto__, constructor and toString as ordinary members', () => {
    const search: CodeBindingFunction = async () => 'search'
    const functions = JSON.parse('{"__proto__": 0, "constructor": 0, "toString": 0}') as Record<string, unknown>
    functions['__proto__'] = search // an own data property: it came from JSON.parse
    functions['constructor'] = noop
    functions['toString'] = noop
    const [namespace] = validateBindings([{ global: 'tools', functions }])
    assert.ok(namespace)
    assert.deepEqual([...namespace.functions.keys()].sort(), ['__proto__', 'constructor', 'toString'])
    assert.equal(namespace.functions.get('__proto__'), search)
    assert.equal(namespace.functions.has('hasOwnProperty'), false)
  })

  void it('accepts members from a null-prototype object and arbitrary member names', () => {
    const functions = Object.assign(Object.create(null) as Record<string, CodeBindingFunction>, {
      'get-user': noop,
      '': noop,
      '0': noop,
      'with space': noop,
      ünï: noop,
    })
    const [namespace] = validateBindings([{ global: 'tools', functions }])
    assert.deepEqual([...(namespace?.functions.keys() ?? [])].sort(), ['', '0', 'get-user', 'with space', 'ünï'])
  })

  void it('does not take inherited members', () => {
    const functions = Object.create({ inherited: noop }) as Record<string, CodeBindingFunction>
    functions['own'] = noop
    const [namespace] = validateBindings([{ global: 'tools', functions }])
    assert.deepEqual([...(namespace?.functions.keys() ?? [])], ['own'])
  })

  void it('accepts a member that is not a function and rejects only a call to it, without showing the value', async () => {
    const cases: readonly (readonly [unknown, string])[] = [
      [null, 'null'],
      [undefined, 'undefined'],
      [1, 'a number'],
      ['sk-secret', 'a string'],
      [{ key: 'sk-secret' }, 'an object'],
    ]
    for (const [member, kind] of cases) {
      const [namespace] = validateBindings([{ global: 'tools', functions: { search: member, echo: noop } }])
      assert.deepEqual([...(namespace?.functions.keys() ?? [])], ['search', 'echo'])
      const call = namespace?.functions.get('search')
      assert.equal(typeof call, 'function')
      await assert.rejects(
        async () => call?.({}),
        (error: unknown) => {
          assert.ok(error instanceof Error)
          assert.equal(
            error.message,
            `tools.search cannot be called: the host bound ${kind} to it, not a function. Use another member.`,
          )
          assert.ok(!error.message.includes('sk-secret'), 'the bound value stays on the host')
          return true
        },
      )
    }
  })

  void it('refuses a member defined by a getter', () => {
    const functions = {
      get search() {
        return noop
      },
    }
    assertRefused(
      () => validateBindings([{ global: 'tools', functions }]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].functions["search"]',
      'getter',
    )
  })

  void it('refuses a symbol-keyed member', () => {
    assertRefused(
      () => validateBindings([{ global: 'tools', functions: { [Symbol('search')]: noop } }]),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings[0].functions',
      'string keys',
    )
  })

  void it('refuses functions that are not an object of functions', () => {
    for (const functions of [undefined, null, [noop], noop, 'search']) {
      assertRefused(
        () => validateBindings([{ global: 'tools', functions }]),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0].functions',
        'must be an object of functions',
      )
    }
  })

  void it('refuses bindings that are not an array of namespace objects', () => {
    for (const bindings of [undefined, null, {}, 'tools', { length: 0 }]) {
      assertRefused(() => validateBindings(bindings), 'CODE_RUNTIME_INVALID_BINDINGS', 'bindings', 'must be an array')
    }
    for (const namespace of [null, 'tools', 3]) {
      assertRefused(
        () => validateBindings([namespace]),
        'CODE_RUNTIME_INVALID_BINDINGS',
        'bindings[0]',
        'must be an object',
      )
    }
  })
})

void describe('validateRunRequest [#request]', () => {
  void it('returns the program, the validated namespaces and the signal', () => {
    const controller = new AbortController()
    const request = validateRunRequest({
      program: 'return 1',
      bindings: [{ global: 'tools', functions: { search: noop } }],
      signal: controller.signal,
    })
    assert.equal(request.program, 'return 1')
    assert.equal(request.signal, controller.signal)
    assert.equal(request.namespaces[0]?.functions.get('search'), noop)
    assert.ok(Object.isFrozen(request))
  })

  void it('leaves the signal key absent when no signal is given', () => {
    const request = validateRunRequest({ program: '', bindings: [] })
    assert.equal(Object.hasOwn(request, 'signal'), false)
  })

  void it('refuses a request that is not an object', () => {
    for (const request of [undefined, null, 'return 1', 1]) {
      assertRefused(
        () => validateRunRequest(request as unknown as CodeRunRequest),
        'CODE_RUNTIME_INVALID_REQUEST',
        'expected an object',
      )
    }
  })

  void it('refuses a program that is not a string', () => {
    for (const program of [undefined, null, 1, ['return 1'], { source: 'return 1' }]) {
      const error = assertRefused(
        () => validateRunRequest({ program, bindings: [] } as unknown as CodeRunRequest),
        'CODE_RUNTIME_INVALID_REQUEST',
        'program must be a string',
      )
      assert.equal(error.field, 'program')
    }
  })

  void it('refuses a signal that is not an AbortSignal', () => {
    for (const signal of [null, true, { aborted: false }, new AbortController()]) {
      const error = assertRefused(
        () => validateRunRequest({ program: '', bindings: [], signal } as unknown as CodeRunRequest),
        'CODE_RUNTIME_INVALID_REQUEST',
        'signal must be an AbortSignal',
      )
      assert.equal(error.field, 'signal')
    }
  })

  void it('refuses missing or invalid bindings as invalid bindings', () => {
    assertRefused(
      () => validateRunRequest({ program: '' } as unknown as CodeRunRequest),
      'CODE_RUNTIME_INVALID_BINDINGS',
      'bindings',
    )
    assertRefused(
      () => validateRunRequest({ program: '', bindings: [{ global: 'await', functions: {} }] }),
      'CODE_RUNTIME_INVALID_BINDINGS',
      '"await"',
    )
  })

  void it('keeps a reuse key of 1 to MAX_REUSE_KEY_LENGTH characters and leaves it absent when none is given', () => {
    for (const reuseKey of ['a', 'tenant-42', 'é'.repeat(MAX_REUSE_KEY_LENGTH)]) {
      assert.equal(validateRunRequest({ program: '', bindings: [], reuseKey }).reuseKey, reuseKey)
    }
    assert.equal(Object.hasOwn(validateRunRequest({ program: '', bindings: [] }), 'reuseKey'), false)
  })

  void it('refuses a reuse key that is empty, too long or not a string', () => {
    for (const reuseKey of ['', 'k'.repeat(MAX_REUSE_KEY_LENGTH + 1), null, 42, ['a'], { key: 'a' }]) {
      const error = assertRefused(
        () => validateRunRequest({ program: '', bindings: [], reuseKey } as unknown as CodeRunRequest),
        'CODE_RUNTIME_INVALID_REQUEST',
        `reuseKey must be a non-empty string of at most ${MAX_REUSE_KEY_LENGTH} characters`,
      )
      assert.equal(error.field, 'reuseKey')
    }
  })
})
