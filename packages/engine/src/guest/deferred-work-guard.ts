/**
 * Code that runs INSIDE the program's vm context, before anything else: it reports to the substrate
 * when the program arms something the engine itself will run later, outside any timer the
 * sandbox controls. In the opt-in reuse mode such a substrate must not serve another run: the
 * armed code would wake up in the middle of a later, unrelated program.
 *
 * The engine has two such sources a context can reach:
 * - `FinalizationRegistry` cleanup callbacks, run as a task after a garbage collection;
 * - `Atomics.waitAsync`, whose promise settles from a task when its timeout passes.
 * (Timers are the sandbox's own and are cleared when a run ends; promise reactions are
 * microtasks, which drain before the substrate handles the host's next message; WebAssembly and
 * `import()` are unavailable.)
 *
 * Like context-bootstrap.ts, {@link installDeferredWorkGuard} is evaluated from its source text:
 * self-contained, no imports, and it keeps the originals out of the program's reach.
 */

/** What the substrate offers the guard. */
export interface DeferredWorkGuardHost {
  /** The program armed work that can run after its run ended. Called before the work is armed. */
  reportDeferredWork(): void
}

export function installDeferredWorkGuard(host: DeferredWorkGuardHost): void {
  'use strict'
  const { reportDeferredWork } = host
  const { defineProperty, getOwnPropertyDescriptor } = Object
  const { apply } = Reflect

  function report(): void {
    try {
      reportDeferredWork()
    } catch {
      // Never fails in practice; the substrate's side only sets a flag.
    }
  }
  function guardMethod(owner: object | undefined, name: string): void {
    if (owner === undefined) return
    const original = getOwnPropertyDescriptor(owner, name)?.value as ((...args: unknown[]) => unknown) | undefined
    if (typeof original !== 'function') return
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        report()
        return apply(original, this, args)
      },
    }[name] as (...args: unknown[]) => unknown
    // Same arity as the built-in it replaces, so the program sees no difference in shape.
    defineProperty(guarded, 'length', {
      value: original.length,
      writable: false,
      enumerable: false,
      configurable: true,
    })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  // A registry with nothing registered never calls back; `register` is the arming step.
  if (typeof FinalizationRegistry === 'function') guardMethod(FinalizationRegistry.prototype, 'register')
  if (typeof Atomics === 'object') guardMethod(Atomics, 'waitAsync')
}
