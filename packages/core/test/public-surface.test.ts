// Guards the public surface of @code-runtime/core: the built root entry, imported by
// package name through the exports map, must export exactly this list, and the README must
// document every export, error code and failure kind. Changing the surface means changing this
// file on purpose.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import vm from 'node:vm'
import * as core from '@code-runtime/core'
import { CODE_RUN_FAILURE_KINDS, CodeRuntimeError } from '@code-runtime/core'
import * as internal from '@code-runtime/core/internal'
import * as json from '@code-runtime/core/json'

// The root: the seam, its vocabulary, its errors and startCodeRuntime.
const VALUE_EXPORTS = [
  'CODE_RUN_FAILURE_KINDS',
  'CODE_RUNTIME_SERVICE_NAME',
  'CodeRuntime',
  'CodeRuntimeError',
  'CodeRuntimeFamilyError',
  'DEFAULT_MAX_KEPT_NAMES',
  'MAX_REUSE_KEY_LENGTH',
  'startCodeRuntime',
]

const TYPE_EXPORTS = [
  'CodeBindingCall',
  'CodeBindingCallOutcome',
  'CodeBindingCallRecord',
  'CodeBindingErrorClass',
  'CodeBindingFunction',
  'CodeBindingNamespace',
  'CodeJsonValue',
  'CodeRunBudget',
  'CodeRunFailure',
  'CodeRunFailureFacts',
  'CodeRunFailureKind',
  'CodeRunOutcome',
  'CodeRunRequest',
  'CodeRunResult',
  'CodeRunSessionEnd',
  'CodeRuntimeBackend',
  'CodeRuntimeErrorCode',
  'CodeRuntimeErrorDetails',
  'CodeRuntimeFamilyErrorDetails',
  'CodeRuntimeIsolation',
  'CodeRuntimeLanguage',
  'CodeRunUsage',
  'StartedCodeRuntime',
]

// The door for backends and the project's own packages: validation, config readers, object checks.
const INTERNAL_VALUE_EXPORTS = [
  'BINDING_NAME_PATTERN',
  'configPlaceOf',
  'DEFAULT_SHARED_BACKEND_CONFIG',
  'describeValue',
  'DUNDER_PATTERN',
  'ECMASCRIPT_READONLY_GLOBALS',
  'ECMASCRIPT_RESERVED_WORDS',
  'isObjectRecord',
  'isPlainObject',
  'joinConfigPath',
  'MAX_TIMER_MS',
  'nestConfigLabel',
  'PROGRAM_GLOBALS',
  'PYTHON_RESERVED_WORDS',
  'readBooleanField',
  'readConfigObject',
  'readIntegerField',
  'readNumberField',
  'readOneOfField',
  'readRecordField',
  'readSharedBackendConfig',
  'readStringField',
  'readStringListField',
  'readStringRecordField',
  'refuseConfigField',
  'refuseUnknownConfigFields',
  'RESERVED_GLOBALS',
  'sessionLimitError',
  'thrownMessage',
  'timerDelayMs',
  'unescapeJsonPointerSegment',
  'validateBindings',
  'validateRunRequest',
  'WITHHELD_PROGRAM_GLOBALS',
]

const INTERNAL_TYPE_EXPORTS = [
  'ConfigLabel',
  'ConfigPlace',
  'ConfigRecord',
  'ConfigRefusal',
  'IntegerFieldRule',
  'NumberFieldRule',
  'RecordFieldRule',
  'SharedBackendConfig',
  'SharedBackendConfigOptions',
  'ValidatedNamespace',
  'ValidatedRunRequest',
]

// The cordis-free subpath that sandboxes and backends load: lossless JSON and the output ledger only.
const JSON_SUBPATH_EXPORTS = [
  'OutputLedger',
  'formatLosslessJsonRefusal',
  'isLosslessJson',
  'jsonStringByteLength',
  'jsonValueByteLength',
  'logsByteLength',
  'safeLosslessJsonText',
  'safeSnapshotLosslessJson',
  'snapshotLosslessJson',
  'stringifyJsonValue',
]

// Named `type X` in the declarations (`CodeJsonValue`, re-exported in an `export type {}` list, is the root's).
const JSON_SUBPATH_TYPE_EXPORTS = [
  'LosslessJsonOptions',
  'LosslessJsonRefusal',
  'LosslessJsonSnapshot',
  'LosslessJsonText',
  'OutputLedgerOptions',
]

