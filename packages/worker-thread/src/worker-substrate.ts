/**
 * The worker-thread substrate: one fresh worker, no environment, no inherited flags, a heap cap,
 * its stdout/stderr piped and discarded (the program cannot reach them; only Node itself could
 * write there).
 */
import { Worker } from 'node:worker_threads'
import type {
  HostToGuestMessage,
  SpawnOptions,
  Substrate,
  SubstrateExit,
  SubstrateFactory,
  SubstrateListener,
} from '@code-runtime/engine'
import { ARRAY_BUFFER_EXIT_CODE, arrayBufferBudgetMessage } from './array-buffer-budget.js'
import type { WorkerLimits } from './worker-limits.js'
import { ProcessCodeCacheStore } from './process-code-caches.js'

// The guest half bundled into one CommonJS file at build time (scripts/bundle-guest.mjs): loading
// it as ES modules costs every spawn about 20 ms more. The worker starts in a small loader that
// compiles that bundle with a V8 code cache: the build's, or one this factory's first worker made.
const WORKER_ENTRY = new URL('./guest/worker-loader.cjs', import.meta.url)

/** Options of {@link WorkerSubstrateFactory}. */
export interface WorkerSubstrateOptions {
  readonly maxOldGenerationSizeMb: number
  /** Array-buffer budget of each worker, in MiB; the worker enforces it itself. */
  readonly maxArrayBufferMb: number
}

/**
 * Longest a recycled worker may take to prepare its fresh context. A worker still busy past it
 * runs code its last program left behind (a promise chain that never ends); it is replaced. A
 * worker that is merely slow costs one spawn when it expires, never a wrong result.
 */
export const RECYCLE_DEADLINE_MS = 2_000

type EventLoopUtilization = ReturnType<Worker['performance']['eventLoopUtilization']>

/**
 * A binding result's parts: a worker's messages have no size limit of their own, so a large
 * result is streamed and the worker parses part N while the host checks part N+1. 128 K
 * characters make a 5 MiB result about 40 messages, and the parse left after the walk ~0.5 ms.
 * Measured on the bench's value (interleaved, loaded 2 cores): 64 K, 128 K and 256 K all within
 * the noise of each other; 1 M no faster than no parts at all.
 */
const RESULT_PART_CHARS = 131_072

class WorkerSubstrate implements Substrate {
  readonly exited: Promise<void>
  readonly resultPartChars = RESULT_PART_CHARS
  private readonly worker: Worker
  private listener: SubstrateListener | undefined
  private exitReason: SubstrateExit | undefined
  private busyBaseline: EventLoopUtilization | undefined
  private terminated = false
  private hasExited = false
  private readonly maxArrayBufferMb: number
  /** Set while waiting for `guest-ready`: at spawn, and after each recycle. */
  private readiness: { resolve(): void; reject(reason: SubstrateExit): void } | undefined

  constructor(
    worker: Worker,
    maxArrayBufferMb: number,
    onReady: () => void,
    onEarlyExit: (reason: SubstrateExit) => void,
  ) {
    this.worker = worker
    this.maxArrayBufferMb = maxArrayBufferMb
    this.readiness = { resolve: onReady, reject: onEarlyExit }
    this.exited = new Promise(resolve => worker.once('exit', () => resolve()))
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
      this.exitReason ??=
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'out-of-memory' } : { kind: 'crashed', detail: error.name }
    })
    worker.on('exit', (code: number) => {
      this.hasExited = true
      const reason = this.exitReason ?? this.describeExitCode(code)
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
      if (this.hasExited) {
        reject(new Error('The worker exited before it could be recycled.'))
        return
      }
      const deadline = setTimeout(() => {
        this.readiness = undefined
        reject(new Error(`The worker was not ready within ${RECYCLE_DEADLINE_MS} ms of being recycled.`))
      }, RECYCLE_DEADLINE_MS)
      deadline.unref()
      this.readiness = {
        resolve: () => {
          clearTimeout(deadline)
          resolve()
        },
        reject: reason => {
          clearTimeout(deadline)
          reject(new Error(`The worker exited while it was recycled (${reason.kind}).`))
        },
      }
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

  idle(): void {
    this.worker.unref()
  }

  resetBusyTime(): void {
    this.busyBaseline = this.worker.performance.eventLoopUtilization()
  }

  busyMs(): number {
    if (this.busyBaseline === undefined) return 0
    // The difference of two readings taken from another thread can come out slightly below zero
    // while the worker is between loop iterations (seen on Node 24, and on 20 under load).
    return Math.max(0, this.worker.performance.eventLoopUtilization(this.busyBaseline).active)
  }

  // The worker's own way to say which budget it stopped itself for.
  private describeExitCode(code: number): SubstrateExit {
    if (code === ARRAY_BUFFER_EXIT_CODE)
      return { kind: 'over-budget', message: arrayBufferBudgetMessage(this.maxArrayBufferMb) }
    return { kind: 'exited', code }
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
  /** Code caches made by this factory's first worker, for the next ones (see code-cache-handoff.ts). */
  readonly codeCaches = new ProcessCodeCacheStore()

  constructor(options: WorkerSubstrateOptions) {
    this.options = options
  }

  spawn(options: SpawnOptions = {}): Promise<Substrate> {
    const limits: WorkerLimits = { maxArrayBufferBytes: this.options.maxArrayBufferMb * 1024 * 1024 }
    return new Promise((resolve, reject) => {
      const codeCaches = this.codeCaches.forNextWorker()
      const worker = new Worker(WORKER_ENTRY, {
        env: {},
        execArgv: [],
        argv: [],
        stdout: true,
        stderr: true,
        name: 'code-runtime',
        workerData: { ...limits, ...codeCaches.data },
        transferList: codeCaches.transferList,
        resourceLimits: {
          maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? this.options.maxOldGenerationSizeMb,
        },
      })
      worker.unref()
      worker.stdout.resume()
      worker.stderr.resume()
      const substrate: WorkerSubstrate = new WorkerSubstrate(
        worker,
        this.options.maxArrayBufferMb,
        () => resolve(substrate),
        reason => reject(new Error(`The worker exited before it was ready (${reason.kind}).`)),
      )
    })
  }
}
