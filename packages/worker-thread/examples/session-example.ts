// examples/session-example.ts: a persistent session keeps what one run declared for the next
import { startCodeRuntime, type CodeBindingNamespace } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

let fetches = 0
const api: CodeBindingNamespace = {
  global: 'api',
  functions: {
    listOrders: async () => {
      fetches++
      return [
        { id: 1, total: 30 },
        { id: 2, total: 12 },
        { id: 3, total: 45 },
      ]
    },
  },
}

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, { computeMs: 5_000 })
const session = await runtime.openSession({ idleMs: 60_000 })
// First run: fetch once, keep the rows in a top-level const.
const first = await session.run({
  program: 'const orders = await api.listOrders() as { id: number; total: number }[]\norders.length',
  bindings: [api],
})
// Second run: the rows are still there, no second fetch; the last expression is the value.
const second = await session.run({
  program: 'orders.filter((order) => order.total > 20).map((order) => order.id)',
  bindings: [api],
})
console.log(JSON.stringify({ first: first.value, second: second.value, fetches }))
// {"first":3,"second":[1,3],"fetches":1}
await session.dispose()
await dispose()
