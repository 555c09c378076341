/**
 * A runner's local backends, one per set of budgets its callers asked for, and never more than
 * `maxBackends` at once: callers choose their budgets, so a backend kept per distinct budgets
 * without a bound lets one caller make a runner start backends until it runs out of memory. When
 * the pool is full, a backend no run or session is using is disposed to make room; when every
 * one is in use, the next run waits until one is free.
 */
import type { CodeRuntime, StartedCodeRuntime } from '@code-runtime/core'
import type { RunBudgets } from './protocol.js'

/** Starts the local backend a runner runs programs on, with the budgets of a caller. */
export type StartLocalBackend = (budgets: RunBudgets) => Promise<StartedCodeRuntime<CodeRuntime>>

/** A backend lent to one run or session; give it back with `release` exactly once. */
export interface LentBackend {
  readonly runtime: CodeRuntime
  release(): void
}

interface PooledBackend {
  readonly started: Promise<StartedCodeRuntime<CodeRuntime>>
  users: number
}

/** A promise and its resolver (Node 20 has no Promise.withResolvers). */
function newSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>(done => {
    resolve = done
  })
  return { promise, resolve }
}

function budgetsKey(budgets: RunBudgets): string {
  return `${budgets.computeMs}/${budgets.maxWallMs}/${budgets.maxOutputBytes}`
}

export class BackendPool {
  readonly #start: StartLocalBackend
  readonly #maxBackends: number
  // In order of last use, least recent first (a Map keeps insertion order; a use moves the entry to the end).
  readonly #backends = new Map<string, PooledBackend>()
  #freed = newSignal()

  constructor(start: StartLocalBackend, maxBackends: number) {
    this.#start = start
    this.#maxBackends = maxBackends
  }

  /** Backends alive now (started or starting). */
  get size(): number {
    return this.#backends.size
  }

  /** The backend for `budgets`, started if need be; waits while the pool is full and every backend is in use. */
  async acquire(budgets: RunBudgets, signal: AbortSignal): Promise<LentBackend> {
    const key = budgetsKey(budgets)
    for (;;) {
      signal.throwIfAborted()
      const pooled = this.#backends.get(key) ?? this.#startIfRoom(key, budgets)
      if (pooled !== undefined) {
        this.#backends.delete(key)
        this.#backends.set(key, pooled)
        pooled.users++
        let started: StartedCodeRuntime<CodeRuntime>
        try {
          started = await pooled.started
        } catch (error) {
          this.#giveBack(key, pooled)
          throw error
        }
        let released = false
        return {
          runtime: started.runtime,
          release: () => {
            if (released) return
            released = true
            this.#giveBack(key, pooled)
          },
        }
      }
      await new Promise<void>(resolve => {
        void this.#freed.promise.then(resolve)
        signal.addEventListener('abort', () => resolve(), { once: true })
      })
    }
  }

  /** Disposes every backend. */
  async dispose(): Promise<void> {
    const all = [...this.#backends.values()]
    this.#backends.clear()
    await Promise.all(
      all.map(pooled =>
        pooled.started.then(
          started => started.dispose(),
          () => undefined,
        ),
      ),
    )
  }

  #startIfRoom(key: string, budgets: RunBudgets): PooledBackend | undefined {
    if (this.#backends.size >= this.#maxBackends) {
      const idle = [...this.#backends].find(([, pooled]) => pooled.users === 0)
      if (idle === undefined) return undefined
      this.#backends.delete(idle[0])
      void idle[1].started.then(
        started => started.dispose(),
        () => undefined,
      )
    }
    const pooled: PooledBackend = { started: this.#start(budgets), users: 0 }
    // A backend that failed to start is forgotten, so the next run tries again.
    pooled.started.catch(() => {
      if (this.#backends.get(key) === pooled) this.#backends.delete(key)
    })
    this.#backends.set(key, pooled)
    return pooled
  }

  #giveBack(key: string, pooled: PooledBackend): void {
    pooled.users--
    if (pooled.users === 0 && this.#backends.get(key) === pooled) {
      const freed = this.#freed
      this.#freed = newSignal()
      freed.resolve()
    }
  }
}
