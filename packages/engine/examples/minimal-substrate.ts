// examples/minimal-substrate.ts: a substrate and its factory, on the host
import { Worker } from 'node:worker_threads'
import type { EventLoopUtilization } from 'node:perf_hooks'
import type { HostToGuestMessage, Substrate, SubstrateFactory, SubstrateListener } from '@code-runtime/engine'

class MinimalSubstrate implements Substrate {
  readonly exited: Promise<void>
  private readonly worker: Worker
  private listener: SubstrateListener | undefined
  private baseline: EventLoopUtilization
  private outOfMemory = false

  constructor(worker: Worker) {
    this.worker = worker
    this.baseline = worker.performance.eventLoopUtilization()
    this.exited = new Promise(resolve => worker.once('exit', () => resolve()))
    worker.on('message', raw => this.listener?.message(raw)) // the engine decodes and checks it
    // An error in the worker is followed by its exit; running out of heap is the one worth naming.
    worker.on('error', (error: Error & { code?: unknown }) => {
      this.outOfMemory ||= error.code === 'ERR_WORKER_OUT_OF_MEMORY'
    })
    worker.on('exit', code =>
      this.listener?.exit(this.outOfMemory ? { kind: 'out-of-memory' } : { kind: 'exited', code }),
    )
  }

  send(message: HostToGuestMessage): void {
    this.worker.postMessage(message)
  }

  attach(listener: SubstrateListener): void {
    this.listener = listener
  }

  resetBusyTime(): void {
    this.baseline = this.worker.performance.eventLoopUtilization()
  }

  busyMs(): number {
    // Read from another thread, the difference can come out a hair below zero.
    return Math.max(0, this.worker.performance.eventLoopUtilization(this.baseline).active)
  }

  terminate(): void {
    this.worker.terminate().catch(() => {})
  }
}

/** Spawns one worker per substrate, with a heap cap (a session's own, when it has one); ready once its guest says so. */
export function minimalFactory(maxOldGenerationSizeMb: number): SubstrateFactory {
  return {
    spawn: (options = {}) =>
      new Promise((resolve, reject) => {
        const entry = new URL('./minimal-entry.js', import.meta.url)
        const heapMb = options.maxOldGenerationSizeMb ?? maxOldGenerationSizeMb
        const worker = new Worker(entry, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: heapMb } })
        worker.once('message', () => resolve(new MinimalSubstrate(worker))) // guest-ready
        worker.once('error', reject)
        worker.once('exit', () => reject(new Error('the worker exited before it was ready')))
      }),
  }
}
