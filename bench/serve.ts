/**
 * The serve section: what a user of `code-runtime serve` waits for, measured from the official
 * MCP client (SDK 2 in its default mode, the 2025-11-25 handshake, which `ping` needs) over stdio,
 * and over HTTP (`serve --http` with a keys file: a 2025-era session, and a 2026-07-28 client
 * passing its session handle back) against the same upstream server (`@modelcontextprotocol/server-memory`, `read_graph`) called
 * directly by a client of its own, interleaved round by round in one run.
 * Per serve config: a direct call, `run_code` with one call, ten direct calls, one program making
 * ten calls; from them the overhead per `run_code` and per inner call beyond a direct call. Then,
 * with the defaults: the time from spawn to the `initialize` answer and to `tools/list` with two
 * upstream servers, the first `run_code` of a fresh server, `ping` round trips while checked
 * calls run (the server's event loop as the client feels it; beside it, idle), serve's RSS
 * over a stream of calls, and what an approval adds: a run whose call needs a person's approval
 * (answered at once by the client's elicitation handler) against the same run of a tool that
 * needs none, over HTTP in both revisions (2025-11-25: asked mid-run; 2026-07-28: the run pauses,
 * `input_required`, the client's retry resumes it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { formatMs, quantile, summarizeSamples, type SampleSummary } from './statistics.js'

const CLI = fileURLToPath(new URL('../../packages/mcp/dist/src/cli.js', import.meta.url))

/** One serve config, measured against direct calls in the same rounds. */
export interface ServeColumn {
  readonly name: string
  readonly args: readonly string[]
  readonly directMs: SampleSummary
  readonly runOneMs: SampleSummary
  readonly directTenMs: SampleSummary
  readonly runTenMs: SampleSummary
  /** Time of the first `run_code` (one call) sent right after `initialize` to a fresh server. */
  readonly firstRunMs: number
}

/** A config that could not be measured on this machine (no bubblewrap, say), and why. */
export interface FailedServeColumn {
  readonly name: string
  readonly failed: string
}

export interface ServeMeasurements {
  readonly columns: readonly (ServeColumn | FailedServeColumn)[]
  /** Spawn to the `initialize` answer and to the `tools/list` answer, with two upstream servers. */
  readonly initializeMs: SampleSummary
  readonly toolsListMs: SampleSummary
  /** `ping` round trips, idle and while checked `run_code` calls follow one another. */
  readonly pingIdleMs: SampleSummary & { readonly p99: number }
  readonly pingDuringChecksMs: SampleSummary & { readonly p99: number }
  /** serve's own resident set (children not counted), after a warm-up and after the stream. */
  readonly rss: { readonly calls: number; readonly startMiB: number; readonly endMiB: number }
  /** Per revision over HTTP: a run whose one call needs approval, and the same run needing none. */
  readonly approvals: readonly ApprovalRoundTrip[]
  /** Two gateway nodes over NATS: what a call costs when the next one lands on the other node. */
  readonly cluster: ClusterRoundTrips | { readonly failed: string }
}

/** Two `serve --http --nats` nodes with one state key, one runner: the same calls on one node and across the two. */
export interface ClusterRoundTrips {
  /** A 2026-07-28 run paused for approval, resumed on the node that paused it, and on the other node. */
  readonly approvalSameNodeMs: SampleSummary
  readonly approvalOtherNodeMs: SampleSummary
  /** A run in a session by handle, on the node that ran the last one, and alternating between the nodes. */
  readonly sessionSameNodeMs: SampleSummary
  readonly sessionAlternatingMs: SampleSummary
}

/** What one approval adds to a run, in one revision. */
export interface ApprovalRoundTrip {
  readonly transport: 'http-2025' | 'http-2026'
  readonly askedMs: SampleSummary
  readonly unaskedMs: SampleSummary
}

export type ServeSection = ServeMeasurements | { readonly failed: string }

const ONE_CALL = 'return await tools.memory_read_graph()'
const TEN_CALLS = 'for (let i = 0; i < 10; i++) await tools.memory_read_graph()\nreturn 10'
// Types the check must follow (a call's result, a generic helper), as a real program's are.
const CHECKED =
  'const graph = await tools.memory_read_graph()\nfunction count<T>(items: readonly T[]): number { return items.length }\nreturn count(graph.entities) + count(graph.relations)'

