/**
 * The files a child needs to start our guest runtime, found on the host. The real entry is one
 * self-contained bundle (it requires only Node's built-in modules), so its bootstrap is the
 * bundle's own folder and this package's `package.json`, nothing of the engine or core. A
 * test-only entry is plain ES modules that import across the three code-runtime packages (this
 * one, the engine's guest half and the core's JSON helpers), so its bootstrap holds each of
 * them, as the folders Node reads when it loads them. The process backend grants Node's
 * permission model read access to exactly these; the container mounts exactly these (read-only,
 * under a fixed path) and nothing else of the host's tree.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GUEST_MODULE_URLS } from '@code-runtime/engine'

/** One package of the bootstrap, as found on the host. */
export interface BootstrapPackage {
  /** The package name, e.g. `@code-runtime/core`. */
  readonly name: string
  /** The real path of the package's folder. */
  readonly root: string
  /**
   * Where Node's resolver meets the package: `node_modules/<name>` in a folder above its
   * importer. In a workspace checkout that is a symbolic link to {@link root}.
   */
  readonly lookupPath: string | undefined
  /** Folders under {@link root} that the child loads modules from, relative, with `/`. */
  readonly moduleFolders: readonly string[]
}

/** Everything a child reads at start-up. */
export interface BootstrapFiles {
  /** The real path of the Node binary that runs the host. */
  readonly nodePath: string
  /** The package holding the entry module (this package). */
  readonly entryPackage: BootstrapPackage
  /** The entry module, relative to {@link entryPackage}'s root, with `/`. */
  readonly entryModule: string
  /** The packages the entry imports, directly or not. */
  readonly dependencies: readonly BootstrapPackage[]
}

/**
 * The guest runtime's entry module of this package: child-entry.ts bundled with the guest half it
 * imports into one CommonJS file at build time (scripts/bundle-guest.mjs), which a child loads
 * without the ESM loader or a fetch per module.
 */
export const CHILD_ENTRY_URL = new URL('./guest/child-entry.cjs', import.meta.url)

function findPackageRoot(file: string): string {
  let directory = dirname(file)
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory)
    if (parent === directory) throw new Error('The code-runtime package files are not inside a package.')
    directory = parent
  }
  return directory
}

/** Walks up from `fromDirectory` as Node's resolver does, to the first `node_modules/<name>`. */
function findLookupPath(fromDirectory: string, name: string): string | undefined {
  let directory = fromDirectory
  for (;;) {
    const candidate = join(directory, 'node_modules', ...name.split('/'))
    try {
      lstatSync(candidate)
      return candidate
    } catch {
      // Not here; keep walking up.
    }
    const parent = dirname(directory)
    if (parent === directory) return undefined
    directory = parent
  }
}

/**
 * The built-output folder a module lives in, relative to its package root, with `/`: its first
 * two levels (`dist/src`), so that one grant covers the module and its relative imports.
 */
function moduleFolderOf(root: string, file: string): string {
  return relative(root, file).split(sep).slice(0, -1).slice(0, 2).join('/')
}

/**
 * Resolves `specifier` from the package at `importerRoot` and describes the package it lands in.
 * `folders` names the folders the child loads from it; by default, the one of the resolved module.
 */
function locateDependency(
  importerRoot: string,
  name: string,
  specifier: string,
  folders?: readonly URL[],
): BootstrapPackage {
  const resolved = realpathSync(createRequire(join(importerRoot, 'package.json')).resolve(specifier))
  const root = realpathSync(findPackageRoot(resolved))
  const moduleFolders =
    folders === undefined
      ? [moduleFolderOf(root, resolved)]
      : folders.map(folder =>
          relative(root, realpathSync(fileURLToPath(folder)))
            .split(sep)
            .join('/'),
        )
  return { name, root, lookupPath: findLookupPath(importerRoot, name), moduleFolders }
}

/**
 * Finds the bootstrap on this host. `entry` is the child's main module; tests pass another one.
 * @throws Error when a package cannot be found (a broken installation).
 */
export function locateBootstrapFiles(entry: URL = CHILD_ENTRY_URL): BootstrapFiles {
  const entryPath = realpathSync(fileURLToPath(entry))
  const ownPath = realpathSync(fileURLToPath(import.meta.url))
  const ownRoot = realpathSync(findPackageRoot(ownPath))
  if (realpathSync(findPackageRoot(entryPath)) !== ownRoot)
    throw new Error('The child entry module must belong to @code-runtime/process.')
  const entryModule = relative(ownRoot, entryPath).split(sep).join('/')
  const nodePath = realpathSync(process.execPath)
  if (entry.href === CHILD_ENTRY_URL.href) {
    // The bundle loads no file but itself: its folder (the guest's own modules) is all it needs.
    const bundleFolder = entryModule.split('/').slice(0, -1).join('/')
    return {
      nodePath,
      entryPackage: {
        name: '@code-runtime/process',
        root: ownRoot,
        lookupPath: undefined,
        moduleFolders: [bundleFolder],
      },
      entryModule,
      dependencies: [],
    }
  }
  const folders = new Set([moduleFolderOf(ownRoot, ownPath), moduleFolderOf(ownRoot, entryPath)])
  const entryPackage: BootstrapPackage = {
    name: '@code-runtime/process',
    root: ownRoot,
    lookupPath: undefined,
    moduleFolders: [...folders],
  }
  // Only the engine's guest half: the child never loads the host half (run engine, transform).
  const engine = locateDependency(ownRoot, '@code-runtime/engine', '@code-runtime/engine/guest', GUEST_MODULE_URLS)
  const core = locateDependency(engine.root, '@code-runtime/core', '@code-runtime/core/json')
  return { nodePath, entryPackage, entryModule, dependencies: [engine, core] }
}

/**
 * A test-only replacement of the child's entry module, used by this package's hostile tests to
 * run code with Node's full authority inside the substrate, as an escaped program would. It is
 * reachable only through the internal engine constructors, never from config or a program, and
 * the module it names ships only in the tests' build output.
 */
export interface TestOnlyEntry {
  /** The entry module; it must belong to this package. */
  readonly entry: URL
  /** Runs the child without Node's permission model, as an escape through native code would. */
  readonly withoutPermissionModel: boolean
}

/** The host paths Node's permission model must let a child read to load the bootstrap. */
export function listReadablePaths(files: BootstrapFiles): string[] {
  const paths: string[] = []
  for (const pkg of [files.entryPackage, ...files.dependencies]) {
    // Node resolves a package through this path (a symbolic link in a workspace) before it reads the files behind it.
    if (pkg.lookupPath !== undefined) paths.push(pkg.lookupPath)
    paths.push(join(pkg.root, 'package.json'))
    for (const folder of pkg.moduleFolders) paths.push(join(pkg.root, ...folder.split('/')))
  }
  return paths
}