const ERROR_CODES = [
  'CODE_RUNTIME_DISPOSED',
  'CODE_RUNTIME_INVALID_BINDINGS',
  'CODE_RUNTIME_INVALID_CONFIG',
  'CODE_RUNTIME_INVALID_REQUEST',
  'CODE_RUNTIME_NOT_LOSSLESS_JSON',
  'CODE_RUNTIME_SESSIONS_UNSUPPORTED',
  'CODE_RUNTIME_SESSION_CLOSED',
  'CODE_RUNTIME_SESSION_LIMIT',
  'CODE_RUNTIME_SESSION_START_FAILED',
  'CODE_RUNTIME_UNAVAILABLE',
]

const FAILURE_KINDS = ['exception', 'timeout', 'abort', 'worker-exit', 'invalid-output', 'output-limit']

function readPackageFile(path: string): string {
  // This file runs from dist/test/; the package root is two levels up.
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
}

/** Every module `entry` loads, following its relative imports in the built output. */
function importClosure(entry: string): { files: string[]; packages: string[] } {
  const files: string[] = []
  const packages = new Set<string>()
  const pending = [new URL(`../../${entry}`, import.meta.url)]
  while (pending.length > 0) {
    const url = pending.pop() as URL
    if (files.includes(url.href)) continue
    files.push(url.href)
    const source = readFileSync(url, 'utf8')
    for (const match of source.matchAll(/^(?:import|export)\b[^'"]*?from\s*'([^']+)'|^import\s*'([^']+)'/gm)) {
      const specifier = (match[1] ?? match[2]) as string
      if (specifier.startsWith('.')) pending.push(new URL(specifier, url))
      else packages.add(specifier)
    }
  }
  return { files, packages: [...packages].sort() }
}

function uniqueMatches(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(pattern)].map(match => match[1] as string))].sort()
}

void describe('@code-runtime/core public surface', () => {
  void it('resolves the package name to the built root entry', () => {
    assert.ok(import.meta.resolve('@code-runtime/core').endsWith('/packages/core/dist/src/index.js'))
  })

  void it('exports exactly the listed values', () => {
    assert.deepEqual(Object.keys(core).sort(), [...VALUE_EXPORTS].sort())
  })

  void it('declares exactly the listed types and values in its built declarations', () => {
    const declarations = readPackageFile('dist/src/index.d.ts')
    assert.deepEqual(uniqueMatches(declarations, /\btype (\w+)/g), [...TYPE_EXPORTS].sort())
    assert.doesNotMatch(declarations, /export \*/)
  })

  void it('exports exactly the listed values and types from the internal subpath, none of them also at the root', () => {
    assert.deepEqual(Object.keys(internal).sort(), [...INTERNAL_VALUE_EXPORTS].sort())
    const declarations = readPackageFile('dist/src/internal.d.ts')
    assert.deepEqual(uniqueMatches(declarations, /\btype (\w+)/g), [...INTERNAL_TYPE_EXPORTS].sort())
    assert.doesNotMatch(declarations, /export \*/)
    const atRoot = new Set([...VALUE_EXPORTS, ...TYPE_EXPORTS])
    assert.deepEqual(
      [...INTERNAL_VALUE_EXPORTS, ...INTERNAL_TYPE_EXPORTS].filter(name => atRoot.has(name)),
      [],
    )
  })

  void it('has exactly the listed error codes', () => {
    assert.deepEqual(uniqueMatches(readPackageFile('dist/src/errors.d.ts'), /'(CODE_RUNTIME_[A-Z_]+)'/g), ERROR_CODES)
  })

  void it('lists the failure kinds in order and freezes the list', () => {
    assert.deepEqual(CODE_RUN_FAILURE_KINDS, FAILURE_KINDS)
    assert.ok(Object.isFrozen(CODE_RUN_FAILURE_KINDS))
  })

  void it('maps only the root, the internal, json and conformance subpaths and package.json', () => {
    const manifest = JSON.parse(readPackageFile('package.json')) as {
      type: string
      exports: Record<string, unknown>
      files: string[]
      engines: { node: string }
    }
    assert.equal(manifest.type, 'module')
    assert.deepEqual(Object.keys(manifest.exports).sort(), [
      '.',
      './conformance',
      './internal',
      './json',
      './package.json',
    ])
    assert.ok(manifest.files.includes('!dist/src/**/*.test.*'), 'compiled unit tests stay out of the package')
    assert.ok(!manifest.files.some(entry => entry.startsWith('dist/test') || entry.startsWith('dist/examples')))
    assert.equal(manifest.engines.node, '^20.18.0 || ^22.8.0 || >=24.0.0')
  })

  void it('exports exactly lossless JSON and the ledger from the json subpath, none of them from another door', () => {
    assert.deepEqual(Object.keys(json).sort(), JSON_SUBPATH_EXPORTS)
    for (const name of JSON_SUBPATH_EXPORTS) assert.ok(!(name in core) && !(name in internal), name)
    assert.deepEqual(uniqueMatches(readPackageFile('dist/src/json.d.ts'), /\btype (\w+)/g), JSON_SUBPATH_TYPE_EXPORTS)
  })

  void it('keeps cordis out of the json subpath, so a sandbox can load it', () => {
    const { files, packages } = importClosure('dist/src/json.js')
    assert.ok(files.length > 1)
    assert.deepEqual(
      packages.filter(specifier => !specifier.startsWith('node:')),
      [],
    )
    assert.ok(
      importClosure('dist/src/index.js').packages.includes('@deepseek-ai/cordis'),
      'the closure walk finds cordis',
    )
  })

  void it('keeps cordis out of the internal subpath too: a sibling reads config without loading the seam', () => {
    assert.deepEqual(
      importClosure('dist/src/internal.js').packages.filter(specifier => !specifier.startsWith('node:')),
      [],
    )
  })

  void it('documents every export, error code and failure kind in the README', () => {
    const readme = readPackageFile('README.md')
    for (const name of [
      ...VALUE_EXPORTS,
      ...TYPE_EXPORTS,
      ...INTERNAL_VALUE_EXPORTS,
      ...INTERNAL_TYPE_EXPORTS,
      ...JSON_SUBPATH_EXPORTS,
      ...JSON_SUBPATH_TYPE_EXPORTS,
      ...ERROR_CODES,
    ]) {
      // `name`, `name(args)` or `Name<T>`, each at the start of an API line or table row.
      assert.ok(new RegExp(`(^- |^\\| )\`${name}[\`(<]`, 'm').test(readme), `README.md does not document \`${name}\``)
    }
    assert.ok(readme.includes('`@code-runtime/core/json`'), 'README.md does not document the json subpath')
    assert.ok(readme.includes('`@code-runtime/core/internal`'), 'README.md does not document the internal subpath')
    for (const kind of FAILURE_KINDS) {
      assert.ok(readme.includes(`\`${kind}\``), `README.md does not mention the failure kind \`${kind}\``)
    }
  })
})