/** How the bench's client reaches serve: stdio, or `serve --http` as a 2025-era session or a 2026-07-28 client. */
type ServeTransport = 'stdio' | 'http-2025' | 'http-2026'

// The same destructive call on two upstreams: one asks a person (its annotations say so), the
// other is configured not to (`autoApprove`).
const ASKED_CALL = "await tools.memory_delete_entities({ entityNames: ['nobody'] })\nreturn 1"
const UNASKED_CALL = "await tools.quiet_delete_entities({ entityNames: ['nobody'] })\nreturn 1"

interface ServeConfig {
  readonly name: string
  readonly args: readonly string[]
  readonly transport?: ServeTransport
}

const CONFIGS: readonly ServeConfig[] = [
  { name: 'defaults (sessions, check on)', args: [] },
  { name: '--http, 2025-11-25 session', args: [], transport: 'http-2025' },
  { name: '--http, 2026-07-28, session handle', args: [], transport: 'http-2026' },
  { name: '--type-check off', args: ['--type-check', 'off'] },
  { name: '--no-state (one-shot runs)', args: ['--no-state'] },
  { name: '--backend worker-thread', args: ['--backend', 'worker-thread'] },
  { name: '--backend process', args: ['--backend', 'process'] },
  { name: '--backend container', args: ['--backend', 'container'] },
]

function installedBin(name: string): string {
  for (let directory = dirname(CLI); ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', '.bin', name)
    if (existsSync(candidate)) return candidate
    if (dirname(directory) === directory) throw new Error(`${name} is not installed; run npm ci`)
  }
}

async function connectClient(command: string, args: readonly string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'code-runtime-bench', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command,
      args: [...args],
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    }),
  )
  return client
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await action()
  return performance.now() - started
}

/** Calls `run_code` and fails the measurement when the program did not succeed; the text of its result. */
async function runCode(client: Client, code: string, session?: string): Promise<string> {
  const result = await client.callTool({
    name: 'run_code',
    arguments: { code, description: 'bench', ...(session === undefined ? {} : { session }) },
  })
  if (result.isError === true) throw new Error(`run_code failed: ${JSON.stringify(result.content).slice(0, 300)}`)
  const first = result.content[0]
  return first?.type === 'text' ? first.text : ''
}

/** A client connected to one serve: it runs programs in one session, however the transport keeps it. */
interface ServeConnection {
  runCode(code: string): Promise<void>
  close(): Promise<void>
}

/** A 2026-07-28 client keeps its session by passing back the handle each result ends with. */
function handleKeepingConnection(client: Client, stop: () => Promise<void>): ServeConnection {
  let session: string | undefined
  return {
    async runCode(code) {
      const text = await runCode(client, code, session)
      session = /\n\nsession: (s_[A-Za-z0-9_-]+)$/.exec(text)?.[1] ?? session
    },
    async close() {
      await client.close()
      await stop()
    },
  }
}

const BENCH_KEY = 'bench-key-0123456789abcdef0123456789abcdef'

function residentMiB(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024
}

function withP99(samples: readonly number[]): SampleSummary & { readonly p99: number } {
  const sorted = [...samples].sort((left, right) => left - right)
  return { ...summarizeSamples(samples), p99: quantile(sorted, 0.99) }
}

class BenchWorkspace {
  readonly directory: string
  readonly memory: string
  readonly filesystem: string

  private constructor(directory: string) {
    this.directory = directory
    this.memory = installedBin('mcp-server-memory')
    this.filesystem = installedBin('mcp-server-filesystem')
  }

  static async create(): Promise<BenchWorkspace> {
    return new BenchWorkspace(await mkdtemp(join(tmpdir(), 'code-runtime-bench-serve-')))
  }

  get memoryEnv(): Record<string, string> {
    return { MEMORY_FILE_PATH: join(this.directory, 'memory.jsonl') }
  }

  /** A servers.json with the memory server twice: `memory` (its deletes need approval) and `quiet` (they do not). */
  async approvalConfig(): Promise<string> {
    const path = join(this.directory, 'approvals.json')
    const memory = { command: this.memory, env: this.memoryEnv }
    await writeFile(
      path,
      JSON.stringify({ mcpServers: { memory, quiet: { ...memory, autoApprove: ['delete_entities'] } } }),
    )
    return path
  }

