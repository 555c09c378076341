/**
 * Test support: `code-runtime serve` started as a user's MCP client starts it (the built bin
 * over stdio, driven by the official SDK client: 1.x here, as most clients in use still are;
 * serve-protocol-revisions.test.ts drives it with SDK 2 too), with real upstream servers from npm.
 */
import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js'

/** The built bin, as `npx code-runtime` runs it. */
export const CLI_PATH = fileURLToPath(new URL('../src/cli.js', import.meta.url))
/** The small MCP server of our own whose tools fail, crash, hang and change. */
export const FLAKY_SERVER_PATH = fileURLToPath(new URL('../../test/fixtures/flaky-server.mjs', import.meta.url))

/** The path of an npm-installed bin, found the way npm scripts find it: `node_modules/.bin` upwards. */
export function installedBin(name: string): string {
  for (let directory = dirname(CLI_PATH); ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', '.bin', name)
    if (existsSync(candidate)) return candidate
    if (dirname(directory) === directory) throw new Error(`${name} is not installed; run npm ci`)
  }
}

/** A temporary directory, removed by `remove()`. */
export async function makeTempDirectory(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

/** A running `code-runtime serve` with a connected client. */
export interface ServeSession {
  readonly client: Client
  /** Process id of `code-runtime serve`. */
  readonly pid: number
  /** Everything it wrote to stderr so far. */
  stderr(): string
  /** Calls `run_code` and returns the whole result (`options`: the SDK's, e.g. `signal`, `timeout`, `onprogress`). */
  runCode(code: string, options?: RequestOptions): Promise<CallToolResult>
  /** Calls `run_code` and reads the value of a successful run back from its text. */
  runJson(code: string): Promise<unknown>
  /** Process ids of its children: the upstream stdio servers. */
  childPids(): number[]
  /** Closes the client (end of stdin for the server) and waits for the server to exit. */
  close(): Promise<void>
}

/** True while a process with this id exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/** Resolves once `check` holds; fails the test after `limitMs`. Waits for events, never for speed. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** Process ids of the children of `pid` (`ps` exits with 1 when there are none). */
export function childPidsOf(pid: number): number[] {
  let listing: string
  try {
    listing = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
  } catch {
    return []
  }
  return listing
    .split('\n')
    .map(line => Number(line.trim()))
    .filter(child => child > 0)
}

/** Lines of a log file, or none before it exists. */
export async function readLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter(line => line !== '')
  } catch {
    return []
  }
}

/**
 * Starts a run whose call to the flaky fixture hangs, cancels it from the client once that call
 * has started, and resolves once the fixture (logging to `flakyLog`) heard the call cancelled:
 * the run stopped and cancelled its upstream call. `runCode` is either SDK's client's.
 */
export async function cancelHangingUpstreamCall(
  runCode: (code: string, options: { signal: AbortSignal }) => Promise<unknown>,
  flakyLog: string,
): Promise<void> {
  const controller = new AbortController()
  const call = runCode('await tools.flaky_hang()\nreturn "finished"', { signal: controller.signal })
  await waitFor(
    async () => (await readLines(flakyLog)).some(line => line.startsWith('hang started')),
    'the upstream call to start',
  )
  controller.abort(new Error('the user pressed stop'))
  await assert.rejects(call, /the user pressed stop/)
  await waitFor(async () => (await readLines(flakyLog)).includes('hang cancelled'), 'the upstream call to be cancelled')
}

/** The text of a tool result's first content block (a result of either SDK's client). */
export function textOf(result: {
  readonly content: readonly { readonly type: string }[]
  readonly isError?: boolean | undefined
}): string {
  const first = result.content[0]
  if (first?.type !== 'text' || !('text' in first) || typeof first.text !== 'string')
    throw new Error(`expected text, got ${JSON.stringify(result.content)}`)
  return first.text
}

/** How the test's client answers the server's elicitation requests; without it, the client does not declare elicitation. */
export type ElicitationAnswer = (
  request: ElicitRequest,
  extra: { readonly signal: AbortSignal },
) => Promise<ElicitResult>

/** How a client's config starts `code-runtime serve` over stdio (either SDK's stdio transport takes it). */
export interface ServeParameters {
  readonly command: string
  readonly args: string[]
  readonly env: Record<string, string>
  readonly stderr: 'pipe'
}

/** Writes `config` to `directory/servers.json`; the parameters that start `code-runtime serve` on it. */
export async function serveParameters(
  directory: string,
  config: unknown,
  extraArgs: readonly string[] = [],
): Promise<ServeParameters> {
  const configPath = join(directory, 'servers.json')
  await writeFile(configPath, JSON.stringify(config, null, 2))
  return {
    command: process.execPath,
    args: [CLI_PATH, 'serve', '--config', configPath, ...extraArgs],
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '' },
  }
}

/** Everything `stream` (a transport's piped stderr) has carried so far. */
export function collectText(
  stream: { on(event: 'data', listener: (chunk: Buffer) => void): unknown } | null,
): () => string {
  let text = ''
  stream?.on('data', chunk => {
    text += chunk.toString()
  })
  return () => text
}

/** Writes `config` to `directory/servers.json` and starts `code-runtime serve` on it. */
export async function startServe(
  directory: string,
  config: unknown,
  extraArgs: readonly string[] = [],
  onElicit?: ElicitationAnswer,
): Promise<ServeSession> {
  const transport = new StdioClientTransport(await serveParameters(directory, config, extraArgs))
  const stderr = collectText(transport.stderr)
  const client = new Client(
    { name: 'code-runtime-tests', version: '1.0.0' },
    onElicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  )
  if (onElicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => onElicit(request, { signal: extra.signal }))
  await client.connect(transport)
  const pid = transport.pid as number
  const session: ServeSession = {
    client,
    pid,
    stderr,
    runCode: async (code, options = {}) =>
      (await client.callTool(
        { name: 'run_code', arguments: { code, description: 'test program' } },
        undefined,
        options,
      )) as CallToolResult,
    async runJson(code) {
      const result = await session.runCode(code)
      if (result.isError === true) throw new Error(`run failed: ${textOf(result)}`)
      // A string value is printed raw; anything else as JSON.
      try {
        return JSON.parse(textOf(result)) as unknown
      } catch {
        return textOf(result)
      }
    },
    childPids: () => childPidsOf(pid),
    async close() {
      await client.close()
      await waitFor(() => !isAlive(pid), 'code-runtime serve to exit')
    },
  }
  return session
}

/** A started `code-runtime runner`: its process, its id, and what it wrote to stderr so far. */
export interface RunnerProcess {
  readonly child: ChildProcess
  readonly id: string
  stderr(): string
}

/**
 * Starts `code-runtime runner --nats <url>` with `args` (and `env` in place of the environment);
 * resolves once it says it takes runs.
 */
export function startRunnerProcess(
  url: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunnerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, 'runner', '--nats', url, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const id = /runner: (\S+) takes up to/.exec(stderr)?.[1]
      if (id !== undefined) resolve({ child, id, stderr: () => stderr })
    })
    child.once('exit', code => reject(new Error(`runner exited (${String(code)}): ${stderr}`)))
  })
}
