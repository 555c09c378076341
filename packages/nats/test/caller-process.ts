/**
 * Test support run as its own process: a caller that starts one endless run (its program calls
 * `tools.ping` first, printing `pinged`), so a test can kill the caller mid-run.
 */
import { startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime } from '@code-runtime/nats'

const { runtime } = await startCodeRuntime(NatsCodeRuntime, { servers: process.argv[2] ?? '' })
await runtime.run({
  program: 'await tools.ping({})\nwhile (true) await new Promise((resolve) => setTimeout(resolve, 50))',
  bindings: [{ global: 'tools', functions: { ping: async () => (process.stdout.write('pinged\n'), null) } }],
})
