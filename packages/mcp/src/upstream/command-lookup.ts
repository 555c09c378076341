/**
 * Where a stdio server's `command` lives, found before anything is spawned, so a missing
 * program is one clear line instead of a bare `spawn ENOENT`. Servers installed in the project
 * (`npm install @modelcontextprotocol/server-memory`) are found the way npm scripts find them:
 * `node_modules/.bin` of the config's directory and its parents first, then PATH.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path'

/** Where to look for a command. */
export interface CommandSearch {
  /** The server's working directory: what a relative path such as `./bin/server` is relative to. */
  readonly cwd: string
  /** Where the search of `node_modules/.bin` starts, going up: the config file's directory. */
  readonly projectDirectory: string
  /** The PATH the server will see. */
  readonly pathVariable: string | undefined
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Windows runs `name.cmd` for `name`; elsewhere the name is the file. */
function candidatesIn(directory: string, command: string): string[] {
  if (process.platform !== 'win32') return [join(directory, command)]
  const extensions = (process.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(extension => extension !== '')
  return [join(directory, command), ...extensions.map(extension => join(directory, command + extension.toLowerCase()))]
}

function binDirectories(start: string): string[] {
  const directories: string[] = []
  for (let directory = resolve(start); ; directory = dirname(directory)) {
    directories.push(join(directory, 'node_modules', '.bin'))
    if (dirname(directory) === directory) return directories
  }
}

/**
 * The absolute path `command` runs, or `undefined` when it is nowhere to be found.
 * @example findCommand('mcp-server-memory', { cwd, projectDirectory: cwd, pathVariable: process.env.PATH })
 */
export function findCommand(command: string, search: CommandSearch): string | undefined {
  if (isAbsolute(command) || /[\\/]/.test(command)) {
    const path = resolve(search.cwd, command)
    return candidatesIn(dirname(path), basename(path)).find(isExecutableFile)
  }
  const pathDirectories = (search.pathVariable ?? '').split(delimiter).filter(directory => directory !== '')
  for (const directory of [...binDirectories(search.projectDirectory), ...pathDirectories]) {
    const found = candidatesIn(directory, command).find(isExecutableFile)
    if (found !== undefined) return found
  }
  return undefined
}