  /** A servers.json with the memory server, and the filesystem server too when `both`. */
  async config(both: boolean): Promise<string> {
    const path = join(this.directory, both ? 'two-servers.json' : 'memory.json')
    const servers: Record<string, unknown> = { memory: { command: this.memory, env: this.memoryEnv } }
    if (both) servers.files = { command: this.filesystem, args: [this.directory] }
    await writeFile(path, JSON.stringify({ mcpServers: servers }))
    return path
  }

  serve(config: string, args: readonly string[]): Promise<Client> {
    return connectClient(process.execPath, [CLI, 'serve', '--config', config, ...args], {})
  }

  /** Connects over `transport`: stdio, or `serve --http` on a free loopback port with a keys file. */
  async connect(
    config: string,
    args: readonly string[],
    transport: ServeTransport = 'stdio',
    approveAll = false,
  ): Promise<ServeConnection> {
    if (transport === 'stdio') {
      const client = await this.serve(config, args)
      return { runCode: async code => void (await runCode(client, code)), close: () => client.close() }
    }
    const keys = join(this.directory, 'bench.keys')
    await writeFile(keys, `bench ${createHash('sha256').update(BENCH_KEY).digest('hex')}\n`)
    await chmod(keys, 0o600)
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--config', config, '--http', '0', '--auth-keys', keys, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
    )
    const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
    const stop = async (): Promise<void> => {
      child.kill('SIGTERM')
      await exited
    }
    const url = await new Promise<URL>((resolve, reject) => {
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const found = /listening on (http:\/\/\S+)/.exec(stderr)
        if (found?.[1] !== undefined) resolve(new URL(found[1]))
      })
      void exited.then(() => reject(new Error(`serve --http exited before listening: ${stderr.slice(-300)}`)))
    })
    const client = new Client(
      { name: 'code-runtime-bench', version: '1.0.0' },
      {
        versionNegotiation: { mode: transport === 'http-2026' ? { pin: '2026-07-28' } : 'legacy' },
        ...(approveAll ? { capabilities: { elicitation: { form: {} } } } : {}),
      },
    )
    // A person who answers at once: what is measured is the protocol's round trip, not a human.
    if (approveAll) client.setRequestHandler('elicitation/create', () => Promise.resolve({ action: 'accept' }))
    try {
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${BENCH_KEY}` } } }),
      )
    } catch (error) {
      await stop()
      throw error
    }
    return handleKeepingConnection(client, stop)
  }

  remove(): Promise<void> {
    return rm(this.directory, { recursive: true, force: true })
  }
}

/** A child process started for the cluster rows, resolved once `ready` matches its stderr. */
async function startChild(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env })
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = ready.exec(stderr)
      if (found !== null) resolve(found)
    })
    child.once('exit', () =>
      reject(new Error(`${args[1] ?? 'child'} exited before it was ready: ${stderr.slice(-300)}`)),
    )
  })
  return { child, match }
}

/** SDK 2's client pinned to 2026-07-28 that hands `input_required` back to the bench (manual mode). */
async function connectManual(url: URL): Promise<Client> {
  const client = new Client(
    { name: 'code-runtime-bench', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  )
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${BENCH_KEY}` } } }),
  )
  return client
}

interface ManualAnswer {
  readonly resultType?: string
  readonly inputRequests?: Record<string, unknown>
  readonly requestState?: string
  readonly content?: { type: string; text?: string }[]
  readonly isError?: boolean
}

function callManual(client: Client, params: Record<string, unknown>): Promise<ManualAnswer> {
  return client.callTool(
    { name: 'run_code', ...params } as never,
    { allowInputRequired: true } as never,
  ) as Promise<ManualAnswer>
}

