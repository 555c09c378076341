import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { privateCompileCacheFolder } from './compile-cache.js'

const uid = process.getuid?.() ?? -1

describe('the compile cache folder', { skip: uid < 0 ? 'no user ids on this platform' : false }, () => {
  const parent = mkdtempSync(join(tmpdir(), 'compile-cache-test-'))
  after(() => rmSync(parent, { recursive: true, force: true }))

  it('is made private to the user (mode 0700) and found again', () => {
    const folder = privateCompileCacheFolder(parent, uid)
    assert.equal(folder, join(parent, `code-runtime-compile-cache-${uid}`))
    assert.equal(statSync(folder).mode & 0o777, 0o700)
    assert.equal(privateCompileCacheFolder(parent, uid), folder)
  })

  it('is refused once others may enter it, and left as it is', () => {
    const place = mkdtempSync(join(parent, 'open-'))
    const folder = join(place, `code-runtime-compile-cache-${uid}`)
    mkdirSync(folder)
    chmodSync(folder, 0o755)
    assert.equal(privateCompileCacheFolder(place, uid), undefined)
    assert.equal(statSync(folder).mode & 0o777, 0o755)
  })

  it('is refused when it is a link, even to a private folder', () => {
    const place = mkdtempSync(join(parent, 'link-'))
    const target = mkdtempSync(join(parent, 'target-'))
    chmodSync(target, 0o700)
    symlinkSync(target, join(place, `code-runtime-compile-cache-${uid}`))
    assert.equal(privateCompileCacheFolder(place, uid), undefined)
  })

  it('is refused when it belongs to another user', () => {
    assert.equal(privateCompileCacheFolder(parent, uid + 1), undefined)
  })
})

// Node 20 has no compile cache: there the command must simply run.
const nodeModule = (await import('node:module')).default as unknown as { enableCompileCache?: unknown }
const hasCompileCache = typeof nodeModule.enableCompileCache === 'function'

describe('code-runtime with the compile cache', () => {
  it(
    'fills the private folder under TMPDIR on a Node that has the cache, and runs either way',
    { skip: uid < 0 ? 'no user ids on this platform' : false },
    () => {
      const temporary = mkdtempSync(join(tmpdir(), 'compile-cache-cli-'))
      try {
        const cli = fileURLToPath(new URL('../cli.js', import.meta.url))
        const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temporary }
        delete env.NODE_COMPILE_CACHE
        delete env.NODE_DISABLE_COMPILE_CACHE
        const done = spawnSync(process.execPath, [cli, 'types', '--config', join(temporary, 'none.json')], {
          env,
          encoding: 'utf8',
        })
        // No such config: a usage failure, after the command's modules were loaded (and cached).
        assert.equal(done.status, 2, done.stderr)
        const folder = join(temporary, `code-runtime-compile-cache-${uid}`)
        if (!hasCompileCache) return
        assert.equal(statSync(folder).mode & 0o777, 0o700)
        assert.ok(readdirSync(folder).length > 0, 'the cache has entries')
      } finally {
        rmSync(temporary, { recursive: true, force: true })
      }
    },
  )
})
