// The smallest maxMemoryMb the config accepts must be enough for the running Node: each Node
// major reserves a different amount of address space beside its heap (Node 24 some 400 MiB more
// than Node 20), and a limit below it leaves the child unable to start at all.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NODE_BASELINE_MEMORY_MB } from '@code-runtime/process'
import { startContainerRuntime, startProcessRuntime } from './start.js'

const HEAP_MB = 64
const SMALLEST = {
  computeMs: 10_000,
  maxWallMs: 60_000,
  maxOldGenerationSizeMb: HEAP_MB,
  maxMemoryMb: HEAP_MB + NODE_BASELINE_MEMORY_MB,
}

// Keeps about 40 MiB of heap (5 000 arrays of 1 000 doubles), most of the 64 MiB cap.
const FILL_HEAP = `const kept = []
for (let i = 0; i < 5_000; i++) kept.push(new Array(1_000).fill(i + 0.5))
return kept.length`

describe(`the smallest maxMemoryMb (heap cap + NODE_BASELINE_MEMORY_MB ${NODE_BASELINE_MEMORY_MB}) on Node ${process.versions.node}`, () => {
  const disposers: (() => Promise<void>)[] = []
  after(() => Promise.all(disposers.map(dispose => dispose())))

  for (const [backend, start] of [
    ['process', startProcessRuntime],
    ['container', startContainerRuntime],
  ] as const) {
    it(`${backend}: starts the child and runs a program that fills most of its heap`, async () => {
      const { runtime, dispose } = await start(SMALLEST)
      disposers.push(dispose)
      const result = await runtime.run({ program: FILL_HEAP, bindings: [] })
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 5_000)
    })
  }
})
