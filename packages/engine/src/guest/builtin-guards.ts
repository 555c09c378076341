/**
 * Guards on the context's built-ins, installed INSIDE the program's vm context before anything
 * else runs there (the web globals and the bootstrap capture the guarded methods).
 *
 * Two kinds of built-in are dangerous to the host process, whatever the budgets say:
 *
 * - Loops in native code check for no interrupt: a generic `Array.prototype` method applied to an
 *   array-like or sparse array of enormous `length` walks every index, and neither the compute
 *   budget nor `worker.terminate()` stops it (the thread burns a core forever; `dispose()` never
 *   returns). Each such method here refuses a walk longer than `maxArrayLength` before the native
 *   loop starts, so any native walk is short; longer work must be a loop of the program's own,
 *   which the compute budget can stop.
 * - Some allocations abort the whole process in V8 instead of throwing (a fixed array past its
 *   maximum length): splitting a huge string into characters, `Object.keys` of one... Each member
 *   of that family refuses a result longer than `maxArrayLength` before allocating it.
 *
 * Sizes are computed as the specification does (ToLength, ToIntegerOrInfinity, relative indexes,
 * NaN as 0), from the very values the native method then uses: numeric arguments are converted
 * once here and handed over as numbers, and a receiver whose `length` could answer differently on
 * a second read (a getter, a proxy, an inherited property) is handed over behind a proxy that
 * pins `length` to the value checked.
 *
 * Like the bootstrap, {@link installBuiltinGuards} runs inside the context: the build bundles it
 * and the modules of `guards/` (one per family of built-ins) into one script, and the built-ins
 * they use are captured when that script is evaluated there (`guards/intrinsics.ts`).
 */
import { installConcatGuard } from './guards/array-concat.js'
import { installFlatGuards } from './guards/array-flat.js'
import { installArrayWalkGuards } from './guards/array-walks.js'
import { installIteratorGuards } from './guards/iterators.js'
import { installKeyListingGuards } from './guards/key-listing.js'
import { configureGuards } from './guards/sandbox-limits.js'
import { installTextGuards } from './guards/text.js'

/** The substrate-realm service the guards need: a proxy cannot be recognized from inside a realm. */
export interface BuiltinGuardHost {
  /** Whether a value is a Proxy. Must run no code of the program (util.types.isProxy). */
  isProxy(value: unknown): boolean
}

export interface BuiltinGuardLimits {
  /** Longest length a built-in may walk, and longest array it may create, in one call. */
  readonly maxArrayLength: number
}

export function installBuiltinGuards(host: BuiltinGuardHost, limits: BuiltinGuardLimits): void {
  configureGuards(host, limits)
  installArrayWalkGuards()
  installConcatGuard()
  installFlatGuards()
  installTextGuards()
  installKeyListingGuards()
  installIteratorGuards()
}
