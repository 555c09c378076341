/**
 * What every part of the bootstrap shares: the context's primordials, the host's functions, and
 * the two ways a part touches the outside: defining a global of the context, and calling the host.
 */
import type { BootstrapHost } from '../context-bootstrap.js'
import type { Primordials } from '../primordials.js'

export interface BootstrapKit {
  readonly primordials: Primordials
  readonly host: BootstrapHost
  /** Defines a global of the context as a plain global binding would be: writable, configurable, not enumerable. */
  defineGlobal(name: string, value: unknown): void
  /** Calls a host function; a failure becomes a fresh context-realm error, never the caught value. */
  callHost<Result>(run: () => Result): Result
  /** A promise already resolved, made once: microtasks and callbacks are chained on it. */
  readonly resolvedPromise: Promise<void>
}

export function createBootstrapKit(primordials: Primordials, host: BootstrapHost): BootstrapKit {
  const { contextGlobal: global, defineProperty, ErrorConstructor, PromiseConstructor, freeze } = primordials
  const resolvedPromise = PromiseConstructor.resolve()

  /** Calls a host function; a failure becomes a fresh context-realm error, never the caught value. */
  function callHost<Result>(run: () => Result): Result {
    try {
      return run()
    } catch {
      throw new ErrorConstructor('The sandbox could not complete this operation.')
    }
  }

  function defineGlobal(name: string, value: unknown): void {
    defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false })
  }
  return freeze({ primordials, host, defineGlobal, callHost, resolvedPromise })
}
