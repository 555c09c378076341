/**
 * The built-ins the guards work with, captured when the guards script is evaluated in a fresh
 * context: before any program code can replace them.
 */

export const ObjectConstructor = Object
export const {
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  setPrototypeOf,
  hasOwn,
  keys: objectKeys,
} = Object
export const { apply, construct, get: reflectGet, has: reflectHas, set: reflectSet, deleteProperty } = Reflect
export const ArrayConstructor = Array
export const isArray = Array.isArray
export const ProxyConstructor = Proxy
export const RangeErrorConstructor = RangeError
export const NumberConstructor = Number
export const StringConstructor = String
export const { trunc, min, max } = Math
export const ArrayPrototype = Array.prototype
export const ObjectPrototype = Object.prototype
export const concatSpreadable = Symbol.isConcatSpreadable
export const speciesSymbol = Symbol.species
/** 2^53 - 1: the longest length the language allows an array-like. */
export const maxSafeLength = 9007199254740991
export const iteratorSymbol = Symbol.iterator
export const TypeErrorConstructor = TypeError
/** `String.prototype.indexOf` as a plain function of the string: no argument list per call (the counting loops make millions). */
export const indexOfIn = Function.prototype.call.bind(String.prototype.indexOf) as (
  text: string,
  search: string,
  position: number,
) => number

/** A native method, called through `apply` with a receiver and arguments of the caller's. */
export type Native = (...args: unknown[]) => unknown
