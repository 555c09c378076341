/**
 * The worker-thread substrate: one fresh worker, no environment, no inherited flags, a heap cap,
 * its stdout/stderr piped and discarded (the program cannot reach them; only Node itself could
 * write there).
 */
import { Worker } from 'node:worker_threads'
import type { Substrate, SubstrateExit, SubstrateFactory, SubstrateListener } from './substrate.js'
import type { HostToGuestMessage } from './protocol.js'

const WORKER_ENTRY = new URL('./guest/worker-entry.js', import.meta.url)

/** Options of {@link WorkerSubstrateFactory}. */
export interface WorkerSubstrateOptions {
  readonly maxOldGenerationSizeMb: number
}

type EventLoopUtilization = ReturnType<Worker['performance']['eventLoopUtilization']>

class WorkerSubstrate implements Substrate {
  readonly exited: Promise<void>
  private readonly worker: Worker
  private listener: SubstrateListener | undefined
  private exitReason: SubstrateExit | undefined
  private busyBaseline: EventLoopUtilization | undefined
  private terminated = false
  /** Set while waiting for `guest-ready`: at spawn, and after each recycle. */
  private readiness: { resolve(): void; reject(reason: SubstrateExit): void } | undefined

  constructor(worker: Worker, onReady: () => void, onEarlyExit: (reason: SubstrateExit) => void) {
    this.worker = worker
    this.readiness = { resolve: onReady, reject: onEarlyExit }
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()))
    worker.on('message', (raw: unknown) => {
      const readiness = this.readiness
      if (readiness !== undefined) {
        if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'guest-ready') {
          this.readiness = undefined
          readiness.resolve()
        }
        return
      }
      try {
        this.listener?.message(raw)
      } catch {
        // A listener bug must never surface as an uncaught exception in the host.
      }
    })
    worker.on('error', (error: Error & { code?: unknown }) => {
      this.exitReason ??= error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? { kind: 'out-of-memory' }
        : { kind: 'crashed', detail: error.name }
    })
    worker.on('exit', (code: number) => {
      const reason = this.exitReason ?? { kind: 'exited', code }
      const readiness = this.readiness
      if (readiness !== undefined) {
        this.readiness = undefined
        readiness.reject(reason)
        return
      }
      if (this.terminated) return
      try {
        this.listener?.exit(reason)
      } catch {
        // As above: never throw from a worker event.
      }
    })
  }

  recycle(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.listener = undefined
      this.worker.unref()
      this.readiness = { resolve, reject: (reason) => reject(new Error(`The worker exited while it was recycled (${reason.kind}).`)) }
      this.send({ kind: 'recycle' })
    })
  }

  send(message: HostToGuestMessage): void {
    try {
      this.worker.postMessage(message)
    } catch {
      // The worker is gone; its exit event settles the run.
    }
  }

  attach(listener: SubstrateListener): void {
    this.listener = listener
    // Idle workers waiting in the pool must not keep the host process alive; a running one must.
    this.worker.ref()
  }

  resetBusyTime(): void {
    this.busyBaseline = this.worker.performance.eventLoopUtilization()
  }

  busyMs(): number {
    if (this.busyBaseline === undefined) return 0
    return this.worker.performance.eventLoopUtilization(this.busyBaseline).active
  }

  terminate(): void {
    if (this.terminated) return
    this.terminated = true
    this.worker.terminate().catch(() => {})
  }
}

/** Spawns {@link WorkerSubstrate}s. */
export class WorkerSubstrateFactory implements SubstrateFactory {
  private readonly options: WorkerSubstrateOptions

  constructor(options: WorkerSubstrateOptions) {
    this.options = options
  }

  spawn(): Promise<Substrate> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_ENTRY, {
        env: {},
        execArgv: [],
        argv: [],
        stdout: true,
        stderr: true,
        name: 'code-runtime',
        resourceLimits: { maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb },
      })
      worker.unref()
      worker.stdout.resume()
      worker.stderr.resume()
      const substrate: WorkerSubstrate = new WorkerSubstrate(
        worker,
        () => resolve(substrate),
        (reason) => reject(new Error(`The worker exited before it was ready (${reason.kind}).`)),
      )
    })
  }
}
