/**
 * The main job of the worker-thread backend: run a model-style program from
 * examples/programs/ against real host bindings (an in-memory inventory and a currency
 * converter) and print its logs and value.
 *
 *   node packages/worker-thread/dist/examples/run-example.js [program.ts]
 */
import { readFile } from 'node:fs/promises'
import { startCodeRuntime, type CodeBindingNamespace } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

const CATALOGUE = [
  { sku: 'LAMP-01', name: 'Desk lamp', priceEur: 24.5, onHand: 3, reorderAt: 5 },
  { sku: 'MUG-02', name: 'Enamel mug', priceEur: 8, onHand: 40, reorderAt: 10 },
  { sku: 'PEN-03', name: 'Fountain pen', priceEur: 31, onHand: 2, reorderAt: 4 },
  { sku: 'BAG-04', name: 'Canvas bag', priceEur: 15, onHand: 12, reorderAt: 12 },
]
const EUR_TO_USD = 1.08

const inventory: CodeBindingNamespace = {
  global: 'inventory',
  functions: {
    listProducts: async () => CATALOGUE.map(({ sku, name, priceEur }) => ({ sku, name, priceEur })),
    getStock: async args => {
      const sku = (args as { sku?: unknown }).sku
      const item = CATALOGUE.find(product => product.sku === sku)
      if (item === undefined) throw new Error(`no product with sku ${String(sku)}`)
      return { sku: item.sku, onHand: item.onHand, reorderAt: item.reorderAt }
    },
  },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}

const fx: CodeBindingNamespace = {
  global: 'fx',
  functions: {
    convert: async args => {
      const { amount, from, to } = args as { amount: number; from: string; to: string }
      if (from !== 'EUR' || to !== 'USD') throw new Error(`cannot convert ${from} to ${to}`)
      return amount * EUR_TO_USD
    },
  },
}

const programPath = process.argv[2] ?? new URL('../../examples/programs/restock-report.ts', import.meta.url)
const program = await readFile(programPath, 'utf8')
const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, { computeMs: 5_000 })
try {
  const result = await runtime.run({ program, bindings: [inventory, fx] })
  for (const line of result.logs) console.log(`[log] ${line}`)
  if (result.error !== undefined) {
    console.error(`run failed (${result.error.kind}): ${result.error.message}`)
    process.exitCode = 1
  } else {
    console.log(JSON.stringify(result.value, null, 2))
  }
} finally {
  await dispose()
}
