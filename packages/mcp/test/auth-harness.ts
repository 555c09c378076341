/**
 * Test support for the login tests: the built bin with a private config home (so the token store
 * is the test's own), talked to on stdin, and the login a test does as the person would: read
 * the printed authorization URL, follow it as a browser, paste where it was sent back to.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CLI_PATH } from './serve-harness.js'
import { followAuthorization } from './oauth-upstream.js'

export interface CliRun {
  readonly child: ChildProcessWithoutNullStreams
  /** What it printed so far. */
  readonly output: { stdout: string; stderr: string }
  /** Resolves with the first match of `pattern` in stderr, once printed. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>
}

/** The environment of every command of a test: its PATH and its own config home. */
export function cliEnvironment(configHome: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: configHome }
}

/** Starts the built bin with `args`. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): CliRun {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { env, ...(cwd === undefined ? {} : { cwd }) })
  const output = { stdout: '', stderr: '' }
  const watchers: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk
    for (const watcher of [...watchers]) {
      const match = watcher.pattern.exec(output.stderr)
      if (match !== null) {
        watchers.splice(watchers.indexOf(watcher), 1)
        watcher.resolve(match)
      }
    }
  })
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve =>
    child.on('close', code => resolve({ code, ...output })),
  )
  return {
    child,
    output,
    exited,
    waitForStderr: pattern =>
      new Promise((resolve, reject) => {
        const match = pattern.exec(output.stderr)
        if (match !== null) return resolve(match)
        watchers.push({ pattern, resolve })
        void exited.then(() =>
          reject(new Error(`exited before printing ${String(pattern)}; stderr:\n${output.stderr}`)),
        )
      }),
  }
}

/** Runs the built bin to its end. */
export async function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli(args, env, cwd)
  run.child.stdin.end()
  return run.exited
}

/** The authorization URL a login printed (the Nth, from 1). */
export const AUTHORIZATION_URL = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m

/** `auth login NAME --no-browser`, done as a person would; resolves with the finished command. */
export async function logInByPaste(
  name: string,
  configPath: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const login = startCli(['auth', 'login', name, '--config', configPath, '--no-browser'], env)
  const [, url] = await login.waitForStderr(AUTHORIZATION_URL)
  login.child.stdin.end(`${await followAuthorization(url ?? '')}\n`)
  return login.exited
}

/** Writes `servers.json` of `servers` (the `mcpServers` object) into `directory`; its path. */
export async function writeServersConfig(directory: string, servers: object): Promise<string> {
  await mkdir(directory, { recursive: true })
  const path = join(directory, 'servers.json')
  await writeFile(path, JSON.stringify({ mcpServers: servers }))
  return path
}

/** Asserts none of `secrets` appears in any of `texts`. */
export function assertNoSecrets(secrets: readonly string[], ...texts: string[]): void {
  assert.ok(secrets.length > 0)
  for (const text of texts)
    for (const secret of secrets) assert.equal(text.includes(secret), false, 'a token was printed')
}
