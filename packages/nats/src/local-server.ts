/**
 * A real nats-server on a free loopback port for tests, demos and benchmarks (the `nats-server`
 * binary on PATH: Debian's `nats-server` package), with a config file in a temporary directory:
 * started, stopped, restarted on the same port and removed. Not for production: a deployment runs
 * its own NATS cluster (docs/SCALING.md).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A free TCP port on loopback, as the kernel hands it out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      )
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
  /** More of nats-server's config, as written in its config file (an `authorization` block with users and permissions, say). */
  readonly extraConfig?: string
}

/**
 * Starts nats-server on a free loopback port; resolves once it is ready.
 * @throws {Error} when `nats-server` is not installed or exits before it is ready.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const directory = await mkdtemp(join(tmpdir(), 'code-runtime-nats-'))
  const port = await freePort()
  const lines = [`listen: "127.0.0.1:${port}"`, 'max_payload: 8MB', `pid_file: "${join(directory, 'nats.pid')}"`]
  if (options.user !== undefined)
    lines.push(`authorization { user: "${options.user}", password: "${options.pass ?? ''}" }`)
  if (options.extraConfig !== undefined) lines.push(options.extraConfig)
  const configPath = join(directory, 'nats.conf')
  await writeFile(configPath, `${lines.join('\n')}\n`)
  let child: ChildProcess | undefined
  const launch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = spawn('nats-server', ['-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] })
      child = started
      let output = ''
      started.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes('Server is ready')) resolve()
      })
      started.once('error', error =>
        reject(
          (error as { code?: unknown }).code === 'ENOENT'
            ? new Error('nats-server is not installed (Debian: apt-get install nats-server)')
            : error,
        ),
      )
      started.once('exit', code => reject(new Error(`nats-server exited (${String(code)}): ${output}`)))
    })
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    await new Promise<void>(resolve => {
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
