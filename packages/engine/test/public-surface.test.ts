// The package's public surface, read through its exports map by package name, so an export or
// a subpath cannot appear or vanish unnoticed. Changing the surface means changing this file on
// purpose, and the README's API section with it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

async function exportsOf(specifier: string): Promise<string[]> {
  return Object.keys((await import(specifier)) as object).sort()
}

/** The specifiers a built module imports (type-only imports are gone from the built output). */
function importsOf(file: URL): string[] {
  const source = readFileSync(file, 'utf8')
  const pattern = /^(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/gm
  return [...source.matchAll(pattern)].map(match => match[1] as string)
}

describe('public surface of @code-runtime/engine', () => {
  it('exports exactly what a backend author builds on', async () => {
    assert.deepEqual(await exportsOf('@code-runtime/engine'), [
      'DEFAULT_IDLE_LIMITS',
      'GUEST_MODULE_URLS',
      'RunEngine',
      'runLimitsOf',
      'transformProgram',
    ])
  })

  it('exports exactly the guest runtime from /guest', async () => {
    assert.deepEqual(await exportsOf('@code-runtime/engine/guest'), [
      'GuestSession',
      'contextScriptCodeCaches',
      'hardenRealm',
      'installContextGuards',
      'rejectedContextScriptCodeCaches',
      'useContextScriptCodeCaches',
    ])
  })

  it('opens the host half, the guest half and the manifest, and ships no tests', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>
      files: string[]
    }
    assert.deepEqual(Object.keys(manifest.exports), ['.', './guest', './package.json'])
    assert.deepEqual(manifest.files, ['dist/src', '!dist/src/**/*.test.*'])
  })

  it('keeps the guest half within GUEST_MODULE_URLS: a backend that mounts only those can load it', async () => {
    const { GUEST_MODULE_URLS } = await import('@code-runtime/engine')
    const folders = GUEST_MODULE_URLS.map(url => fileURLToPath(url))
    const seen = new Set<string>()
    const outside: string[] = []
    const visit = (file: URL): void => {
      const path = fileURLToPath(file)
      if (seen.has(path)) return
      seen.add(path)
      if (!folders.some(folder => path.startsWith(folder))) outside.push(path)
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('.')) visit(new URL(specifier, file))
        else if (!specifier.startsWith('node:') && specifier !== '@code-runtime/core/json')
          outside.push(`${path} imports ${specifier}`)
      }
    }
    visit(new URL(import.meta.resolve('@code-runtime/engine/guest')))
    assert.ok(seen.size > 5, "the walk followed the guest runtime's imports")
    assert.deepEqual(outside, [])
  })
})
