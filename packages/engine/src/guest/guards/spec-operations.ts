/**
 * The specification's abstract operations the guards need (ToIntegerOrInfinity, ToLength,
 * CreateDataProperty, ArraySpeciesCreate...), written against the captured built-ins so a
 * program's changes to the globals never reach them.
 */
import {
  defineProperty,
  setPrototypeOf,
  construct,
  reflectGet,
  reflectHas,
  reflectSet,
  deleteProperty,
  ArrayConstructor,
  isArray,
  ProxyConstructor,
  RangeErrorConstructor,
  NumberConstructor,
  StringConstructor,
  trunc,
  min,
  max,
  speciesSymbol,
  TypeErrorConstructor,
  type Native,
} from './intrinsics.js'

// The guards' own lists have no prototype: reading a hole or writing an index must never reach
// a getter or setter a program planted on Array.prototype or Object.prototype.
export const emptyList = (): unknown[] => setPrototypeOf([], null) as unknown[]
/** A prototype-less copy of `list`, after `first` when one is given. */
export function copyOf(list: readonly unknown[], ...first: unknown[]): unknown[] {
  const copy = emptyList()
  let at = 0
  if (first.length > 0) copy[at++] = first[0]
  for (let index = 0; index < list.length; index++) copy[at++] = list[index]
  return copy
}
/** An argument, or `undefined` past the end: a hole of `args` would be looked up on Array.prototype. */
export const argAt = (args: readonly unknown[], position: number): unknown =>
  position < args.length ? args[position] : undefined

/** ToString, which refuses a symbol where String() would describe it. */
export function toText(value: unknown): string {
  if (typeof value === 'symbol') throw new TypeErrorConstructor('Cannot convert a Symbol value to a string')
  return StringConstructor(value)
}
/** ToIntegerOrInfinity of a value that is already a number. */
export function integerOf(value: number): number {
  if (value !== value || value === 0) return 0
  return trunc(value)
}
/** ToIntegerOrInfinity: the one conversion the native method would do (it may run program code). */
export function toInteger(value: unknown): number {
  return integerOf(NumberConstructor(value))
}
export function toLength(value: unknown): number {
  const integer = toInteger(value)
  return integer <= 0 ? 0 : min(integer, 9007199254740991)
}
/** A relative index (negative counts from the end) clamped to [0, length], as the spec does. */
export function relativeIndex(integer: number, length: number): number {
  return integer < 0 ? max(length + integer, 0) : min(integer, length)
}

// The spec's loops of the methods that move or copy elements (ECMA-262 23.1.3), for a length
// past the limit: each step is an ordinary property operation the compute budget can stop, and
// the errors come where the spec puts them (a TypeError past 2^53 - 1 before anything is read).
export function createDataProperty(target: object, index: number, value: unknown): void {
  // A prototype-less descriptor: a `get` planted on Object.prototype must not turn it into an accessor.
  defineProperty(
    target,
    index,
    setPrototypeOf({ value, writable: true, enumerable: true, configurable: true }, null) as PropertyDescriptor,
  )
}
export function setOrThrow(object: object, key: number | string, value: unknown): void {
  if (!reflectSet(object, key, value))
    throw new TypeErrorConstructor(`Cannot assign to property ${key} of the array-like`)
}
export function deleteOrThrow(object: object, key: number): void {
  if (!deleteProperty(object, key)) throw new TypeErrorConstructor(`Cannot delete property ${key} of the array-like`)
}
/** Copies index `from` to index `to`, or deletes `to` when `from` is a hole. */
export function moveOrDelete(object: object, from: number, to: number): void {
  if (reflectHas(object, from)) setOrThrow(object, to, reflectGet(object, from))
  else deleteOrThrow(object, to)
}
export function tooLong(name: string, length: number): never {
  throw new TypeErrorConstructor(`Array.prototype.${name} would make a length of ${length}, past 2^53 - 1`)
}
// Reflect.construct with this target and a program's function as `newTarget` tells whether that
// function is a constructor, running none of its code (the trap answers; nothing reads `prototype`).
export const constructorProbe = new ProxyConstructor(
  function probe() {},
  setPrototypeOf({ construct: () => emptyList() }, null) as ProxyHandler<() => void>,
)
export function isConstructor(value: unknown): boolean {
  if (typeof value !== 'function') return false
  try {
    construct(constructorProbe, emptyList(), value as Native)
    return true
  } catch {
    return false
  }
}
export function arrayCreate(length: number): unknown[] {
  if (length > 4294967295) throw new RangeErrorConstructor(`Invalid array length ${length}`)
  return new ArrayConstructor(length)
}
/**
 * ArraySpeciesCreate(original, length). A program has one realm, so the spec's step for another
 * realm's Array constructor never applies.
 */
export function arraySpeciesCreate(original: object, length: number): object {
  if (!isArray(original)) return arrayCreate(length)
  let constructor: unknown = reflectGet(original, 'constructor')
  if (constructor !== null && (typeof constructor === 'object' || typeof constructor === 'function')) {
    constructor = reflectGet(constructor, speciesSymbol)
    if (constructor === null) constructor = undefined
  }
  if (constructor === undefined) return arrayCreate(length)
  if (!isConstructor(constructor))
    throw new TypeErrorConstructor("The array's constructor[Symbol.species] is not a constructor")
  return construct(constructor as Native, [length]) as object
}

export function requireCoercible(value: unknown, name: string, owner = 'Array.prototype'): unknown {
  if (value === null || value === undefined)
    throw new TypeErrorConstructor(`${owner}.${name} called on null or undefined`)
  return value
}
