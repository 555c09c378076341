// A program a model might write: one run that calls several tools, in parallel where it can,
// and returns only what the next step needs.
interface Product { sku: string; name: string; priceEur: number }
interface Stock { sku: string; onHand: number; reorderAt: number }

const products = (await inventory.listProducts({})) as Product[]
console.log(`checking ${products.length} products`)

const stock = await Promise.all(products.map((product) => inventory.getStock({ sku: product.sku }) as Promise<Stock>))
const low = stock.filter((item) => item.onHand <= item.reorderAt)

const report = []
for (const item of low) {
  const product = products.find((candidate) => candidate.sku === item.sku) as Product
  const quantity = item.reorderAt * 2 - item.onHand
  const cost = (await fx.convert({ amount: product.priceEur * quantity, from: 'EUR', to: 'USD' })) as number
  report.push({ sku: item.sku, name: product.name, order: quantity, costUsd: Math.round(cost * 100) / 100 })
}

try {
  await inventory.getStock({ sku: 'NOPE-404' })
} catch (error) {
  if (error instanceof ToolCallError) console.log(`expected failure from ${error.toolName}: ${error.message}`)
}

return { lowStock: report.length, report }
