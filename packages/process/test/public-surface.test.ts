// The package's public surface, read from the built entry and the package manifest, so it
// cannot drift unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { CodeRuntimeError } from '@code-runtime/core'
import * as processPackage from '@code-runtime/process'

describe('@code-runtime/process public surface', () => {
  it('exports exactly the backends, their config resolvers and defaults', () => {
    assert.deepEqual(Object.keys(processPackage).sort(), [
      'ContainerCodeRuntime',
      'DEFAULT_CONTAINER_CONFIG',
      'DEFAULT_PROCESS_CONFIG',
      'NODE_BASELINE_MEMORY_MB',
      'ProcessCodeRuntime',
      'resolveContainerConfig',
      'resolveProcessConfig',
    ])
  })

  it('labels each backend', () => {
    assert.equal(processPackage.ProcessCodeRuntime.name, 'ProcessCodeRuntime')
    assert.equal(processPackage.ContainerCodeRuntime.name, 'ContainerCodeRuntime')
  })

  it('opens only the root entry and the manifest, and ships no tests or fixtures', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>
      files: string[]
    }
    assert.deepEqual(Object.keys(manifest.exports), ['.', './package.json'])
    assert.deepEqual(manifest.files, ['dist/src', '!dist/src/**/*.test.*'])
  })

  it('throws CODE_RUNTIME_INVALID_CONFIG from both resolvers', () => {
    for (const resolve of [processPackage.resolveProcessConfig, processPackage.resolveContainerConfig]) {
      assert.throws(
        () => resolve({ nope: 1 }),
        (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_INVALID_CONFIG',
      )
    }
  })
})
