/**
 * The NATS section: what sending runs to remote runners costs next to the local backend they
 * wrap, all measured in one run on this machine. A nats-server on loopback, runners as their own
 * processes (`code-runtime runner --backend worker-thread`), and the caller here; beside them the
 * same workloads on a local worker-thread runtime. Reported: trivial back to back, 10 000
 * sequential binding calls, and throughput at 4 callers with 1 and with 2 runners; from them, the
 * overhead per run and per binding call. On a 2-core machine the runners, the server and the
 * caller share the cores, so the 2-runner throughput shows the protocol's cost, not a fleet's gain.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startCodeRuntime, type CodeRunRequest, type CodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime } from '@code-runtime/nats'
import { startNatsServer } from '@code-runtime/nats/local-server'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { formatMs, summarizeSamples } from './statistics.js'

const CLI = fileURLToPath(new URL('../../packages/mcp/dist/src/cli.js', import.meta.url))

/** One column of the section. */
interface NatsColumn {
  readonly name: string
  /** Median ms of a trivial run, back to back. */
  readonly trivialMs: number
  /** Median ms of one run making 10 000 sequential binding calls. */
  readonly calls10kMs: number
  /** Runs per second at 4 concurrent callers. */
  readonly runsPerSecond: number
}

/** What the section gives: its columns, or why it could not run. */
export type NatsSection = { readonly columns: readonly NatsColumn[] } | { readonly failed: string }

const TRIVIAL: CodeRunRequest = { program: 'return 1', bindings: [] }
const CALLS: CodeRunRequest = {
  program: 'let sum = 0\nfor (let i = 0; i < 10000; i++) sum += await tools.echo(i)\nreturn sum',
  bindings: [{ global: 'tools', functions: { echo: async value => value as number } }],
}

async function measureColumn(name: string, runtime: CodeRuntime, isQuick: boolean): Promise<NatsColumn> {
  const trivial: number[] = []
  for (let index = 0; index < (isQuick ? 20 : 100); index++) {
    const started = performance.now()
    const result = await runtime.run(TRIVIAL)
    if (result.error !== undefined) throw new Error(`${name}: ${result.error.message}`)
    trivial.push(performance.now() - started)
  }
  const calls: number[] = []
  for (let index = 0; index < (isQuick ? 2 : 5); index++) {
    const started = performance.now()
    const result = await runtime.run(CALLS)
    if (result.error !== undefined) throw new Error(`${name}: ${result.error.message}`)
    calls.push(performance.now() - started)
  }
  const phaseMs = isQuick ? 1_500 : 5_000
  const until = performance.now() + phaseMs
  let runs = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        await runtime.run(TRIVIAL)
        runs++
      }
    }),
  )
  return {
    name,
    trivialMs: summarizeSamples(trivial).median,
    calls10kMs: summarizeSamples(calls).median,
    runsPerSecond: runs / ((performance.now() - started) / 1000),
  }
}

function startRunnerProcess(url: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'runner', '--nats', url, '--insecure-no-auth', '--backend', 'worker-thread', '--concurrency', '4'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes('takes up to')) resolve(child)
    })
    child.once('exit', code => reject(new Error(`a runner exited (${String(code)}): ${stderr.trim()}`)))
  })
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise(resolve => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** Measures the section; a machine without nats-server gets the reason, never a throw. */
export async function measureNatsSection(isQuick: boolean, progress: (line: string) => void): Promise<NatsSection> {
  let server
  try {
    server = await startNatsServer()
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
  const runners: ChildProcess[] = []
  try {
    const columns: NatsColumn[] = []
    const local = await startCodeRuntime(WorkerThreadCodeRuntime, {})
    try {
      columns.push(await measureColumn('worker-thread (local)', local.runtime, isQuick))
    } finally {
      await local.dispose()
    }
    for (const count of [1, 2]) {
      while (runners.length < count) runners.push(await startRunnerProcess(server.url))
      const remote = await startCodeRuntime(NatsCodeRuntime, { servers: server.url })
      try {
        columns.push(await measureColumn(`nats, ${count} runner${count === 1 ? '' : 's'}`, remote.runtime, isQuick))
      } finally {
        await remote.dispose()
      }
      progress(`nats: ${count} runner(s) measured`)
    }
    return { columns }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  } finally {
    await Promise.all(runners.map(stopProcess))
    await server.dispose()
  }
}

/** The section as Markdown: the table, then the overheads it implies. */
export function renderNatsSection(section: NatsSection): string {
  if ('failed' in section) return `## NATS backend\n\nNot measured: ${section.failed}\n`
  const rows = section.columns.map(
    column =>
      `| ${column.name} | ${formatMs(column.trivialMs)} ms | ${formatMs(column.calls10kMs)} ms | ${column.runsPerSecond.toFixed(0)} |`,
  )
  const [local, oneRunner] = section.columns
  const lines = [
    '## NATS backend',
    '',
    '| column | trivial (median, back to back) | calls10k (median) | throughput at 4 callers (runs/s) |',
    '|---|---|---|---|',
    ...rows,
    '',
  ]
  if (local !== undefined && oneRunner !== undefined) {
    lines.push(
      `Overhead of a run through NATS: ${formatMs(oneRunner.trivialMs - local.trivialMs)} ms; of one binding call: ${formatMs(((oneRunner.calls10kMs - local.calls10kMs) / 10_000) * 1000)} µs (each a request/reply round trip through the server).`,
      '',
    )
  }
  return `${lines.join('\n')}\n`
}