/** Pauses on `first`, resumes on `second`: the whole approval as the client waits for it. */
async function approveAcross(first: Client, second: Client): Promise<void> {
  const args = { code: ASKED_CALL, description: 'bench approval' }
  const paused = await callManual(first, { arguments: args })
  const [key] = Object.keys(paused.inputRequests ?? {})
  if (paused.resultType !== 'input_required' || key === undefined)
    throw new Error(`the run did not pause: ${JSON.stringify(paused).slice(0, 300)}`)
  const done = await callManual(second, {
    arguments: args,
    inputResponses: { [key]: { action: 'accept', content: {} } },
    requestState: paused.requestState,
  })
  if (done.isError === true || done.resultType === 'input_required')
    throw new Error(`the retry failed: ${JSON.stringify(done).slice(0, 300)}`)
}

/** A run in the session `handle` names (a new one without it); the handle its result names. */
async function runInSession(client: Client, handle: string | undefined): Promise<string> {
  const answer = await callManual(client, {
    arguments: {
      code: 'globalThis.n = (globalThis.n ?? 0) + 1\nreturn n',
      description: 'bench session',
      ...(handle === undefined ? {} : { session: handle }),
    },
  })
  const text = answer.content?.[0]?.text ?? ''
  const next = /\n\nsession: (\S+)$/.exec(text)?.[1]
  if (answer.isError === true || next === undefined) throw new Error(`the session run failed: ${text.slice(0, 300)}`)
  return next
}

/**
 * The cluster rows: a nats-server, one runner and two `serve --http --nats` nodes with one state
 * key, on this machine; interleaved rounds of each pair (same node, other node).
 */
async function measureCluster(workspace: BenchWorkspace, rounds: number): Promise<ClusterRoundTrips> {
  const { startNatsServer } = await import('@code-runtime/nats/local-server')
  const pass = createHash('sha256').update(BENCH_KEY).digest('hex').slice(0, 24)
  const nats = await startNatsServer({ user: 'bench', pass })
  const env = { PATH: process.env.PATH ?? '', NATS_USER: 'bench', NATS_PASS: pass }
  const children: ChildProcess[] = []
  const clients: Client[] = []
  try {
    const runner = await startChild(
      [
        CLI,
        'runner',
        '--nats',
        nats.url,
        '--backend',
        'worker-thread',
        '--concurrency',
        '8',
        '--max-runs-per-caller',
        '8',
      ],
      env,
      /runner: \S+ takes up to/,
    )
    children.push(runner.child)
    const config = await workspace.approvalConfig()
    const keys = join(workspace.directory, 'bench.keys')
    await writeFile(keys, `bench ${createHash('sha256').update(BENCH_KEY).digest('hex')}\n`)
    await chmod(keys, 0o600)
    const stateKey = join(workspace.directory, 'state.key')
    await writeFile(stateKey, createHash('sha256').update(`state ${pass}`).digest())
    await chmod(stateKey, 0o600)
    const nodeArgs = [
      CLI,
      'serve',
      '--config',
      config,
      '--http',
      '0',
      '--auth-keys',
      keys,
      '--nats',
      nats.url,
      '--state-key',
      stateKey,
      '--type-check',
      'off',
    ]
    const nodes = await Promise.all([0, 1].map(() => startChild(nodeArgs, env, /listening on (http:\/\/\S+)/)))
    children.push(...nodes.map(node => node.child))
    const [a, b] = await Promise.all(nodes.map(node => connectManual(new URL(node.match[1] as string))))
    clients.push(a as Client, b as Client)
    const onA = a as Client
    const onB = b as Client
    const samples = {
      approvalSame: [] as number[],
      approvalOther: [] as number[],
      sessionSame: [] as number[],
      sessionAlternating: [] as number[],
    }
    let sameHandle = await runInSession(onA, undefined)
    let movingHandle = await runInSession(onA, undefined)
    let turn = 0
    const warmUp = 2
    for (let round = 0; round < rounds + warmUp; round++) {
      const approvalSame = await timed(() => approveAcross(onA, onA))
      const approvalOther = await timed(() => approveAcross(onA, onB))
      const started = performance.now()
      sameHandle = await runInSession(onA, sameHandle)
      const sessionSame = performance.now() - started
      const moved = performance.now()
      movingHandle = await runInSession(turn++ % 2 === 0 ? onB : onA, movingHandle)
      const sessionAlternating = performance.now() - moved
      if (round < warmUp) continue
      samples.approvalSame.push(approvalSame)
      samples.approvalOther.push(approvalOther)
      samples.sessionSame.push(sessionSame)
      samples.sessionAlternating.push(sessionAlternating)
    }
    return {
      approvalSameNodeMs: summarizeSamples(samples.approvalSame),
      approvalOtherNodeMs: summarizeSamples(samples.approvalOther),
      sessionSameNodeMs: summarizeSamples(samples.sessionSame),
      sessionAlternatingMs: summarizeSamples(samples.sessionAlternating),
    }
  } finally {
    await Promise.allSettled(clients.map(client => client.close()))
    for (const child of children) child.kill('SIGKILL')
    await nats.dispose()
  }
}

