/**
 * Host programs the backends rely on (`prlimit`, `bwrap`) and the shared libraries a binary
 * links, found once when a plugin loads.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, realpathSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** Folders searched after `PATH`, where system tools live even when `PATH` is minimal. */
const SYSTEM_FOLDERS = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/sbin', '/sbin']

/** The real path of executable `name` on `PATH` or in the system folders, or undefined. */
export function findProgram(name: string, searchPath: string | undefined = process.env['PATH']): string | undefined {
  const folders = [...(searchPath ?? '').split(delimiter).filter(folder => folder.startsWith('/')), ...SYSTEM_FOLDERS]
  for (const folder of folders) {
    const candidate = join(folder, name)
    try {
      accessSync(candidate, constants.X_OK)
      return realpathSync(candidate)
    } catch {
      // Not here.
    }
  }
  return undefined
}

/** A shared library as the loader looks for it (`path`) and the file behind it (`realPath`). */
export interface SharedLibrary {
  readonly path: string
  readonly realPath: string
}

/**
 * The absolute paths in `ldd` output: `libc.so.6 => /lib/.../libc.so.6 (0x...)` and the loader's
 * own line `/lib64/ld-linux-x86-64.so.2 (0x...)`. The kernel's `linux-vdso.so.1` has no file.
 */
export function parseLddOutput(output: string): string[] {
  const paths: string[] = []
  for (const line of output.split('\n')) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)\s*$/.exec(line.trim())
    if (match?.[1] !== undefined) paths.push(match[1])
  }
  return paths
}

/** The shared libraries `binary` links, loader included; empty for a static binary. */
export function listSharedLibraries(binary: string): Promise<SharedLibrary[]> {
  const ldd = findProgram('ldd')
  if (ldd === undefined) return Promise.resolve([])
  return new Promise(resolve => {
    execFile(ldd, [binary], { env: {}, timeout: 10_000 }, (error, stdout) => {
      // A static binary makes ldd fail; it needs no libraries.
      if (error !== null) {
        resolve([])
        return
      }
      const libraries: SharedLibrary[] = []
      for (const path of parseLddOutput(stdout)) {
        try {
          libraries.push({ path, realPath: realpathSync(path) })
        } catch {
          // Listed but missing: the probe run will say what fails.
        }
      }
      resolve(libraries)
    })
  })
}