void describe('CodeRuntimeError.is across realms and copies', () => {
  void it('recognises an error made by a second copy of the module, where instanceof fails', async () => {
    // A package loaded twice (two versions in node_modules) has two CodeRuntimeError classes.
    const copyUrl = new URL('../src/errors.js?second-copy', import.meta.url).href
    const copy = (await import(copyUrl)) as { CodeRuntimeError: typeof CodeRuntimeError }
    assert.notEqual(copy.CodeRuntimeError, CodeRuntimeError)
    const foreign = new copy.CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')
    assert.equal(foreign instanceof CodeRuntimeError, false)
    assert.equal(CodeRuntimeError.is(foreign), true)
    assert.equal(copy.CodeRuntimeError.is(new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'Disposed.')), true)
  })

  void it('recognises a branded error built in another vm realm', () => {
    const branded = vm.runInNewContext(`
      const error = new Error('from another realm')
      Object.defineProperty(error, Symbol.for('code-runtime.error'), { value: 'core' })
      error
    `) as unknown
    assert.equal(branded instanceof Error, false)
    assert.equal(CodeRuntimeError.is(branded), true)
  })

  void it('recognises our own error after it passed through another realm', () => {
    const error = new CodeRuntimeError('CODE_RUNTIME_UNAVAILABLE', 'Unavailable.')
    const returned = vm.runInNewContext('[error][0]', { error }) as unknown
    assert.equal(CodeRuntimeError.is(returned), true)
  })

  void it('does not recognise an unbranded error from another realm or a look-alike object', () => {
    assert.equal(CodeRuntimeError.is(vm.runInNewContext('new Error("x")')), false)
    assert.equal(CodeRuntimeError.is({ name: 'CodeRuntimeError', code: 'CODE_RUNTIME_DISPOSED', message: 'x' }), false)
    assert.equal(CodeRuntimeError.is(vm.runInNewContext('({ [Symbol("code-runtime.error")]: true })')), false)
  })
})