async function measureColumn(
  workspace: BenchWorkspace,
  direct: Client,
  config: ServeConfig,
  rounds: number,
): Promise<ServeColumn> {
  const connection = await workspace.connect(await workspace.config(false), config.args, config.transport)
  try {
    const firstRunMs = await timed(() => connection.runCode(ONE_CALL))
    const samples = {
      direct: [] as number[],
      runOne: [] as number[],
      directTen: [] as number[],
      runTen: [] as number[],
    }
    const warmUp = 2
    for (let round = 0; round < rounds + warmUp; round++) {
      const directMs = await timed(() => direct.callTool({ name: 'read_graph', arguments: {} }))
      const runOneMs = await timed(() => connection.runCode(ONE_CALL))
      const directTenMs = await timed(async () => {
        for (let call = 0; call < 10; call++) await direct.callTool({ name: 'read_graph', arguments: {} })
      })
      const runTenMs = await timed(() => connection.runCode(TEN_CALLS))
      if (round < warmUp) continue
      samples.direct.push(directMs)
      samples.runOne.push(runOneMs)
      samples.directTen.push(directTenMs)
      samples.runTen.push(runTenMs)
    }
    return {
      name: config.name,
      args: config.args,
      directMs: summarizeSamples(samples.direct),
      runOneMs: summarizeSamples(samples.runOne),
      directTenMs: summarizeSamples(samples.directTen),
      runTenMs: summarizeSamples(samples.runTen),
      firstRunMs,
    }
  } finally {
    await connection.close()
  }
}

async function measureStartup(
  workspace: BenchWorkspace,
  samples: number,
): Promise<{ initializeMs: SampleSummary; toolsListMs: SampleSummary }> {
  const config = await workspace.config(true)
  const initialize: number[] = []
  const toolsList: number[] = []
  for (let sample = 0; sample < samples; sample++) {
    const started = performance.now()
    const client = await workspace.serve(config, [])
    initialize.push(performance.now() - started)
    await client.listTools()
    toolsList.push(performance.now() - started)
    await client.close()
  }
  return { initializeMs: summarizeSamples(initialize), toolsListMs: summarizeSamples(toolsList) }
}

/** Pings every few milliseconds while `load` runs, once idle for as many pings. */
async function measurePings(
  workspace: BenchWorkspace,
  checkedCalls: number,
): Promise<Pick<ServeMeasurements, 'pingIdleMs' | 'pingDuringChecksMs'>> {
  const client = await workspace.serve(await workspace.config(false), [])
  try {
    await runCode(client, CHECKED)
    const pingWhile = async (busy: () => boolean): Promise<number[]> => {
      const rtts: number[] = []
      while (busy()) {
        rtts.push(await timed(() => client.ping()))
        await new Promise(resolve => setTimeout(resolve, 5))
      }
      return rtts
    }
    let checking = true
    const [during] = await Promise.all([
      pingWhile(() => checking),
      (async () => {
        for (let call = 0; call < checkedCalls; call++) await runCode(client, `${CHECKED}\n// ${call}`)
        checking = false
      })(),
    ])
    let count = 0
    const idle = await pingWhile(() => count++ < during.length)
    return { pingIdleMs: withP99(idle), pingDuringChecksMs: withP99(during) }
  } finally {
    await client.close()
  }
}

async function measureRss(workspace: BenchWorkspace, calls: number): Promise<ServeMeasurements['rss']> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', await workspace.config(false)],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'code-runtime-bench', version: '1.0.0' })
  await client.connect(transport)
  try {
    const pid = transport.pid as number
    const warmUp = Math.min(100, calls / 10)
    for (let call = 0; call < warmUp; call++) await runCode(client, ONE_CALL)
    const startMiB = residentMiB(pid)
    for (let call = warmUp; call < calls; call++) await runCode(client, ONE_CALL)
    return { calls, startMiB, endMiB: residentMiB(pid) }
  } finally {
    await client.close()
  }
}

