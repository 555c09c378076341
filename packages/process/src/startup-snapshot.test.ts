import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  isPrivatePath,
  openSnapshotFolder,
  pruneStaleBlobs,
  snapshotFileName,
  STALE_BLOB_MS,
  StartupSnapshot,
} from './startup-snapshot.js'

const uid = process.getuid?.() ?? 0

/** The build never holds the host's event loop; a test waiting for it must. */
async function settle(snapshot: StartupSnapshot | undefined): Promise<void> {
  const hold = setInterval(() => {}, 1_000)
  try {
    await snapshot?.settled
  } finally {
    clearInterval(hold)
  }
}
const scratch = mkdtempSync(join(tmpdir(), 'snapshot-unit-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

describe('snapshotFileName', () => {
  const spec = { nodePath: '/usr/bin/node', entryPath: '/pkg/child-entry.cjs', v8Flags: ['--max-old-space-size=64'] }

  it('changes with the Node version, the binary, the bundle path and text, and the V8 flags', () => {
    const base = snapshotFileName(spec, 'v20.0.0', 'bundle')
    assert.match(base, /^child-[0-9a-f]{32}\.blob$/)
    assert.equal(snapshotFileName(spec, 'v20.0.0', 'bundle'), base)
    const others = [
      snapshotFileName(spec, 'v22.0.0', 'bundle'),
      snapshotFileName({ ...spec, nodePath: '/opt/node' }, 'v20.0.0', 'bundle'),
      snapshotFileName({ ...spec, entryPath: '/other/child-entry.cjs' }, 'v20.0.0', 'bundle'),
      snapshotFileName(spec, 'v20.0.0', 'bundle changed'),
      snapshotFileName({ ...spec, v8Flags: ['--max-old-space-size=128'] }, 'v20.0.0', 'bundle'),
    ]
    assert.equal(new Set([base, ...others]).size, 6)
  })
})

describe('the private folder and its blobs', () => {
  it('makes the folder with mode 0700 and trusts it', () => {
    const parent = mkdtempSync(join(scratch, 'fresh-'))
    const folder = openSnapshotFolder(parent, uid)
    assert.equal(folder, join(parent, `code-runtime-snapshots-${uid}`))
    assert.equal(isPrivatePath(folder, uid, 'folder'), true)
  })

  it('refuses a folder others may enter, one of another user, and a symbolic link', () => {
    const opened = mkdtempSync(join(scratch, 'opened-'))
    mkdirSync(join(opened, `code-runtime-snapshots-${uid}`), { mode: 0o755 })
    chmodSync(join(opened, `code-runtime-snapshots-${uid}`), 0o755)
    assert.equal(openSnapshotFolder(opened, uid), undefined)

    const foreign = mkdtempSync(join(scratch, 'foreign-'))
    assert.equal(openSnapshotFolder(foreign, uid + 1), undefined, 'made by this user, so not private to another')

    const linked = mkdtempSync(join(scratch, 'linked-'))
    const target = mkdtempSync(join(scratch, 'target-'))
    chmodSync(target, 0o700)
    symlinkSync(target, join(linked, `code-runtime-snapshots-${uid}`))
    assert.equal(openSnapshotFolder(linked, uid), undefined)
  })

  it('trusts a blob only when it is a file of the user that nobody else may write', () => {
    const folder = mkdtempSync(join(scratch, 'blobs-'))
    const blob = join(folder, 'child.blob')
    writeFileSync(blob, 'x', { mode: 0o600 })
    assert.equal(isPrivatePath(blob, uid, 'file'), true)
    chmodSync(blob, 0o620)
    assert.equal(isPrivatePath(blob, uid, 'file'), false)
    chmodSync(blob, 0o602)
    assert.equal(isPrivatePath(blob, uid, 'file'), false)
    chmodSync(blob, 0o644)
    assert.equal(isPrivatePath(blob, uid, 'file'), true, 'others may read it: it holds nothing secret')
    assert.equal(isPrivatePath(blob, uid + 1, 'file'), false)
    assert.equal(isPrivatePath(join(folder, 'missing.blob'), uid, 'file'), false)
  })
})

describe('StartupSnapshot', () => {
  it('builds the blob in the background, then hands it out while it stays private', async () => {
    const entry = join(scratch, 'entry.cjs')
    writeFileSync(entry, "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {})")
    const parent = mkdtempSync(join(scratch, 'build-'))
    const snapshot = StartupSnapshot.prepare(
      { nodePath: process.execPath, entryPath: entry, v8Flags: ['--max-old-space-size=64'] },
      { parent, uid },
    )
    assert.ok(snapshot !== undefined)
    assert.equal(snapshot.usableBlob(), undefined, 'not before it is built')
    await settle(snapshot)
    const blob = snapshot.usableBlob()
    assert.ok(blob !== undefined)
    assert.equal(isPrivatePath(blob, uid, 'file'), true)
    chmodSync(blob, 0o666)
    assert.equal(snapshot.usableBlob(), undefined, 'opened to others: never used again')
  })

  it('gives up a blob that cannot be built, and removes one a child failed to start from', async () => {
    const broken = join(scratch, 'broken.cjs')
    writeFileSync(broken, "throw new Error('no snapshot of me')")
    const parent = mkdtempSync(join(scratch, 'broken-'))
    const failed = StartupSnapshot.prepare(
      { nodePath: process.execPath, entryPath: broken, v8Flags: [] },
      { parent, uid },
    )
    await settle(failed)
    assert.equal(failed?.usableBlob(), undefined)

    const entry = join(scratch, 'entry-drop.cjs')
    writeFileSync(entry, "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {})")
    const built = StartupSnapshot.prepare(
      { nodePath: process.execPath, entryPath: entry, v8Flags: [] },
      { parent, uid },
    )
    await settle(built)
    const blob = built?.usableBlob()
    assert.ok(blob !== undefined)
    assert.equal(built?.startFailed(undefined), false, 'a plain start failed: nothing to give up, no retry')
    assert.equal(built?.usableBlob(), blob)
    assert.equal(built?.startFailed(blob), true, 'a start from the blob failed: retry the plain way')
    assert.equal(built?.usableBlob(), undefined)
    assert.equal(isPrivatePath(blob, uid, 'file'), false, 'the file is gone')
  })
})

describe('pruneStaleBlobs', () => {
  it('removes blobs no runtime found for a week and old build leftovers, and nothing else', () => {
    const folder = mkdtempSync(join(scratch, 'prune-'))
    const now = Date.now()
    const aged = (name: string, ageMs: number): string => {
      const path = join(folder, name)
      writeFileSync(path, 'x', { mode: 0o600 })
      const at = new Date(now - ageMs)
      utimesSync(path, at, at)
      return path
    }
    const stale = aged(`child-${'a'.repeat(32)}.blob`, STALE_BLOB_MS + 60_000)
    const fresh = aged(`child-${'b'.repeat(32)}.blob`, STALE_BLOB_MS - 60_000)
    const leftover = aged(`child-${'c'.repeat(32)}.blob.1-2.partial`, 2 * 3_600_000)
    const building = aged(`child-${'d'.repeat(32)}.blob.1-3.partial`, 60_000)
    const other = aged('notes.txt', STALE_BLOB_MS * 2)
    pruneStaleBlobs(folder, uid, now)
    assert.deepEqual([stale, fresh, leftover, building, other].map(existsSync), [false, true, false, true, true])
  })
})
