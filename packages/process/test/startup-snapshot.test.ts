// The startup snapshot of the process and container backends seen from outside: children start from the blob once it
// is built, a blob that cannot start a child is given up without failing a run, a blob that is not
// the host user's own is never used nor touched, and a program cannot write the blob.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunEngine } from '@code-runtime/engine'
import { resolveContainerConfig, resolveProcessConfig } from '@code-runtime/process'
import { locateBootstrapFiles } from '../src/bootstrap-files.js'
import { SANDBOX_ROOT } from '../src/bubblewrap-args.js'
import { childV8Flags } from '../src/child-command.js'
import { createContainerEngine } from '../src/container-runtime.js'
import { createProcessEngine } from '../src/process-runtime.js'
import { openSnapshotFolder, snapshotFileName } from '../src/startup-snapshot.js'
import { startHookedRuntime } from './start.js'

const uid = process.getuid?.() ?? -1
const scratch = mkdtempSync(join(tmpdir(), 'snapshot-e2e-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

const config = resolveProcessConfig({ spawnAhead: 0 })

/**
 * A fresh place for blobs, its private folder, and the path the engine's blob will have there:
 * keyed by the bundle as the building Node reads it (the container's at its sandbox path).
 */
function freshPlace(
  backend: 'process' | 'container',
  maxOldGenerationSizeMb: number,
): { parent: string; folder: string; blob: string; name: string } {
  const parent = mkdtempSync(join(scratch, `${backend}-place-`))
  const folder = openSnapshotFolder(parent, uid)
  assert.ok(folder !== undefined)
  const files = locateBootstrapFiles()
  const bundlePath = `${files.entryPackage.root}/${files.entryModule}`
  const entryPath =
    backend === 'process' ? bundlePath : `${SANDBOX_ROOT}/node_modules/${files.entryPackage.name}/${files.entryModule}`
  const name = snapshotFileName(
    { nodePath: files.nodePath, entryPath, v8Flags: childV8Flags(maxOldGenerationSizeMb) },
    process.version,
    readFileSync(bundlePath),
  )
  return { parent, folder, blob: join(folder, name), name }
}

async function runTwice(engine: RunEngine): Promise<void> {
  for (const program of ['return 6 * 7', 'return typeof Function']) {
    const result = await engine.run({ program, bindings: [] })
    assert.deepEqual(result.value, program === 'return 6 * 7' ? 42 : 'function', JSON.stringify(result))
  }
}

/** Waits until `folder` holds `name`, or fails after `ms`. */
async function waitForFile(folder: string, name: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!readdirSync(folder).includes(name)) {
    assert.ok(Date.now() < deadline, `no ${name} in ${folder}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

describe('process backend: startup snapshot', { skip: uid < 0 ? 'needs a POSIX user id' : false }, () => {
  it('builds a private blob on the first start, and later runtimes start from it', async () => {
    const place = freshPlace('process', config.maxOldGenerationSizeMb)
    const first = createProcessEngine(config, undefined, { parent: place.parent, uid })
    try {
      await runTwice(first)
      await waitForFile(place.folder, place.name, 30_000)
      assert.equal(statSync(place.blob).mode & 0o777, 0o600)
    } finally {
      await first.dispose()
    }
    const second = createProcessEngine(config, undefined, { parent: place.parent, uid })
    try {
      await runTwice(second)
    } finally {
      await second.dispose()
    }
    assert.ok(statSync(place.blob).isFile(), 'a blob that starts children is kept')
  })

  it('gives up a corrupt blob: runs still succeed, and the file is removed', async () => {
    const place = freshPlace('process', config.maxOldGenerationSizeMb)
    writeFileSync(place.blob, 'not a snapshot', { mode: 0o600 })
    const engine = createProcessEngine(config, undefined, { parent: place.parent, uid })
    try {
      await runTwice(engine)
    } finally {
      await engine.dispose()
    }
    assert.equal(readdirSync(place.folder).includes(place.name), false)
  })

  it(
    'never uses nor touches a blob another user owns or others may write',
    { skip: uid !== 0 ? "changing a file's owner needs root" : false },
    async () => {
      const place = freshPlace('process', config.maxOldGenerationSizeMb)
      writeFileSync(place.blob, 'planted', { mode: 0o600 })
      chownSync(place.blob, 65534, 65534)
      const engine = createProcessEngine(config, undefined, { parent: place.parent, uid })
      try {
        await runTwice(engine)
      } finally {
        await engine.dispose()
      }
      assert.equal(readFileSync(place.blob, 'utf8'), 'planted')
      assert.equal(statSync(place.blob).uid, 65534)
    },
  )

  it("a program that escaped to the child's main realm cannot write the blob (the permission model grants no writes)", async () => {
    const place = freshPlace('process', config.maxOldGenerationSizeMb)
    writeFileSync(place.blob, 'blob', { mode: 0o600 })
    const escaped = await startHookedRuntime('process', 'escaped-child-entry', { config: { spawnAhead: 0 } })
    try {
      const result = await escaped.run({
        program: `try { require('node:fs').writeFileSync(${JSON.stringify(place.blob)}, 'poisoned'); return 'written' } catch (error) { return error.code }`,
        bindings: [],
      })
      assert.equal(result.value, 'ERR_ACCESS_DENIED', JSON.stringify(result))
    } finally {
      await escaped.dispose()
    }
    assert.equal(readFileSync(place.blob, 'utf8'), 'blob')
  })
})

describe('container backend: startup snapshot', { skip: uid < 0 ? 'needs a POSIX user id' : false }, () => {
  const containerConfig = resolveContainerConfig({ spawnAhead: 0 })

  const freshContainerPlace = (): ReturnType<typeof freshPlace> =>
    freshPlace('container', containerConfig.maxOldGenerationSizeMb)

  it('builds the blob inside the sandbox: it names no path of the project, and later sandboxes start from it', async () => {
    const place = freshContainerPlace()
    const first = await createContainerEngine(containerConfig, undefined, { parent: place.parent, uid })
    try {
      await runTwice(first.engine)
      await waitForFile(place.folder, place.name, 30_000)
      await runTwice(first.engine)
    } finally {
      await first.dispose()
    }
    const blob = readFileSync(place.blob).toString('latin1')
    const root = locateBootstrapFiles().entryPackage.root
    assert.equal(blob.includes(root), false, "the blob holds the sandbox's paths only")
    assert.equal(statSync(place.blob).mode & 0o777, 0o600)
  })

  it('gives up a corrupt blob: runs still succeed, and the file is removed', async () => {
    const place = freshContainerPlace()
    writeFileSync(place.blob, 'not a snapshot', { mode: 0o600 })
    const engine = await createContainerEngine(containerConfig, undefined, { parent: place.parent, uid })
    try {
      await runTwice(engine.engine)
    } finally {
      await engine.dispose()
    }
    assert.equal(readdirSync(place.folder).includes(place.name), false)
  })
})
