/**
 * Dispatch of one run's tool calls: calls start in the order the program made them;
 * concurrency-safe calls overlap up to `maxParallel`; any other call runs alone. Every call gets
 * the run's signal. When the run settles, in-flight calls are aborted and drained, queued ones
 * are refused, and no call can start after. What each call did is the runtime's to record
 * (`CodeRunResult.calls`): the scheduler only decides when calls run.
 */

interface QueuedCall {
  readonly isConcurrencySafe: boolean
  readonly start: (signal: AbortSignal) => Promise<unknown>
  readonly resolve: (value: unknown) => void
  readonly reject: (reason: unknown) => void
}

/** Thrown into the program for a call refused because the run already ended. */
export class RunEndedError extends Error {
  constructor() {
    super('The run has ended; no more tool calls can start.')
    this.name = 'RunEndedError'
  }
}

export class ToolCallScheduler {
  private readonly maxParallel: number
  private readonly controller = new AbortController()
  private readonly queue: QueuedCall[] = []
  private readonly running = new Set<Promise<void>>()
  private runningExclusive = false
  private closed = false

  constructor(maxParallel: number, runSignal?: AbortSignal) {
    this.maxParallel = maxParallel
    if (runSignal !== undefined) {
      if (runSignal.aborted) this.controller.abort(runSignal.reason)
      else runSignal.addEventListener('abort', () => this.controller.abort(runSignal.reason), { once: true })
    }
  }

  /** The signal every tool of this run receives. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Queues a call; it starts when the concurrency rules allow. */
  submit(isConcurrencySafe: boolean, start: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    if (this.closed) return Promise.reject(new RunEndedError())
    return new Promise((resolve, reject) => {
      this.queue.push({ isConcurrencySafe, start, resolve, reject })
      this.pump()
    })
  }

  /**
   * Ends the run's dispatch: refuses queued calls, aborts in-flight ones with `reason`, and
   * resolves once every started call has finished.
   */
  async drain(reason: unknown): Promise<void> {
    this.closed = true
    for (const queued of this.queue.splice(0)) {
      queued.reject(new RunEndedError())
    }
    if (!this.controller.signal.aborted) this.controller.abort(reason)
    while (this.running.size > 0) await Promise.allSettled([...this.running])
  }

  private pump(): void {
    // Once the run's signal fired, a queued call must not start: its tool would get a signal
    // that already fired, and one that waits for the abort event would hold up the drain.
    if (this.controller.signal.aborted) {
      for (const queued of this.queue.splice(0)) queued.reject(new RunEndedError())
      return
    }
    while (this.queue.length > 0 && !this.closed) {
      const next = this.queue[0] as QueuedCall
      if (this.runningExclusive) return
      if (next.isConcurrencySafe) {
        if (this.running.size >= this.maxParallel) return
      } else if (this.running.size > 0) {
        return
      }
      this.queue.shift()
      this.launch(next)
    }
  }

  private launch(call: QueuedCall): void {
    if (!call.isConcurrencySafe) this.runningExclusive = true
    const execution = (async (): Promise<void> => {
      try {
        call.resolve(await call.start(this.controller.signal))
      } catch (reason) {
        call.reject(reason)
      }
    })()
    this.running.add(execution)
    void execution.finally(() => {
      this.running.delete(execution)
      if (!call.isConcurrencySafe) this.runningExclusive = false
      this.pump()
    })
  }
}
