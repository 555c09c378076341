/**
 * Test support run as its own process: one runner on worker threads, so a test can kill it with
 * SIGKILL as a machine dies. Argument: the NATS URL and the runner id; prints `ready` once it
 * takes runs, and drains on SIGTERM.
 */
import { startRunner } from '@code-runtime/nats'
import { startWorkerBackend } from './nats-server.js'

const [servers, id, concurrency] = process.argv.slice(2)
const runner = await startRunner({
  nats: { servers: servers ?? '' },
  startBackend: startWorkerBackend,
  id: id ?? 'runner',
  concurrency: Number(concurrency ?? '1'),
})
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  void runner.drain(2_000).then(() => process.exit(0))
})
