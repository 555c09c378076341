// `npm run cluster-demo`: the README's main job, run on a small cluster on this machine: a
// nats-server on a free loopback port, two runners (`code-runtime runner`, each its own process on
// the process backend), and `code-runtime run ... --nats` sending the program to them while the
// MCP servers stay here. Everything it starts is stopped at the end, whatever happens.
import { spawn } from 'node:child_process'
import { startNatsServer } from '@code-runtime/nats/local-server'

const CLI = 'packages/mcp/dist/src/cli.js'

/** Starts a process and resolves once its stderr shows `ready`; its stderr goes on to ours, prefixed. */
function start(label, command, args, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let seen = ''
    child.stderr.on('data', chunk => {
      const text = chunk.toString()
      seen += text
      for (const line of text.split('\n').filter(Boolean)) process.stderr.write(`[${label}] ${line}\n`)
      if (ready.test(seen)) resolve(child)
    })
    child.once('error', error => reject(new Error(`${label}: ${error.message}`)))
    child.once('exit', code => reject(new Error(`${label} exited (${code}) before it was ready`)))
  })
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise(resolve => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

const started = []
let server
let exitCode = 1
try {
  server = await startNatsServer()
  const url = server.url
  process.stderr.write(`[nats-server] ready at ${url}\n`)
  for (const name of ['runner-1', 'runner-2']) {
    started.push(
      await start(
        name,
        process.execPath,
        [CLI, 'runner', '--nats', url, '--insecure-no-auth', '--concurrency', '2'],
        /takes up to/,
      ),
    )
  }
  const run = spawn(
    process.execPath,
    [
      CLI,
      'run',
      'packages/mcp/examples/programs/notes-digest.ts',
      '--config',
      'packages/mcp/examples/servers.json',
      '--nats',
      url,
      '--insecure-no-auth',
    ],
    { stdio: 'inherit' },
  )
  exitCode = await new Promise(resolve => run.once('exit', code => resolve(code ?? 1)))
} catch (error) {
  process.stderr.write(`cluster-demo: ${error.message}\n`)
} finally {
  // Runners first (they drain), then the server they talk through.
  for (const child of started) await stop(child)
  await server?.dispose()
}
process.exit(exitCode)
