// The package's public surface, read from the built entry (by package name, through the exports
// map) and the package manifest, so it cannot drift unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { CodeRuntimeError } from '@code-runtime/core'
import * as workerThread from '@code-runtime/worker-thread'

describe('@code-runtime/worker-thread public surface', () => {
  it('exports exactly the backend (also as default), its config resolver and defaults', () => {
    assert.deepEqual(Object.keys(workerThread).sort(), [
      'DEFAULT_WORKER_THREAD_CONFIG',
      'WorkerThreadCodeRuntime',
      'default',
      'resolveWorkerThreadConfig',
    ])
    assert.equal(workerThread.default, workerThread.WorkerThreadCodeRuntime)
  })

  it('opens only the root entry and the manifest, and ships no tests', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>
      files: string[]
    }
    assert.deepEqual(Object.keys(manifest.exports), ['.', './package.json'])
    assert.deepEqual(manifest.files, ['dist/src', '!dist/src/**/*.test.*'])
  })

  it('throws CODE_RUNTIME_INVALID_CONFIG from its resolver', () => {
    assert.throws(
      () => workerThread.resolveWorkerThreadConfig({ nope: 1 }),
      (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_INVALID_CONFIG',
    )
  })
})
