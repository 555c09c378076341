/**
 * The container's copy of our packages. A bind mount shows its source path inside the sandbox
 * (`/proc/self/mountinfo` names the folder it came from), and our packages live in the host's
 * project tree; so the container engine copies what the child loads (each package's
 * `package.json` and module folders, without types or source maps) into a fresh folder of the
 * system's temporary directory, named `code-runtime-` and random characters, and mounts that.
 * The copy is taken once, when the engine starts, and removed when it is disposed.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BootstrapFiles } from './bootstrap-files.js'

/** The staged packages: a `node_modules` folder holding each one under its name. */
export interface StagedPackages {
  /** The staged `node_modules` folder, the source of the sandbox's one package mount. */
  readonly modulesFolder: string
  /** Removes the copy; call it once no sandbox uses it any more. */
  remove(): Promise<void>
}

/** Files the child never loads: type declarations and source maps. */
function isLoadedAtRunTime(name: string): boolean {
  return !name.endsWith('.map') && !name.endsWith('.d.ts')
}

async function copyModuleFolder(source: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true })
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name)
    const to = join(destination, entry.name)
    if (entry.isDirectory()) await copyModuleFolder(from, to)
    else if (entry.isFile() && isLoadedAtRunTime(entry.name)) await copyFile(from, to)
  }
}

/**
 * Copies the bootstrap's packages into a fresh folder under `parent` (the system's temporary
 * directory by default).
 * @throws Error when the copy fails (a full or read-only temporary directory); nothing is left behind.
 */
export async function stagePackages(files: BootstrapFiles, parent: string = tmpdir()): Promise<StagedPackages> {
  const stage = await mkdtemp(join(parent, 'code-runtime-'))
  const remove = (): Promise<void> => rm(stage, { recursive: true, force: true })
  const modulesFolder = join(stage, 'node_modules')
  try {
    for (const pkg of [files.entryPackage, ...files.dependencies]) {
      const destination = join(modulesFolder, ...pkg.name.split('/'))
      await mkdir(destination, { recursive: true })
      await copyFile(join(pkg.root, 'package.json'), join(destination, 'package.json'))
      for (const folder of pkg.moduleFolders)
        await copyModuleFolder(join(pkg.root, ...folder.split('/')), join(destination, ...folder.split('/')))
    }
  } catch (error) {
    await remove()
    throw error
  }
  return { modulesFolder, remove }
}
