/**
 * Defence in depth for the substrate's own realm. The program never receives an object of this
 * realm; if a future bug handed it one anyway, the classic next step is
 * `leaked.constructor.constructor('return process')()`. Removing the `constructor` link from
 * every function prototype of this realm closes that path (the program's own realm is separate
 * and keeps its intrinsics untouched).
 */
export function hardenRealm(): void {
  const functionPrototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}) as object,
    Object.getPrototypeOf(function* () {}) as object,
    Object.getPrototypeOf(async function* () {}) as object,
  ]
  for (const prototype of functionPrototypes) {
    Object.defineProperty(prototype, 'constructor', {
      value: undefined,
      writable: false,
      enumerable: false,
      configurable: false,
    })
  }
}
