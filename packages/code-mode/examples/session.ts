import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'

let fetches = 0
const tools: CodeModeTool[] = [
  {
    name: 'list-orders',
    description: 'Every order of the shop.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'number' }, total: { type: 'number' } },
        required: ['id', 'total'],
      },
    },
    execute: async () => (
      fetches++,
      [
        { id: 1, total: 30 },
        { id: 2, total: 12 },
        { id: 3, total: 58 },
      ]
    ),
  },
]

const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, {})
const codeMode = createCodeMode({ tools, runtime, session: true })
await codeMode.run('const orders = await tools.list_orders()') // fetched once, kept in the session
const big = await codeMode.run('orders.filter((order) => order.total > 20).map((order) => order.id)')
await codeMode.resetSession() // forget every variable; the next run opens a new session
const after = await codeMode.run('typeof orders')
console.log(big.text.replace(/\s+/g, ''), fetches, after.text)
await codeMode.dispose()
await dispose()
