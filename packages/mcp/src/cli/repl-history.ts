/**
 * The history of `code-runtime repl`: the lines typed, kept in a file between sessions, where
 * `CODE_RUNTIME_REPL_HISTORY` says or else in the user's state directory (the XDG base directory
 * rule: `$XDG_STATE_HOME`, else `~/.local/state`). History is a convenience: a file that cannot
 * be read or written never stops the REPL; it is said once, and the REPL goes on without it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

/** The variable that names the history file. */
export const REPL_HISTORY_VARIABLE = 'CODE_RUNTIME_REPL_HISTORY'

/** Most lines kept. */
export const REPL_HISTORY_SIZE = 1_000

/**
 * Where the history lives for `environment`, and whether its directory is ours to create: the
 * state directory's is; the directory of a file the user named must exist (creating directories
 * recursively where the user pointed, under /proc say, can even hang Node).
 */
export function replHistoryPath(environment: NodeJS.ProcessEnv = process.env): {
  readonly path: string
  readonly createDirectory: boolean
} {
  const chosen = environment[REPL_HISTORY_VARIABLE]
  if (chosen !== undefined && chosen !== '') return { path: chosen, createDirectory: false }
  const stateHome = environment.XDG_STATE_HOME
  const base = stateHome !== undefined && stateHome.startsWith('/') ? stateHome : join(homedir(), '.local', 'state')
  return { path: join(base, 'code-runtime', 'repl_history'), createDirectory: true }
}

/** A history file: what it held at start, and a writer for what readline keeps. */
export interface ReplHistory {
  /** The lines, newest first (as readline's `history` option takes them). */
  readonly lines: readonly string[]
  /** Saves readline's history (newest first); a failure is told once through `warn`. */
  save(lines: readonly string[]): void
}

export function openReplHistory(
  { path, createDirectory }: ReturnType<typeof replHistoryPath>,
  warn: (line: string) => void,
): ReplHistory {
  let lines: string[] = []
  try {
    lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter(line => line.trim() !== '')
      .reverse()
      .slice(0, REPL_HISTORY_SIZE)
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT')
      warn(`history not read from ${path}: ${(error as Error).message}`)
  }
  let failed = false
  return {
    lines,
    save(current) {
      if (failed) return
      try {
        if (createDirectory) mkdirSync(dirname(path), { recursive: true })
        // Oldest first in the file, as shells keep theirs; private, since programs may hold secrets.
        writeFileSync(path, `${[...current].slice(0, REPL_HISTORY_SIZE).reverse().join('\n')}\n`, { mode: 0o600 })
      } catch (error) {
        failed = true
        warn(`history not saved to ${path}: ${(error as Error).message}`)
      }
    },
  }
}
