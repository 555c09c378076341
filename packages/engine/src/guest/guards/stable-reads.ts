/**
 * Reads that must give the native method the very value a guard checked: lengths and lookups
 * that run no program code, and a stand-in that pins a key when they could.
 */
import {
  getOwnPropertyDescriptor,
  getPrototypeOf,
  setPrototypeOf,
  hasOwn,
  apply,
  reflectGet,
  ProxyConstructor,
  ArrayPrototype,
  ObjectPrototype,
  iteratorSymbol,
} from './intrinsics.js'
import { isProxy, notProxy } from './sandbox-limits.js'
import { toLength } from './spec-operations.js'

export const typedArrayLength = getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype) as object, 'length')
  ?.get as (this: unknown) => number
/** A typed array's length, or `undefined` for anything else (a typed-array method given one throws its own TypeError). */
export function typedArrayLengthOf(value: unknown): number | undefined {
  try {
    return apply(typedArrayLength, value, []) as number
  } catch {
    return undefined
  }
}
/**
 * A typed array's length when `Get(object, "length")` reaches the context's own getter with no
 * proxy on the way: that read runs no program code. `undefined` otherwise.
 */
export function typedArrayStableLength(object: object): number | undefined {
  const length = typedArrayLengthOf(object)
  if (length === undefined) return undefined
  let current = getPrototypeOf(object) as object | null
  for (let depth = 0; current !== null && depth < 64; depth++) {
    if (isProxy(current)) return undefined
    const descriptor = getOwnPropertyDescriptor(current, 'length')
    if (descriptor !== undefined) return descriptor.get === typedArrayLength ? length : undefined
    current = getPrototypeOf(current) as object | null
  }
  return undefined
}

/**
 * The length a native method will read from `object` right now, when reading it cannot run
 * program code or change between two reads: an own data property of an object that is not a
 * proxy (arrays, strings, `arguments`, plain array-likes), or a typed array's own length.
 * `undefined` otherwise.
 */
export function stableLength(object: object): number | undefined {
  if (!notProxy(object)) return undefined
  const descriptor = getOwnPropertyDescriptor(object, 'length')
  if (descriptor === undefined) return typedArrayStableLength(object)
  if (!hasOwn(descriptor, 'value')) return undefined
  const value: unknown = descriptor.value
  if (
    typeof value === 'object' ||
    typeof value === 'function' ||
    typeof value === 'symbol' ||
    typeof value === 'bigint'
  )
    return undefined
  return toLength(value)
}

/** What a stand-in answers for `length` and `Symbol.iterator`; unset keys pass through. */
export interface Pins {
  readonly length?: number
  readonly iterator?: { readonly value: unknown }
}
/**
 * A stand-in for `object` whose pinned keys always answer what was checked; every other
 * operation reaches `object` itself (getters run with `object` as their receiver).
 */
export function pinned(object: object, pins: Pins): object {
  // Own properties only: a key missing here must not be looked up on Object.prototype.
  const length = hasOwn(pins, 'length') ? pins.length : undefined
  const iterator = hasOwn(pins, 'iterator') ? pins.iterator?.value : undefined
  const pinsIterator = hasOwn(pins, 'iterator')
  const handler = {
    get(target: object, key: string | symbol): unknown {
      if (key === 'length' && length !== undefined) return length
      if (key === iteratorSymbol && pinsIterator) return iterator
      return reflectGet(target, key)
    },
  }
  // A null prototype, so no trap can be inherited from a program's Object.prototype.
  return new ProxyConstructor(object, setPrototypeOf(handler, null) as typeof handler)
}

/**
 * How `key` resolves on `object` when no program code can run on the way: every object of the
 * prototype chain is not a proxy and the property found is a data property. `undefined` when
 * looking it up could run program code (a getter, a proxy) and so answer differently twice.
 */
export function stableLookup(object: object, key: PropertyKey): { readonly value: unknown } | undefined {
  let current: object | null = object
  for (let depth = 0; current !== null && depth < 64; depth++) {
    // The two prototypes of every array are the context's own objects, not proxies.
    if (current !== ArrayPrototype && current !== ObjectPrototype && !notProxy(current)) return undefined
    const descriptor = getOwnPropertyDescriptor(current, key)
    if (descriptor !== undefined) return hasOwn(descriptor, 'value') ? { value: descriptor.value } : undefined
    current = getPrototypeOf(current) as object | null
  }
  return current === null ? { value: undefined } : undefined
}