/** Interleaved rounds of a run whose call is approved and the same run needing no approval, per revision. */
async function measureApprovals(workspace: BenchWorkspace, rounds: number): Promise<ApprovalRoundTrip[]> {
  const config = await workspace.approvalConfig()
  const measured: ApprovalRoundTrip[] = []
  for (const transport of ['http-2025', 'http-2026'] as const) {
    const connection = await workspace.connect(config, ['--type-check', 'off'], transport, true)
    try {
      const asked: number[] = []
      const unasked: number[] = []
      const warmUp = 2
      for (let round = 0; round < rounds + warmUp; round++) {
        const askedMs = await timed(() => connection.runCode(ASKED_CALL))
        const unaskedMs = await timed(() => connection.runCode(UNASKED_CALL))
        if (round < warmUp) continue
        asked.push(askedMs)
        unasked.push(unaskedMs)
      }
      measured.push({ transport, askedMs: summarizeSamples(asked), unaskedMs: summarizeSamples(unasked) })
    } finally {
      await connection.close()
    }
  }
  return measured
}

/** Measures the section; a machine where serve cannot run gets the reason, never a throw. */
export async function measureServeSection(isQuick: boolean, progress: (line: string) => void): Promise<ServeSection> {
  let workspace: BenchWorkspace | undefined
  let direct: Client | undefined
  try {
    workspace = await BenchWorkspace.create()
    direct = await connectClient(workspace.memory, [], workspace.memoryEnv)
    const columns: (ServeColumn | FailedServeColumn)[] = []
    for (const config of CONFIGS) {
      try {
        columns.push(await measureColumn(workspace, direct, config, isQuick ? 6 : 20))
        progress(`serve: ${config.name} measured`)
      } catch (error) {
        columns.push({ name: config.name, failed: error instanceof Error ? error.message : String(error) })
        progress(`serve: ${config.name} not measured`)
      }
    }
    const startup = await measureStartup(workspace, isQuick ? 3 : 8)
    progress('serve: start-up measured')
    const pings = await measurePings(workspace, isQuick ? 20 : 100)
    const rss = await measureRss(workspace, isQuick ? 200 : 1_000)
    progress('serve: pings and RSS measured')
    const approvals = await measureApprovals(workspace, isQuick ? 6 : 20)
    progress('serve: approval round trips measured')
    let cluster: ServeMeasurements['cluster']
    try {
      cluster = await measureCluster(workspace, isQuick ? 6 : 20)
      progress('serve: two gateway nodes measured')
    } catch (error) {
      cluster = { failed: error instanceof Error ? error.message : String(error) }
      progress('serve: two gateway nodes not measured')
    }
    return { columns, ...startup, ...pings, rss, approvals, cluster }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  } finally {
    await direct?.close()
    await workspace?.remove()
  }
}

