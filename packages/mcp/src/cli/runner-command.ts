/**
 * `code-runtime runner --nats <url>`: a runner of `@code-runtime/nats` on this machine, running
 * programs of callers elsewhere on a local backend, until SIGTERM or SIGINT drains it.
 */
import { CodeRuntimeError } from '@code-runtime/core'
import { startRunner } from '@code-runtime/nats'
import type { CliCommand } from './cli-arguments.js'
import { EXIT_SUCCESS } from './cli-arguments.js'
import { McpProxyError } from '../errors.js'
import { natsConnectionFields, startBackend, startChosenBackend } from '../runtime-backend.js'

function log(message: string): void {
  process.stderr.write(`code-runtime runner: ${message}\n`)
}

function stopRequested(): Promise<string> {
  return new Promise(resolve => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
}

/** Runs the `runner` command until it is drained; resolves the exit code. */
export async function runnerCommand(command: Extract<CliCommand, { command: 'runner' }>): Promise<number> {
  // The backend is started once here, so a runner that cannot run programs says so and exits,
  // and one whose default cannot work here settles on its fallback once.
  const probe = await startChosenBackend(command.backend, command.backendChosen, { maxWallMs: 60_000 }, log)
  await probe.dispose()
  const backend = probe.backend
  const connection = await natsConnectionFields(command.natsConnection, log)
  let runner
  try {
    runner = await startRunner({
      nats: { servers: command.natsServers, ...connection },
      startBackend: budgets => startBackend(backend, budgets),
      concurrency: command.concurrency,
      ...(command.maxRunsPerCaller === undefined ? {} : { maxRunsPerCaller: command.maxRunsPerCaller }),
      ...(command.maxBackends === undefined ? {} : { maxBackends: command.maxBackends }),
    })
  } catch (error) {
    if (CodeRuntimeError.is(error))
      throw new McpProxyError('MCP_PROXY_CONNECT_FAILED', `--nats: ${error.message}`, { cause: error })
    throw error
  }
  const stopping = stopRequested()
  log(
    `${runner.id} takes up to ${command.concurrency} runs at once on the ${backend} backend from ${command.natsServers.join(', ')}.`,
  )
  const reason = await stopping
  log(`draining (${reason}): no new runs; running ones get ${command.graceMs} ms.`)
  await runner.drain(command.graceMs)
  log('stopped.')
  return EXIT_SUCCESS
}
