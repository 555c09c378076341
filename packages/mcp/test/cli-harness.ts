/** Test support for the CLI's tests: the built bin run to completion, and the repository's example files. */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI_PATH } from './serve-harness.js'

export const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url))
export const EXAMPLE_CONFIG = join(EXAMPLES, 'servers.json')
export const EXAMPLE_PROGRAM = join(EXAMPLES, 'programs', 'notes-digest.ts')

/** True when `specifier` resolves from here (an optional package, built). */
export function isInstalled(specifier: string): boolean {
  try {
    import.meta.resolve(specifier)
    return true
  } catch {
    return false
  }
}

export interface CliOutcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built bin to completion; `env` adds to the PATH-only environment it gets. */
export function cli(
  args: readonly string[],
  options: { cwd?: string; env?: Readonly<Record<string, string>> } = {},
): Promise<CliOutcome> {
  return new Promise(resolve => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { cwd: options.cwd ?? process.cwd(), env: { PATH: process.env.PATH ?? '', ...options.env } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
      },
    )
  })
}

/** A refusal is exactly one `code-runtime: ...` line on stderr, nothing on stdout, exit code 2. */
export function assertOneLineRefusal(outcome: CliOutcome, message: RegExp): void {
  assert.equal(outcome.code, 2, outcome.stderr)
  assert.equal(outcome.stdout, '')
  assert.match(outcome.stderr, /^code-runtime: [^\n]+\n$/)
  assert.match(outcome.stderr, message)
}
