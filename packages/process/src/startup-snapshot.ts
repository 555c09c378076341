/**
 * A startup snapshot of the child's guest bundle: Node restores the bundle's state from a blob
 * instead of compiling and running its top level in every child (measured on Node 20, 2 cores:
 * spawn to ready about 9 ms shorter, the bundle's whole cost). The blob is tied to the exact Node
 * binary and its V8 flags, so it is built here at run time, once per key, in the background; a
 * child starts the plain way until the blob exists, and again for good if a child started from it
 * fails.
 *
 * The blob is code that every later child runs, so it lives in a private folder of the host's user
 * (`code-runtime-snapshots-<uid>` under the system's temporary directory, mode 0700) and is used
 * only while the folder and the file are that user's and writable by nobody else. A child never
 * gets write access to it: the process backend's permission model grants no writes, the container
 * mounts it read-only.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

/** What a blob is built from; any change makes another blob. */
export interface SnapshotSpec {
  /** The Node binary that builds the blob and starts every child from it. */
  readonly nodePath: string
  /** The guest bundle, as the building process reads it (a sandbox path for the container). */
  readonly entryPath: string
  /** The guest bundle on the host, whose content is part of the key; {@link entryPath} by default. */
  readonly bundlePath?: string
  /** The V8 flags of the children: Node refuses a blob built under other V8 flags. */
  readonly v8Flags: readonly string[]
  /**
   * The command (program first) that builds the blob into `partialName` in the private `folder`;
   * by default {@link nodePath} on the host. The container builds inside its sandbox, so that the
   * blob holds the sandbox's paths only.
   */
  readonly buildCommand?: (folder: string, partialName: string) => readonly string[]
}

/** The blob's file name: a hash of Node's version and binary, the bundle's path and content, and the flags. */
export function snapshotFileName(spec: SnapshotSpec, nodeVersion: string, bundleText: string | Buffer): string {
  const hash = createHash('sha256')
  for (const part of [nodeVersion, spec.nodePath, spec.entryPath, ...spec.v8Flags]) hash.update(part).update('\0')
  hash.update(bundleText)
  return `child-${hash.digest('hex').slice(0, 32)}.blob`
}

/** True when `path` is a `kind` (never a symbolic link) owned by `uid` that no other user may write (or, for the folder, enter). */
export function isPrivatePath(path: string, uid: number, kind: 'folder' | 'file'): boolean {
  try {
    const stats = lstatSync(path)
    if (kind === 'folder' ? !stats.isDirectory() : !stats.isFile()) return false
    return stats.uid === uid && (stats.mode & (kind === 'folder' ? 0o077 : 0o022)) === 0
  } catch {
    return false
  }
}