/** The section as Markdown: the table per config, then start-up, the event loop and memory. */
export function renderServeSection(section: ServeSection): string {
  const title = '## serve: the product path (MCP client → run_code → upstream server)'
  if ('failed' in section) return `${title}\n\nNot measured: ${section.failed}\n`
  const rows = section.columns.map(column => {
    if ('failed' in column) return `| ${column.name} | not measured: ${column.failed.slice(0, 200)} | | | | | |`
    const direct = column.directMs.median
    const overhead = column.runOneMs.median - direct
    const perInner = (column.runTenMs.median - column.runOneMs.median) / 9 - direct
    return `| ${column.name} | ${formatMs(direct)} ms | ${formatMs(column.runOneMs.median)} ms | ${formatMs(overhead)} ms | ${formatMs(perInner)} ms | ${formatMs(column.directTenMs.median)} / ${formatMs(column.runTenMs.median)} ms (${(column.runTenMs.median / column.directTenMs.median).toFixed(2)}×) | ${formatMs(column.firstRunMs)} ms |`
  })
  const ping = (summary: ServeMeasurements['pingIdleMs']): string =>
    `median ${formatMs(summary.median)} ms, p99 ${formatMs(summary.p99)} ms, max ${formatMs(summary.max)} ms (${summary.count} pings)`
  const growth = ((section.rss.endMiB - section.rss.startMiB) / section.rss.startMiB) * 100
  return `${[
    title,
    '',
    'Medians of interleaved rounds (direct call, run_code with one call, ten direct calls, one program of ten calls) from the official MCP client over stdio (the `--http` rows: over HTTP to `serve --http` with a keys file, as a 2025-11-25 session or a 2026-07-28 client passing its session handle back); the upstream is `@modelcontextprotocol/server-memory` (`read_graph`), called directly by a client of its own in the same rounds. Overhead per run_code: run_code with one call minus a direct call. Per inner call: (ten-call program − one-call program) / 9 − a direct call. First run_code: sent right after `initialize` to a fresh server (it waits for the upstream and the backend).',
    '',
    '| serve config | direct call | run_code, 1 call | overhead per run_code | per inner call beyond a direct call | 10 calls: direct / in one program | first run_code after initialize |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Start-up with two upstream servers (memory, filesystem), defaults, ${section.initializeMs.count} fresh processes: spawn → \`initialize\` answered, median ${formatMs(section.initializeMs.median)} ms (max ${formatMs(section.initializeMs.max)}); spawn → \`tools/list\` answered, median ${formatMs(section.toolsListMs.median)} ms (max ${formatMs(section.toolsListMs.max)}).`,
    '',
    `The event loop as the client feels it (\`ping\` round trips, defaults): idle ${ping(section.pingIdleMs)}; while checked run_code calls follow one another ${ping(section.pingDuringChecksMs)}.`,
    '',
    `serve's RSS (its own process) over ${section.rss.calls} run_code calls: ${section.rss.startMiB.toFixed(1)} MiB after the first ${Math.min(100, section.rss.calls / 10)}, ${section.rss.endMiB.toFixed(1)} MiB at the end (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %).`,
    '',
    'What one approval adds (one node, `serve --http`, check off; the client answers at once): a run whose one call needs approval against the same run of a tool configured not to ask, medians of interleaved rounds. 2025-11-25 asks mid-run (one elicitation request); 2026-07-28 pauses the run and answers `input_required`, and the client retries `tools/call` with the answer.',
    '',
    '| revision | run with one approval | same run, no approval | approval round trip |',
    '|---|---|---|---|',
    ...section.approvals.map(
      approval =>
        `| ${approval.transport === 'http-2025' ? '2025-11-25 (elicitation)' : '2026-07-28 (input_required, retry)'} | ${formatMs(approval.askedMs.median)} ms | ${formatMs(approval.unaskedMs.median)} ms | ${formatMs(approval.askedMs.median - approval.unaskedMs.median)} ms |`,
    ),
    '',
    ...renderCluster(section.cluster),
  ].join('\n')}\n`
}

/** The cluster rows: each pair on one node and across the two, and what crossing adds. */
function renderCluster(cluster: ServeMeasurements['cluster']): string[] {
  const intro =
    'Across gateway nodes (a nats-server, one runner, two `serve --http --nats` nodes with one `--state-key`, check off; the 2026-07-28 client in manual mode answers at once): an approval paused on one node and resumed by a retry sent to the same node or to the other one (which forwards it over NATS), and a run in a session by handle sent to the node that ran the last one or to the other one (which takes the session over on its runner). Medians of interleaved rounds.'
  if ('failed' in cluster) return [intro, '', `Not measured: ${cluster.failed.slice(0, 300)}`, '']
  const row = (name: string, same: SampleSummary, other: SampleSummary): string =>
    `| ${name} | ${formatMs(same.median)} ms | ${formatMs(other.median)} ms | ${formatMs(other.median - same.median)} ms |`
  return [
    intro,
    '',
    '| call | on one node | across nodes | what crossing adds |',
    '|---|---|---|---|',
    row('approval: pause → retry → resume', cluster.approvalSameNodeMs, cluster.approvalOtherNodeMs),
    row('a run in a session by handle', cluster.sessionSameNodeMs, cluster.sessionAlternatingMs),
    '',
  ]
}
