/** `Object.keys` and the other key listers, over a string or typed array of one key per element. */
import {
  ObjectConstructor,
  defineProperty,
  getOwnPropertyDescriptor,
  apply,
  trunc,
  max,
  type Native,
} from './intrinsics.js'
import { maxLength, isProxy, refuseKeys } from './sandbox-limits.js'
import { typedArrayLengthOf, stableLength } from './stable-reads.js'

export function installKeyListingGuards(): void {
  /**
   * How many index keys `value` has without running program code: a string's length, or a typed
   * array's. Zero for anything else (its keys are properties it holds, bounded by the heap).
   */
  function indexKeyCount(value: unknown): number {
    if (typeof value === 'string') return value.length
    if (typeof value !== 'object' || value === null || isProxy(value)) return 0
    const typedLength = typedArrayLengthOf(value)
    if (typedLength !== undefined) return typedLength
    const length = stableLength(value)
    // A String object's own `length` is its string's, not writable: trustworthy.
    if (length !== undefined && !(getOwnPropertyDescriptor(value, 'length')?.writable ?? true)) return length
    return 0
  }
  // Listing a string's keys costs about 1.2 µs per character in native code (Object.entries,
  // measured): a sixteenth of the array limit keeps that walk near the others'.
  const maxKeys = max(trunc(maxLength / 16), 1)
  function guardKeys(owner: object, ownerName: string, name: string): void {
    const native = (owner as Record<string, Native>)[name] as Native
    const guarded = {
      [name](...args: unknown[]): unknown {
        for (let index = 0; index < args.length; index++) {
          const count = indexKeyCount(args[index])
          if (count > maxKeys) refuseKeys(`${ownerName}.${name}`, count)
        }
        return apply(native, owner, args)
      },
    }[name] as Native
    defineProperty(guarded, 'length', { value: native.length, configurable: true })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  for (const name of [
    'keys',
    'values',
    'entries',
    'getOwnPropertyNames',
    'getOwnPropertyDescriptors',
    'assign',
    'freeze',
    'seal',
  ])
    guardKeys(ObjectConstructor, 'Object', name)
  guardKeys(Reflect, 'Reflect', 'ownKeys')
}