/** The private folder of `uid`'s blobs under `parent`, made if missing; undefined when it is not private. */
export function openSnapshotFolder(parent: string, uid: number): string | undefined {
  const folder = join(parent, `code-runtime-snapshots-${uid}`)
  try {
    mkdirSync(folder, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
  }
  // Made by someone else, a link, or opened up: never trusted, and never repaired from here.
  return isPrivatePath(folder, uid, 'folder') ? folder : undefined
}

/** Where {@link StartupSnapshot.prepare} keeps blobs; tests pass their own. */
export interface SnapshotPlace {
  readonly parent: string
  readonly uid: number
}

/** How long building a blob may take before the plain start is kept for good, in milliseconds. */
const BUILD_TIMEOUT_MS = 60_000

/** One runtime's view of its blob: building, ready, or given up. */
export class StartupSnapshot {
  /** Settles once the blob is ready or given up (tests wait on it). */
  readonly settled: Promise<void>
  private readonly blobPath: string
  private readonly uid: number
  private state: 'building' | 'ready' | 'dropped' = 'building'

  private constructor(blobPath: string, uid: number, build: (() => Promise<boolean>) | undefined) {
    this.blobPath = blobPath
    this.uid = uid
    if (build === undefined) {
      this.state = 'ready'
      this.settled = Promise.resolve()
      return
    }
    this.settled = build().then(built => {
      if (this.state === 'building') this.state = built ? 'ready' : 'dropped'
    })
  }

  /**
   * Finds the blob for `spec` or starts building it in the background. Undefined when no private
   * folder can be had (the plain start is then the only one).
   */
  static prepare(
    spec: SnapshotSpec,
    place: SnapshotPlace = { parent: tmpdir(), uid: process.getuid?.() ?? -1 },
  ): StartupSnapshot | undefined {
    if (place.uid < 0) return undefined
    const folder = openSnapshotFolder(place.parent, place.uid)
    if (folder === undefined) return undefined
    let bundleText: Buffer
    try {
      bundleText = readFileSync(spec.bundlePath ?? spec.entryPath)
    } catch {
      return undefined
    }
    const blobPath = join(folder, snapshotFileName(spec, process.version, bundleText))
    if (isPrivatePath(blobPath, place.uid, 'file')) {
      markUsed(blobPath)
      return new StartupSnapshot(blobPath, place.uid, undefined)
    }
    return new StartupSnapshot(blobPath, place.uid, async () => {
      const built = await buildBlob(spec, folder, blobPath, place.uid)
      // Each Node, bundle build and heap cap leaves a blob of a few MiB: the unused ones go.
      if (built) pruneStaleBlobs(folder, place.uid, Date.now())
      return built
    })
  }

  /** The blob to start the next child from, or undefined: not built yet, given up, or no longer private. */
  usableBlob(): string | undefined {
    if (this.state !== 'ready') return undefined
    if (isPrivatePath(this.blobPath, this.uid, 'file')) return this.blobPath
    this.state = 'dropped'
    return undefined
  }

  /**
   * For a child that exited before it was ready, started from `usedBlob` (undefined: the plain
   * way): gives the blob up, and says whether one more start is worth it (it will be plain).
   */
  startFailed(usedBlob: string | undefined): boolean {
    if (usedBlob === undefined) return false
    this.drop()
    return true
  }

  /**
   * Gives the blob up after a child started from it failed: later children start the plain way,
   * and the file is removed so that the next runtime builds it anew.
   */
  drop(): void {
    if (this.state === 'dropped') return
    this.state = 'dropped'
    if (isPrivatePath(this.blobPath, this.uid, 'file')) rmSync(this.blobPath, { force: true })
  }
}

/** Node's arguments that build a blob at `blobPath` from `entryPath`, under the children's V8 flags. */
export function buildSnapshotArgs(v8Flags: readonly string[], blobPath: string, entryPath: string): string[] {
  return [...v8Flags, '--no-warnings', '--snapshot-blob', blobPath, '--build-snapshot', entryPath]
}

/** A blob's modification time is when a runtime last found it; stale ones are pruned by it. */
function markUsed(blobPath: string): void {
  try {
    const now = new Date()
    utimesSync(blobPath, now, now)
  } catch {
    // Only the pruning would be early; the blob is still good.
  }
}

/** How long a blob no runtime has found stays, and how long a build's leftover may, in milliseconds. */
export const STALE_BLOB_MS = 7 * 24 * 3_600_000
const STALE_PARTIAL_MS = 3_600_000

/** Removes this user's blobs no runtime found in {@link STALE_BLOB_MS}, and builds' leftovers. */
export function pruneStaleBlobs(folder: string, uid: number, now: number): void {
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return
  }
  for (const name of names) {
    const maxAge = /^child-[0-9a-f]{32}\.blob$/.test(name)
      ? STALE_BLOB_MS
      : name.endsWith('.partial')
        ? STALE_PARTIAL_MS
        : undefined
    const path = join(folder, name)
    if (maxAge === undefined || !isPrivatePath(path, uid, 'file')) continue
    try {
      if (now - lstatSync(path).mtimeMs > maxAge) rmSync(path, { force: true })
    } catch {
      // Gone already.
    }
  }
}

/**
 * Builds the blob into a fresh name in `folder`, then renames it into place (a child never sees a
 * half-written blob; two runtimes building at once both end with a whole one). The building Node
 * runs the bundle's top level only (see `child-entry.ts`), with the children's V8 flags.
 */
function buildBlob(spec: SnapshotSpec, folder: string, blobPath: string, uid: number): Promise<boolean> {
  const partialName = `${basename(blobPath)}.${process.pid}-${Date.now()}.partial`
  const partial = join(folder, partialName)
  const [program, ...args] = spec.buildCommand?.(folder, partialName) ?? [
    spec.nodePath,
    ...buildSnapshotArgs(spec.v8Flags, partial, spec.entryPath),
  ]
  return new Promise<boolean>(resolve => {
    if (program === undefined) {
      resolve(false)
      return
    }
    const builder = spawn(program, args, {
      env: {},
      cwd: folder,
      stdio: 'ignore',
    })
    // Building must never keep the host alive nor hold up its exit.
    builder.unref()
    const timer = setTimeout(() => builder.kill('SIGKILL'), BUILD_TIMEOUT_MS)
    timer.unref()
    builder.once('error', () => resolve(false))
    builder.once('exit', code => {
      clearTimeout(timer)
      resolve(code === 0)
    })
  }).then(built => {
    try {
      if (!built) return false
      chmodSync(partial, 0o600)
      if (!isPrivatePath(partial, uid, 'file')) return false
      renameSync(partial, blobPath)
      return true
    } catch {
      return false
    } finally {
      rmSync(partial, { force: true })
    }
  })
}
