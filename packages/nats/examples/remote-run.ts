// A runner and a caller on one NATS server (its URL in NATS_URL): the program runs on the
// runner's worker thread, and its call of api.getUser is answered here, where the function lives.
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { NatsCodeRuntime, startRunner } from '@code-runtime/nats'

const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'
// On another machine in a real deployment: `code-runtime runner --nats <url> --backend container`.
const runner = await startRunner({
  nats: { servers },
  startBackend: budgets => startCodeRuntime(WorkerThreadCodeRuntime, budgets),
  concurrency: 2,
})

const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers, computeMs: 5_000 })
const result = await runtime.run({
  program:
    'const user = await api.getUser({ id: 7 }) as { name: string }\nconsole.log(`found ${user.name}`)\nreturn user.name.toUpperCase()',
  bindings: [{ global: 'api', functions: { getUser: async () => ({ name: 'ada' }) } }],
})
console.log(result.logs.join('\n'), result.value, result.usage.runner === runner.id)
await dispose()
await runner.drain(1_000)
