import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { listReadablePaths, locateBootstrapFiles } from './bootstrap-files.js'

describe('locateBootstrapFiles', () => {
  it("gives the real entry, a self-contained bundle, only its own folder and this package's manifest", () => {
    const files = locateBootstrapFiles()
    assert.equal(files.entryModule, 'dist/src/guest/child-entry.cjs')
    assert.deepEqual(files.entryPackage.moduleFolders, ['dist/src/guest'])
    assert.deepEqual(files.dependencies, [])
    const readable = listReadablePaths(files)
    assert.deepEqual(readable, [
      join(files.entryPackage.root, 'package.json'),
      join(files.entryPackage.root, 'dist', 'src', 'guest'),
    ])
    // Not the host half of this package, nor the engine or core.
    assert.ok(readable.every(path => !path.includes('engine') && !path.includes('core')))
    assert.ok(existsSync(join(files.entryPackage.root, files.entryModule)))
  })

  it("gives a test-only entry of plain modules the engine's guest half and core's JSON helpers too", () => {
    const files = locateBootstrapFiles(new URL('../test/fixtures/escaped-child-entry.js', import.meta.url))
    assert.deepEqual(
      files.dependencies.map(pkg => pkg.name),
      ['@code-runtime/engine', '@code-runtime/core'],
    )
    assert.ok(files.entryPackage.moduleFolders.includes('dist/src'))
  })

  it('refuses an entry outside this package', () => {
    assert.throws(
      () => locateBootstrapFiles(new URL('../../../engine/package.json', import.meta.url)),
      /must belong to @code-runtime\/process/,
    )
  })
})
