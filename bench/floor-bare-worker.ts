/**
 * The bare-worker floor: `new Worker(...)` of a one-line eval script that posts a message at once,
 * timed to that first message. Nothing of ours is loaded in it, so it is what a fresh thread with
 * its own Node environment costs here; the worker-thread backend's cold run is compared to it.
 */
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type { FloorProbe, FloorRound } from './floor-probe.js'

const POST_AT_ONCE = "require('node:worker_threads').parentPort.postMessage(1)"

async function spawnToFirstMessage(): Promise<FloorRound> {
  const startedAt = performance.now()
  const worker = new Worker(POST_AT_ONCE, { eval: true })
  const wallMs = await new Promise<number>((resolve, reject) => {
    worker.once('message', () => resolve(performance.now() - startedAt))
    worker.once('error', reject)
  })
  // Teardown is part of a fresh worker's cost (its CPU is counted), not of the time to ready.
  await worker.terminate()
  return { wallMs }
}

export const bareWorkerFloor: FloorProbe = {
  name: 'bare-worker',
  description: '`new Worker(script, { eval: true })` whose script posts a message at once: spawn to that first message',
  cpuCovers: 'the host process with the thread, spawn to terminate',
  round: spawnToFirstMessage,
  dispose: () => Promise.resolve(),
}
