/**
 * The limit every guard enforces and the one substrate-realm service they share, set once per
 * context by {@link configureGuards} before any family installs its guards; and the refusals
 * that name the limit.
 */
import type { BuiltinGuardHost, BuiltinGuardLimits } from '../builtin-guards.js'
import { RangeErrorConstructor, trunc, max } from './intrinsics.js'

/** Longest length a built-in may walk, and longest array it may create, in one call. */
export let maxLength = 0
// Until configured, everything counts as a proxy: the careful path.
let hostIsProxy: (value: unknown) => boolean = () => true

export function configureGuards(host: BuiltinGuardHost, limits: BuiltinGuardLimits): void {
  hostIsProxy = host.isProxy
  maxLength = limits.maxArrayLength
}

/** Whether a value is a Proxy, asked of the substrate realm: no code of the program runs. */
export function isProxy(value: unknown): boolean {
  return hostIsProxy(value)
}

export function refuse(what: string, count: number): never {
  throw new RangeErrorConstructor(
    `${what} over ${count} elements refused: this sandbox allows at most ${maxLength} in one built-in call. ` +
      'Work on smaller arrays and strings, or loop over the indexes yourself.',
  )
}

export function refuseKeys(what: string, count: number): never {
  throw new RangeErrorConstructor(
    `${what} of ${count} indexed keys refused: this sandbox lists at most ${max(trunc(maxLength / 16), 1)} in one built-in call. ` +
      'Loop over the indexes of the string or typed array yourself.',
  )
}
export function refuseText(what: string, length: number, limit: number, fix: string): never {
  throw new RangeErrorConstructor(
    `${what} on ${length} characters refused: this sandbox allows at most ${limit} in one built-in call. ${fix}`,
  )
}

// Asking the substrate realm whether a value is a proxy is the guards' main cost (~0.6 µs); a loop
// calling methods on one array asks once. An object never turns into a proxy or back.
let lastNotProxy: unknown = undefined
export function notProxy(value: unknown): boolean {
  if (value === lastNotProxy) return true
  if (isProxy(value)) return false
  lastNotProxy = value
  return true
}
