/**
 * Test support: `code-runtime serve --http` started as an operator starts it (the built bin, real
 * upstream servers from npm), reached over real HTTP by the official MCP clients.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { createHash } from 'node:crypto'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CLI_PATH } from './serve-harness.js'

/** The keys of the two principals the HTTP tests' keys files name. */
export const ALICE_KEY = 'alice-key-0123456789abcdef0123456789abcdef'
export const BOB_KEY = 'bob-key-0123456789abcdef0123456789abcdef'

/** A running `serve --http`. */
export interface HttpServe {
  /** The MCP endpoint it printed, e.g. http://127.0.0.1:40123/mcp. */
  readonly url: URL
  readonly child: ChildProcess
  /** Everything it wrote to stderr so far. */
  stderr(): string
  /** The audit lines it wrote so far, parsed. */
  auditLines(): Record<string, unknown>[]
  /** Sends `signal` and resolves the exit code (or the signal's name when it was killed by it). */
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/**
 * Starts the bin with `args` after `serve --config <config>`, and waits for its `listening on` line.
 * `env` replaces the environment (default: PATH alone).
 */
export async function startHttpServe(
  directory: string,
  config: unknown,
  args: readonly string[],
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' },
): Promise<HttpServe> {
  const configPath = join(directory, 'servers.json')
  await writeFile(configPath, JSON.stringify(config, null, 2))
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--config', configPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  })
  let text = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString()
  })
  const exited = new Promise<number | string>(resolve =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  )
  const url = await new Promise<URL>((resolve, reject) => {
    const look = (): void => {
      const found = /listening on (http:\/\/\S+)/.exec(text)
      if (found?.[1] !== undefined) resolve(new URL(found[1]))
    }
    child.stderr?.on('data', look)
    void exited.then(code => reject(new Error(`serve --http exited (${String(code)}) before listening:\n${text}`)))
  })
  return {
    url,
    child,
    stderr: () => text,
    auditLines: () =>
      text
        .split('\n')
        .filter(line => line.startsWith('{"audit"'))
        .map(line => JSON.parse(line) as Record<string, unknown>),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs the bin to its end (for a setup it refuses): exit code and stderr. */
export async function runServeToEnd(
  directory: string,
  config: unknown,
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  const configPath = join(directory, 'servers.json')
  await writeFile(configPath, JSON.stringify(config, null, 2))
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--config', configPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
  return { code, stderr }
}

/** The hex SHA-256 of a key, as a keys file holds it. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Writes a keys file (mode 600) of `keys` by principal into `directory`; its path. */
export async function writeKeysFile(directory: string, keys: Readonly<Record<string, string>>): Promise<string> {
  const path = join(directory, 'team.keys')
  const lines = Object.entries(keys).map(([name, key]) => `${name} ${sha256Hex(key)}\n`)
  await writeFile(path, `# the team\n${lines.join('')}`)
  await chmod(path, 0o600)
  return path
}

/** Headers that carry `token` as a bearer token. */
export function bearer(token: string): { requestInit: { headers: Record<string, string> } } {
  return { requestInit: { headers: { authorization: `Bearer ${token}` } } }
}

/** SDK 2's client over HTTP: pinned to 2026-07-28 (`modern`) or the 2025 handshake (`legacy`). */
export async function connectV2(
  url: URL,
  token: string | undefined,
  era: 'modern' | 'legacy',
  onElicit?: (message: string) => {
    action: 'accept' | 'decline'
    content?: Record<string, string | number | boolean | string[]>
  },
): Promise<Client> {
  const client = new Client(
    { name: 'code-runtime-http-tests', version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      ...(onElicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } }),
    },
  )
  if (onElicit !== undefined) {
    client.setRequestHandler('elicitation/create', request =>
      Promise.resolve(onElicit((request.params as { message: string }).message)),
    )
  }
  await client.connect(new StreamableHTTPClientTransport(url, token === undefined ? {} : bearer(token)))
  return client
}

/** SDK 1.x's client over HTTP, as most clients in use still are. */
export async function connectV1(url: URL, token: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'code-runtime-http-tests-v1', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransportV1(url, bearer(token)))
  return client
}

/** The text of a tool result's first block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content[0]?.text ?? ''
}

/** A raw HTTP request through node:http (fetch cannot set `Host`): status, headers and body. */
export function rawRequest(
  url: URL,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, response => {
      let body = ''
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString()
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
    })
    sent.on('error', reject)
    sent.end(options.body)
  })
}

/** A JSON-RPC `initialize` of the 2025 revision, as a raw body. */
export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

/** The headers a Streamable HTTP POST carries. */
export const MCP_POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** What a 2026-07-28 server answers when it needs input first. */
export interface InputRequired {
  readonly resultType: 'input_required'
  readonly inputRequests: Record<string, { method: string; params: { message: string } }>
  readonly requestState: string
}

export function isInputRequired(value: unknown): value is InputRequired {
  return (value as { resultType?: unknown }).resultType === 'input_required'
}

/**
 * SDK 2's client pinned to 2026-07-28 that can show forms but answers nothing itself: an
 * `input_required` answer comes back to the caller (the driver's manual mode).
 */
export async function connectManual(url: URL, token: string): Promise<Client> {
  const client = new Client(
    { name: 'code-runtime-manual-tests', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  )
  await client.connect(new StreamableHTTPClientTransport(url, bearer(token)))
  return client
}

/** A manual-mode call of run_code: the first answer, `input_required` or the result. */
export function callManually(client: Client, params: Record<string, unknown>): Promise<unknown> {
  return client.callTool({ name: 'run_code', ...params } as never, { allowInputRequired: true } as never)
}
