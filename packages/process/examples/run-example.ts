/**
 * The main job of this package: run an untrusted, model-style program in the container backend
 * (falling back to the process backend where bubblewrap cannot run), against host bindings over
 * an in-memory order book, and print the backend, the logs and the value.
 *
 *   node packages/process/dist/examples/run-example.js
 */
import {
  CodeRuntimeError,
  startCodeRuntime,
  type CodeBindingNamespace,
  type CodeRuntime,
  type StartedCodeRuntime,
} from '@code-runtime/core'
import { ContainerCodeRuntime, ProcessCodeRuntime } from '@code-runtime/process'

const ORDERS = [
  { id: 'A-100', customer: 'ada', totalEur: 120, status: 'late' },
  { id: 'A-101', customer: 'grace', totalEur: 35, status: 'shipped' },
  { id: 'A-102', customer: 'alan', totalEur: 80, status: 'late' },
]
const refunded: string[] = []

const orders: CodeBindingNamespace = {
  global: 'orders',
  functions: {
    list: async args => ORDERS.filter(order => order.status === (args as { status?: unknown }).status),
    refund: async args => {
      const id = (args as { id?: unknown }).id
      if (!ORDERS.some(order => order.id === id)) throw new Error(`no order ${String(id)}`)
      refunded.push(String(id))
      return { id: String(id), refunded: true }
    },
  },
  errorClass: { name: 'OrderError', memberNameProperty: 'operation' },
}

// What a model might write: typed, awaits the bindings, logs as it goes.
const program = `
interface Order { id: string; customer: string; totalEur: number }
const late = await orders.list({ status: 'late' }) as Order[]
console.log(\`\${late.length} late orders\`)
for (const order of late) await orders.refund({ id: order.id })
try { await orders.refund({ id: 'Z-999' }) } catch (error) {
  if (error instanceof OrderError) console.log(\`\${error.operation} failed: \${error.message}\`)
}
return { refunded: late.map((order) => order.id), totalEur: late.reduce((sum, order) => sum + order.totalEur, 0) }
`

/** The container backend where bubblewrap works here, otherwise the process backend. */
async function startSandbox(): Promise<StartedCodeRuntime<CodeRuntime>> {
  try {
    return await startCodeRuntime(ContainerCodeRuntime, { computeMs: 5_000, maxMemoryMb: 2048 })
  } catch (error) {
    if (!CodeRuntimeError.is(error) || error.code !== 'CODE_RUNTIME_UNAVAILABLE') throw error
    console.error(`container backend unavailable, using the process backend: ${error.message}`)
    return startCodeRuntime(ProcessCodeRuntime, { computeMs: 5_000, maxMemoryMb: 2048 })
  }
}

const { runtime, dispose } = await startSandbox()
try {
  console.log(`[backend] ${runtime.isolation}`)
  const result = await runtime.run({ program, bindings: [orders] })
  for (const line of result.logs) console.log(`[log] ${line}`)
  if (result.error !== undefined) {
    console.error(`run failed (${result.error.kind}): ${result.error.message}`)
    process.exitCode = 1
  } else {
    console.log(JSON.stringify(result.value))
  }
} finally {
  await dispose()
}
