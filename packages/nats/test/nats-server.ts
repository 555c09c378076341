/**
 * Test support: a real nats-server (Debian's `nats-server`) on a free loopback port, with a
 * config file in a temporary directory, started and stopped by the test; and runners on it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCodeRuntime, type CodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { startRunner, type Runner, type RunnerOptions } from '@code-runtime/nats'

/** A free TCP port on loopback, as the kernel hands it out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** A running nats-server. */
export interface NatsServer {
  readonly url: string
  readonly port: number
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>
  /** Starts it again on the same port, after stop(). */
  restart(): Promise<void>
  /** Stops it and removes its directory. */
  dispose(): Promise<void>
}

/** Options: credentials every client must give. */
export interface NatsServerOptions {
  readonly user?: string
  readonly pass?: string
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const directory = await mkdtemp(join(tmpdir(), 'code-runtime-nats-'))
  const port = await freePort()
  const lines = [`listen: "127.0.0.1:${port}"`, 'max_payload: 8MB', `pid_file: "${join(directory, 'nats.pid')}"`]
  if (options.user !== undefined) lines.push(`authorization { user: "${options.user}", password: "${options.pass ?? ''}" }`)
  const configPath = join(directory, 'nats.conf')
  await writeFile(configPath, `${lines.join('\n')}\n`)
  let child: ChildProcess | undefined
  const launch = (): Promise<void> => new Promise((resolve, reject) => {
    const started = spawn('nats-server', ['-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] })
    child = started
    let output = ''
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Server is ready')) resolve()
    })
    started.once('error', reject)
    started.once('exit', (code) => reject(new Error(`nats-server exited (${String(code)}): ${output}`)))
  })
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGTERM')
    })
  }
  await launch()
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop,
    restart: launch,
    async dispose() {
      await stop()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/** A worker-thread backend with a caller's budgets: what a test runner runs programs on. */
export function startWorkerBackend(budgets: { computeMs: number; maxWallMs: number; maxOutputBytes: number }): Promise<StartedCodeRuntime<CodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, budgets)
}

/** Runners in this process, on worker threads. */
export function startTestRunners(url: string, count: number, options: Partial<RunnerOptions> = {}): Promise<Runner[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => startRunner({
    nats: { servers: url },
    startBackend: startWorkerBackend,
    id: `runner-${index + 1}`,
    ...options,
  })))
}
