import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { BootstrapFiles } from './bootstrap-files.js'
import { stagePackages } from './sandbox-staging.js'

describe('stagePackages', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'staging-test-'))
  const project = join(scratch, 'project')
  const write = (path: string, text: string): void => {
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, text)
  }
  write(join(project, 'packages/process/package.json'), '{"name":"@code-runtime/process"}')
  write(join(project, 'packages/process/dist/src/guest/child-entry.js'), 'entry')
  write(join(project, 'packages/process/dist/src/guest/child-entry.js.map'), 'map')
  write(join(project, 'packages/process/dist/src/index.d.ts'), 'types')
  write(join(project, 'packages/process/dist/other/skipped.js'), 'not a module folder')
  write(join(project, 'packages/core/package.json'), '{"name":"@code-runtime/core"}')
  write(join(project, 'packages/core/dist/src/json.js'), 'json')
  const files: BootstrapFiles = {
    nodePath: '/usr/bin/node',
    entryPackage: {
      name: '@code-runtime/process',
      root: join(project, 'packages/process'),
      lookupPath: undefined,
      moduleFolders: ['dist/src'],
    },
    entryModule: 'dist/src/guest/child-entry.js',
    dependencies: [
      {
        name: '@code-runtime/core',
        root: join(project, 'packages/core'),
        lookupPath: undefined,
        moduleFolders: ['dist/src'],
      },
    ],
  }
  after(() => rmSync(scratch, { recursive: true, force: true }))

  it("copies each package's package.json and module folders, without types or maps, into a neutral folder", async () => {
    const staged = await stagePackages(files, scratch)
    try {
      assert.match(basename(join(staged.modulesFolder, '..')), /^code-runtime-[A-Za-z0-9]{6}$/)
      assert.equal(staged.modulesFolder.includes('project'), false)
      const process = join(staged.modulesFolder, '@code-runtime/process')
      assert.equal(readFileSync(join(process, 'dist/src/guest/child-entry.js'), 'utf8'), 'entry')
      assert.deepEqual(readdirSync(join(process, 'dist/src/guest')), ['child-entry.js'])
      assert.deepEqual(readdirSync(join(process, 'dist')), ['src'])
      assert.deepEqual(readdirSync(join(process, 'dist/src')).sort(), ['guest'])
      assert.equal(readFileSync(join(staged.modulesFolder, '@code-runtime/core/dist/src/json.js'), 'utf8'), 'json')
      assert.equal(
        readFileSync(join(staged.modulesFolder, '@code-runtime/core/package.json'), 'utf8'),
        '{"name":"@code-runtime/core"}',
      )
    } finally {
      await staged.remove()
    }
    assert.equal(existsSync(join(staged.modulesFolder, '..')), false)
  })

  it('leaves nothing behind when the copy fails', async () => {
    const broken: BootstrapFiles = {
      ...files,
      dependencies: [{ ...files.dependencies[0]!, root: join(project, 'packages/missing') }],
    }
    const before = readdirSync(scratch).length
    await assert.rejects(stagePackages(broken, scratch))
    assert.equal(readdirSync(scratch).length, before)
  })
})
