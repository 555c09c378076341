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
 * Like the bootstrap, {@link installBuiltinGuards} is evaluated from its source text inside the
 * context: it must be self-contained (no imports, no module-level names, no Node globals).
 */

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
  'use strict'
  const { isProxy } = host
  const maxLength = limits.maxArrayLength
  const ObjectConstructor = Object
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, hasOwn, keys: objectKeys } = Object
  const { apply, construct, get: reflectGet, has: reflectHas, set: reflectSet, deleteProperty } = Reflect
  const ArrayConstructor = Array
  const isArray = Array.isArray
  const ProxyConstructor = Proxy
  const RangeErrorConstructor = RangeError
  const NumberConstructor = Number
  const StringConstructor = String
  const { trunc, min, max } = Math
  const ArrayPrototype = Array.prototype
  const ObjectPrototype = Object.prototype
  const concatSpreadable = Symbol.isConcatSpreadable
  const speciesSymbol = Symbol.species
  /** 2^53 - 1: the longest length the language allows an array-like. */
  const maxSafeLength = 9007199254740991
  const iteratorSymbol = Symbol.iterator
  const TypeErrorConstructor = TypeError
  const stringIndexOf = String.prototype.indexOf

  function refuse(what: string, count: number): never {
    throw new RangeErrorConstructor(
      `${what} over ${count} elements refused: this sandbox allows at most ${maxLength} in one built-in call. ` +
      'Work on smaller arrays and strings, or loop over the indexes yourself.',
    )
  }

  // The guards' own lists have no prototype: reading a hole or writing an index must never reach
  // a getter or setter a program planted on Array.prototype or Object.prototype.
  const emptyList = (): unknown[] => setPrototypeOf([], null) as unknown[]
  /** A prototype-less copy of `list`, after `first` when one is given. */
  function copyOf(list: readonly unknown[], ...first: unknown[]): unknown[] {
    const copy = emptyList()
    let at = 0
    if (first.length > 0) copy[at++] = first[0]
    for (let index = 0; index < list.length; index++) copy[at++] = list[index]
    return copy
  }
  /** An argument, or `undefined` past the end: a hole of `args` would be looked up on Array.prototype. */
  const argAt = (args: readonly unknown[], position: number): unknown => (position < args.length ? args[position] : undefined)

  function refuseKeys(what: string, count: number): never {
    throw new RangeErrorConstructor(
      `${what} of ${count} indexed keys refused: this sandbox lists at most ${max(trunc(maxLength / 16), 1)} in one built-in call. ` +
      'Loop over the indexes of the string or typed array yourself.',
    )
  }
  function refuseText(what: string, length: number, limit: number, fix: string): never {
    throw new RangeErrorConstructor(`${what} on ${length} characters refused: this sandbox allows at most ${limit} in one built-in call. ${fix}`)
  }

  /** ToString, which refuses a symbol where String() would describe it. */
  function toText(value: unknown): string {
    if (typeof value === 'symbol') throw new TypeErrorConstructor('Cannot convert a Symbol value to a string')
    return StringConstructor(value)
  }
  /** ToIntegerOrInfinity of a value that is already a number. */
  function integerOf(value: number): number {
    if (value !== value || value === 0) return 0
    return trunc(value)
  }
  /** ToIntegerOrInfinity: the one conversion the native method would do (it may run program code). */
  function toInteger(value: unknown): number {
    return integerOf(NumberConstructor(value))
  }
  function toLength(value: unknown): number {
    const integer = toInteger(value)
    return integer <= 0 ? 0 : min(integer, 9007199254740991)
  }
  /** A relative index (negative counts from the end) clamped to [0, length], as the spec does. */
  function relativeIndex(integer: number, length: number): number {
    return integer < 0 ? max(length + integer, 0) : min(integer, length)
  }

  // Asking the substrate realm whether a value is a proxy is the guards' main cost (~0.6 µs); a loop
  // calling methods on one array asks once. An object never turns into a proxy or back.
  let lastNotProxy: unknown = undefined
  function notProxy(value: unknown): boolean {
    if (value === lastNotProxy) return true
    if (isProxy(value)) return false
    lastNotProxy = value
    return true
  }

  const typedArrayLength = getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype) as object, 'length')?.get as (this: unknown) => number
  /** A typed array's length, or `undefined` for anything else (a typed-array method given one throws its own TypeError). */
  function typedArrayLengthOf(value: unknown): number | undefined {
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
  function typedArrayStableLength(object: object): number | undefined {
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
  function stableLength(object: object): number | undefined {
    if (!notProxy(object)) return undefined
    const descriptor = getOwnPropertyDescriptor(object, 'length')
    if (descriptor === undefined) return typedArrayStableLength(object)
    if (!hasOwn(descriptor, 'value')) return undefined
    const value: unknown = descriptor.value
    if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return undefined
    return toLength(value)
  }

  /** What a stand-in answers for `length` and `Symbol.iterator`; unset keys pass through. */
  interface Pins {
    readonly length?: number
    readonly iterator?: { readonly value: unknown }
  }
  /**
   * A stand-in for `object` whose pinned keys always answer what was checked; every other
   * operation reaches `object` itself (getters run with `object` as their receiver).
   */
  function pinned(object: object, pins: Pins): object {
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

  type Native = (...args: unknown[]) => unknown

  /** How an `Array.prototype` method walks its receiver. */
  interface Walk {
    /** Positions of its numeric arguments (indexes, counts), converted in this order. */
    readonly numeric: readonly number[]
    /** The spec converts nothing when the length is 0 (the searches). */
    readonly lazy: boolean
    /** Indexes the native method visits or creates, from the length and the converted arguments. */
    count(length: number, args: readonly unknown[]): number
    /**
     * The method written out as the spec's loop, for a walk longer than the limit: the program's
     * own code then, which the compute budget stops, and exact where a refusal would not be (a
     * search that finds its element early, `some` that stops at the first). Absent: refused.
     */
    readonly loop?: (object: object, length: number, args: readonly unknown[]) => unknown
    /** What the spec checks of the arguments before it reads the receiver. */
    readonly checkFirst?: (args: readonly unknown[]) => void
  }
  /**
   * An argument as an integer. By the time a count is computed every numeric argument is a number
   * (or absent, which counts as 0); one the spec leaves unconverted (a search over an empty
   * receiver) must not be converted here either.
   */
  function integerAt(args: readonly unknown[], position: number): number {
    const value = argAt(args, position)
    return typeof value === 'number' ? integerOf(value) : 0
  }
  /** A [start, end) range of the arguments at `position`, as fill, slice and copyWithin read it. */
  function spanAt(args: readonly unknown[], position: number, length: number): number {
    const from = relativeIndex(integerAt(args, position), length)
    const to = argAt(args, position + 1) === undefined ? length : relativeIndex(integerAt(args, position + 1), length)
    return max(to - from, 0)
  }
  // The spec's loops of the searches and the callback walkers (ECMA-262 23.1.3), over a length
  // and numeric arguments already read and converted once, as the guard hands them over.
  /** Where indexOf and includes start: a relative fromIndex, -Infinity as 0. */
  const searchStart = (length: number, args: readonly unknown[]): number => relativeIndex(integerAt(args, 1), length)
  function indexOfLoop(object: object, length: number, args: readonly unknown[]): number {
    const search = argAt(args, 0)
    for (let index = searchStart(length, args); index < length; index++) {
      if (reflectHas(object, index) && reflectGet(object, index) === search) return index
    }
    return -1
  }
  function includesLoop(object: object, length: number, args: readonly unknown[]): boolean {
    const search = argAt(args, 0)
    for (let index = searchStart(length, args); index < length; index++) {
      const element = reflectGet(object, index)
      if (element === search || (element !== element && search !== search)) return true
    }
    return false
  }
  /** Where lastIndexOf starts: `length - 1` without a fromIndex, -1 when there is nothing to search. */
  function lastIndexOfStart(length: number, args: readonly unknown[]): number {
    if (args.length < 2) return length - 1
    const from = integerAt(args, 1)
    return max(min(from < 0 ? length + from : from, length - 1), -1)
  }
  function lastIndexOfLoop(object: object, length: number, args: readonly unknown[]): number {
    const search = argAt(args, 0)
    for (let index = lastIndexOfStart(length, args); index >= 0; index--) {
      if (reflectHas(object, index) && reflectGet(object, index) === search) return index
    }
    return -1
  }
  function requireCallable(value: unknown, name: string): void {
    // Described by its type only: converting it to a string could run the program's code.
    if (typeof value !== 'function') throw new TypeErrorConstructor(`Array.prototype.${name}: the callback is not a function (got ${value === null ? 'null' : typeof value})`)
  }
  function predicateLoop(object: object, length: number, args: readonly unknown[], name: 'every' | 'some' | 'forEach'): unknown {
    const callback = argAt(args, 0)
    requireCallable(callback, name)
    const thisArg = argAt(args, 1)
    for (let index = 0; index < length; index++) {
      if (!reflectHas(object, index)) continue
      const verdict = apply(callback as Native, thisArg, [reflectGet(object, index), index, object])
      if (name === 'every' && !verdict) return false
      if (name === 'some' && verdict) return true
    }
    return name === 'every' ? true : name === 'some' ? false : undefined
  }
  function reduceLoop(object: object, length: number, args: readonly unknown[], step: 1 | -1): unknown {
    const name = step === 1 ? 'reduce' : 'reduceRight'
    const callback = argAt(args, 0)
    requireCallable(callback, name)
    let index = step === 1 ? 0 : length - 1
    const inBounds = (at: number): boolean => (step === 1 ? at < length : at >= 0)
    let accumulator: unknown
    if (args.length >= 2) {
      accumulator = args[1]
    } else {
      while (inBounds(index) && !reflectHas(object, index)) index += step
      if (!inBounds(index)) throw new TypeErrorConstructor(`Array.prototype.${name} of an empty array with no initial value`)
      accumulator = reflectGet(object, index)
      index += step
    }
    for (; inBounds(index); index += step) {
      if (reflectHas(object, index)) accumulator = apply(callback as Native, undefined, [accumulator, reflectGet(object, index), index, object])
    }
    return accumulator
  }

  // The spec's loops of the methods that move or copy elements (ECMA-262 23.1.3), for a length
  // past the limit: each step is an ordinary property operation the compute budget can stop, and
  // the errors come where the spec puts them (a TypeError past 2^53 - 1 before anything is read).
  function createDataProperty(target: object, index: number, value: unknown): void {
    // A prototype-less descriptor: a `get` planted on Object.prototype must not turn it into an accessor.
    defineProperty(target, index, setPrototypeOf({ value, writable: true, enumerable: true, configurable: true }, null) as PropertyDescriptor)
  }
  function setOrThrow(object: object, key: number | string, value: unknown): void {
    if (!reflectSet(object, key, value)) throw new TypeErrorConstructor(`Cannot assign to property ${key} of the array-like`)
  }
  function deleteOrThrow(object: object, key: number): void {
    if (!deleteProperty(object, key)) throw new TypeErrorConstructor(`Cannot delete property ${key} of the array-like`)
  }
  /** Copies index `from` to index `to`, or deletes `to` when `from` is a hole. */
  function moveOrDelete(object: object, from: number, to: number): void {
    if (reflectHas(object, from)) setOrThrow(object, to, reflectGet(object, from))
    else deleteOrThrow(object, to)
  }
  function tooLong(name: string, length: number): never {
    throw new TypeErrorConstructor(`Array.prototype.${name} would make a length of ${length}, past 2^53 - 1`)
  }
  // Reflect.construct with this target and a program's function as `newTarget` tells whether that
  // function is a constructor, running none of its code (the trap answers; nothing reads `prototype`).
  const constructorProbe = new ProxyConstructor(function probe() {}, setPrototypeOf({ construct: () => emptyList() }, null) as ProxyHandler<() => void>)
  function isConstructor(value: unknown): boolean {
    if (typeof value !== 'function') return false
    try {
      construct(constructorProbe, emptyList(), value as Native)
      return true
    } catch {
      return false
    }
  }
  function arrayCreate(length: number): unknown[] {
    if (length > 4294967295) throw new RangeErrorConstructor(`Invalid array length ${length}`)
    return new ArrayConstructor(length)
  }
  /**
   * ArraySpeciesCreate(original, length). A program has one realm, so the spec's step for another
   * realm's Array constructor never applies.
   */
  function arraySpeciesCreate(original: object, length: number): object {
    if (!isArray(original)) return arrayCreate(length)
    let constructor: unknown = reflectGet(original, 'constructor')
    if (constructor !== null && (typeof constructor === 'object' || typeof constructor === 'function')) {
      constructor = reflectGet(constructor, speciesSymbol)
      if (constructor === null) constructor = undefined
    }
    if (constructor === undefined) return arrayCreate(length)
    if (!isConstructor(constructor)) throw new TypeErrorConstructor('The array\'s constructor[Symbol.species] is not a constructor')
    return construct(constructor as Native, [length]) as object
  }
  /** How many elements splice and toSpliced take out from `start`: none without arguments, the rest without a count. */
  function removedCount(length: number, start: number, args: readonly unknown[]): number {
    if (args.length === 0) return 0
    return args.length === 1 ? length - start : min(max(integerAt(args, 1), 0), length - start)
  }
  function spliceLoop(object: object, length: number, args: readonly unknown[]): object {
    const start = relativeIndex(integerAt(args, 0), length)
    const itemCount = max(args.length - 2, 0)
    const deleteCount = removedCount(length, start, args)
    if (length + itemCount - deleteCount > maxSafeLength) tooLong('splice', length + itemCount - deleteCount)
    const removed = arraySpeciesCreate(object, deleteCount)
    for (let index = 0; index < deleteCount; index++) {
      if (reflectHas(object, start + index)) createDataProperty(removed, index, reflectGet(object, start + index))
    }
    setOrThrow(removed, 'length', deleteCount)
    if (itemCount < deleteCount) {
      for (let index = start; index < length - deleteCount; index++) moveOrDelete(object, index + deleteCount, index + itemCount)
      for (let index = length; index > length - deleteCount + itemCount; index--) deleteOrThrow(object, index - 1)
    } else if (itemCount > deleteCount) {
      for (let index = length - deleteCount; index > start; index--) moveOrDelete(object, index + deleteCount - 1, index + itemCount - 1)
    }
    for (let index = 0; index < itemCount; index++) setOrThrow(object, start + index, args[index + 2])
    setOrThrow(object, 'length', length - deleteCount + itemCount)
    return removed
  }
  function unshiftLoop(object: object, length: number, args: readonly unknown[]): number {
    const count = args.length
    if (count > 0) {
      if (length + count > maxSafeLength) tooLong('unshift', length + count)
      for (let index = length; index > 0; index--) moveOrDelete(object, index - 1, index + count - 1)
      for (let index = 0; index < count; index++) setOrThrow(object, index, args[index])
    }
    setOrThrow(object, 'length', length + count)
    return length + count
  }
  function reverseLoop(object: object, length: number): object {
    const middle = trunc(length / 2)
    for (let lower = 0; lower < middle; lower++) {
      const upper = length - lower - 1
      const lowerExists = reflectHas(object, lower)
      const lowerValue = lowerExists ? reflectGet(object, lower) : undefined
      const upperExists = reflectHas(object, upper)
      const upperValue = upperExists ? reflectGet(object, upper) : undefined
      if (upperExists) setOrThrow(object, lower, upperValue)
      else if (lowerExists) deleteOrThrow(object, lower)
      if (lowerExists) setOrThrow(object, upper, lowerValue)
      else if (upperExists) deleteOrThrow(object, upper)
    }
    return object
  }
  /** The length toSpliced gives its result: what it reads and what it creates. */
  function toSplicedLength(length: number, args: readonly unknown[]): number {
    const start = relativeIndex(integerAt(args, 0), length)
    return length + max(args.length - 2, 0) - removedCount(length, start, args)
  }
  /** toSpliced past the limit: the spec's TypeError past 2^53 - 1 comes before the sandbox's refusal. */
  function toSplicedPastLimit(_object: object, length: number, args: readonly unknown[]): never {
    const newLength = toSplicedLength(length, args)
    if (newLength > maxSafeLength) tooLong('toSpliced', newLength)
    refuse('Array.prototype.toSpliced', newLength)
  }
  /** sort and toSorted check their comparator before they read anything of the receiver. */
  function comparatorFirst(args: readonly unknown[]): void {
    const comparator = argAt(args, 0)
    if (comparator !== undefined && typeof comparator !== 'function') {
      throw new TypeErrorConstructor('The comparison function must be either a function or undefined')
    }
  }

  const wholeWalk: Walk = { numeric: [], lazy: false, count: (length) => length }
  const walks: Record<string, Walk> = {
    indexOf: { numeric: [1], lazy: true, count: (length, args) => length - relativeIndex(integerAt(args, 1), length), loop: indexOfLoop },
    includes: { numeric: [1], lazy: true, count: (length, args) => length - relativeIndex(integerAt(args, 1), length), loop: includesLoop },
    lastIndexOf: {
      numeric: [1],
      lazy: true,
      count: (length, args) => lastIndexOfStart(length, args) + 1,
      loop: lastIndexOfLoop,
    },
    // fill writes every index of its range: on a sparse array or array-like that is also an
    // allocation of as many elements.
    fill: { lazy: false, numeric: [1, 2], count: (length, args) => spanAt(args, 1, length) },
    slice: { lazy: false, numeric: [0, 1], count: (length, args) => spanAt(args, 0, length) },
    copyWithin: {
      lazy: false,
      numeric: [0, 1, 2],
      count: (length, args) => min(spanAt(args, 1, length), length - relativeIndex(integerAt(args, 0), length)),
    },
    // splice moves every element after the cut; toSpliced copies what it keeps into a new array.
    splice: { lazy: false, numeric: [0, 1], count: (length, args) => (args.length === 0 ? 0 : length - relativeIndex(integerAt(args, 0), length)), loop: spliceLoop },
    toSpliced: { lazy: false, numeric: [0, 1], count: toSplicedLength, loop: toSplicedPastLimit },
    // With nothing to insert, unshift only writes the length back.
    unshift: { lazy: false, numeric: [], count: (length, args) => (args.length === 0 ? 0 : length), loop: unshiftLoop },
    reverse: { lazy: false, numeric: [], count: (length) => length, loop: reverseLoop },
    sort: { lazy: false, numeric: [], count: (length) => length, checkFirst: comparatorFirst },
    toSorted: { lazy: false, numeric: [], count: (length) => length, checkFirst: comparatorFirst },
    with: { lazy: false, numeric: [0], count: (length) => length },
  }
  for (const name of ['join', 'toLocaleString', 'map', 'filter', 'toReversed', 'shift']) walks[name] = wholeWalk
  walks.every = { ...wholeWalk, loop: (object, length, args) => predicateLoop(object, length, args, 'every') }
  walks.some = { ...wholeWalk, loop: (object, length, args) => predicateLoop(object, length, args, 'some') }
  walks.forEach = { ...wholeWalk, loop: (object, length, args) => predicateLoop(object, length, args, 'forEach') }
  walks.reduce = { ...wholeWalk, loop: (object, length, args) => reduceLoop(object, length, args, 1) }
  walks.reduceRight = { ...wholeWalk, loop: (object, length, args) => reduceLoop(object, length, args, -1) }
  // Not guarded: find, findIndex, findLast and findLastIndex call their predicate at every index,
  // holes included, and that call lets the thread be stopped (measured, even with a built-in
  // predicate such as Boolean).
  // Array.prototype.toString calls `this.join`: the guarded join, or a function of the program's.

  /** Whether no argument at these positions can run program code when converted to a number. */
  function numericReady(args: readonly unknown[], positions: readonly number[]): boolean {
    for (let index = 0; index < positions.length; index++) {
      const type = typeof argAt(args, positions[index] as number)
      if (type !== 'number' && type !== 'undefined') return false
    }
    return true
  }

  function guardArrayMethod(name: string, walk: Walk): void {
    const native = (ArrayPrototype as unknown as Record<string, Native>)[name] as Native
    const { loop } = walk
    function overLimit(object: object, length: number, args: readonly unknown[], count: number): unknown {
      if (loop === undefined) refuse(`Array.prototype.${name}`, count)
      return loop(object, length, args)
    }
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        // The common case: a genuine array (its length is an own data property no code can answer)
        // and arguments that are already numbers. Nothing of the program runs before the native call.
        if (isArray(this) && numericReady(args, walk.numeric) && notProxy(this)) {
          const length = (this as unknown[]).length
          const count = walk.count(length, args)
          if (count > maxLength) return overLimit(this, length, args, count)
          return apply(native, this, args)
        }
        walk.checkFirst?.(args)
        if (this === null || this === undefined) return apply(native, this, args)
        // The general case, in the spec's order: the length once, then the numeric arguments.
        const object = ObjectConstructor(this) as object
        const length = toLength(reflectGet(object, 'length'))
        const converted = copyOf(args)
        if (!(walk.lazy && length === 0)) {
          for (let index = 0; index < walk.numeric.length; index++) {
            const position = walk.numeric[index] as number
            if (position < converted.length && converted[position] !== undefined) converted[position] = toInteger(converted[position])
          }
        }
        // The native method reads the length again: it must see the one read above, which the spec
        // uses throughout, even if a conversion changed it (or a getter would answer differently).
        const receiver = stableLength(object) === length ? object : pinned(object, { length })
        const count = walk.count(length, converted)
        if (count > maxLength) return overLimit(object, length, converted, count)
        const result = apply(native, receiver, converted)
        // A method that returns its receiver must not return the stand-in.
        return result === receiver ? object : result
      },
    }[name] as Native
    defineProperty(guarded, 'length', { value: native.length, configurable: true })
    defineProperty(ArrayPrototype, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  for (const name of objectKeys(walks)) {
    if (typeof (ArrayPrototype as unknown as Record<string, unknown>)[name] === 'function') guardArrayMethod(name, walks[name] as Walk)
  }

  /**
   * How `key` resolves on `object` when no program code can run on the way: every object of the
   * prototype chain is not a proxy and the property found is a data property. `undefined` when
   * looking it up could run program code (a getter, a proxy) and so answer differently twice.
   */
  function stableLookup(object: object, key: PropertyKey): { readonly value: unknown } | undefined {
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

  // concat walks the receiver and every spreadable argument: the sum is both a walk and the
  // result's size. When counting it runs no program code and stays within the limit, the native
  // method does the work; otherwise (a marker or length a getter answers, a species constructor
  // of the program's, a result past the limit) the spec's loop does, exact in the order of its
  // reads and errors, and stoppable by the compute budget.
  const nativeConcat = ArrayPrototype.concat
  const nativeSpeciesGetter = getOwnPropertyDescriptor(ArrayConstructor, speciesSymbol)?.get
  /** Whether concat spreads `object`, from its marker as read. */
  const spreads = (object: object, marker: unknown): boolean => (marker === undefined ? isArray(object) : !!marker)
  const isObject = (value: unknown): value is object => (typeof value === 'object' || typeof value === 'function') && value !== null
  /** What concat adds for `object` when finding out runs no program code: `undefined` when it could. */
  function quietConcatCount(object: object): number | undefined {
    const found = stableLookup(object, concatSpreadable)
    if (found === undefined) return undefined
    return spreads(object, found.value) ? stableLength(object) : 1
  }
  // Finds a getter along the prototype chain without allocating a descriptor: the check below runs
  // on every concat of plain arrays.
  const lookupGetter = (ObjectPrototype as unknown as { __lookupGetter__: (this: object, key: PropertyKey) => unknown }).__lookupGetter__
  const speciesGetterIntact = (): boolean => apply(lookupGetter, ArrayConstructor, [speciesSymbol]) === nativeSpeciesGetter
  /** Whether ArraySpeciesCreate(receiver, 0) runs no program code: it makes a plain array, or throws at once. */
  function speciesQuiet(receiver: object): boolean {
    if (!isArray(receiver)) return true
    const found = stableLookup(receiver, 'constructor')
    if (found === undefined) return false
    if (!isObject(found.value)) return true
    return found.value === ArrayConstructor && speciesGetterIntact()
  }
  /** speciesQuiet of a genuine array whose prototype is Array.prototype, with no own `constructor`. */
  const plainArraySpeciesQuiet = (): boolean =>
    apply(lookupGetter, ArrayPrototype, ['constructor']) === undefined && ArrayPrototype.constructor === ArrayConstructor && speciesGetterIntact()
  /**
   * The common case, where no program code can run: genuine arrays and primitives, with no
   * spreadability marker on the arrays or their prototypes. `undefined` for anything else.
   */
  function plainArraysCount(items: readonly unknown[]): number | undefined {
    if (hasOwn(ArrayPrototype, concatSpreadable) || hasOwn(ObjectPrototype, concatSpreadable) || getPrototypeOf(ArrayPrototype) !== ObjectPrototype) return undefined
    let count = 0
    for (let index = 0; index < items.length; index++) {
      const item = items[index]
      if (!isObject(item)) {
        count++
        continue
      }
      if (!isArray(item) || !notProxy(item) || getPrototypeOf(item) !== ArrayPrototype || hasOwn(item, concatSpreadable)) return undefined
      count += (item as unknown[]).length
    }
    return count
  }
  /** What the native concat would walk and create, when counting it runs no program code. */
  function quietCount(items: readonly unknown[]): number | undefined {
    // A plain count means the receiver is a genuine array whose prototype is Array.prototype.
    const plain = plainArraysCount(items)
    if (plain !== undefined) return !hasOwn(items[0] as object, 'constructor') && plainArraySpeciesQuiet() ? plain : undefined
    if (!speciesQuiet(items[0] as object)) return undefined
    let count = 0
    for (let index = 0; index < items.length; index++) {
      const item = items[index]
      const added = isObject(item) ? quietConcatCount(item) : 1
      if (added === undefined) return undefined
      count += added
    }
    return count
  }
  function concatLoop(items: readonly unknown[]): object {
    const result = arraySpeciesCreate(items[0] as object, 0)
    let next = 0
    for (let index = 0; index < items.length; index++) {
      const item = items[index]
      if (isObject(item) && spreads(item, reflectGet(item, concatSpreadable))) {
        const length = toLength(reflectGet(item, 'length'))
        if (next + length > maxSafeLength) throw new TypeErrorConstructor(`Array.prototype.concat would make a length of ${next + length}, past 2^53 - 1`)
        for (let at = 0; at < length; at++, next++) {
          if (reflectHas(item, at)) createDataProperty(result, next, reflectGet(item, at))
        }
      } else {
        if (next >= maxSafeLength) throw new TypeErrorConstructor('Array.prototype.concat would make a length past 2^53 - 1')
        createDataProperty(result, next++, item)
      }
    }
    setOrThrow(result, 'length', next)
    return result
  }
  const concatMethods = {
    concat(this: unknown, ...args: unknown[]): unknown {
      if (this === null || this === undefined) return apply(nativeConcat, this, args)
      const items = copyOf(args, ObjectConstructor(this))
      const count = quietCount(items)
      if (count !== undefined && count <= maxLength) return apply(nativeConcat, this, args)
      return concatLoop(items)
    },
  }
  defineProperty(concatMethods.concat, 'length', { value: 1, configurable: true })
  defineProperty(ArrayPrototype, 'concat', { value: concatMethods.concat, writable: true, configurable: true, enumerable: false })

  // flat and flatMap walk nested arrays the receiver's length says nothing about; they are
  // written out here, as the spec does, so the walk is a loop the compute budget can stop.
  const nativeMap = ArrayPrototype.map
  function flattenInto(target: object, source: object, sourceLength: number, start: number, depth: number, mapper?: { fn: unknown; thisArg: unknown }): number {
    let targetIndex = start
    for (let sourceIndex = 0; sourceIndex < sourceLength; sourceIndex++) {
      const key = StringConstructor(sourceIndex)
      if (!reflectHas(source, key)) continue
      let element: unknown = reflectGet(source, key)
      if (mapper !== undefined) element = apply(mapper.fn as Native, mapper.thisArg, [element, sourceIndex, source])
      if (depth > 0 && isArray(element)) {
        const elementLength = toLength(reflectGet(element as object, 'length'))
        targetIndex = flattenInto(target, element as object, elementLength, targetIndex, depth - 1)
      } else {
        if (targetIndex >= maxLength) refuse('Array.prototype.flat', targetIndex + 1)
        createDataProperty(target, targetIndex, element)
        targetIndex++
      }
    }
    return targetIndex
  }
  /** ArraySpeciesCreate(object, 0), exactly as the native methods do it. */
  function speciesCreate(object: object): object {
    return apply(nativeMap, pinned(object, { length: 0 }), [() => undefined]) as object
  }
  const flatMethods = {
    flat(this: unknown, depth?: unknown): unknown[] {
      const object = ObjectConstructor(requireCoercible(this, 'flat')) as object
      const sourceLength = toLength(reflectGet(object, 'length'))
      const depthNumber = depth === undefined ? 1 : toInteger(depth)
      const target = speciesCreate(object)
      flattenInto(target, object, sourceLength, 0, depthNumber < 0 ? 0 : depthNumber)
      return target as unknown[]
    },
    flatMap(this: unknown, mapper: unknown, thisArg?: unknown): unknown[] {
      const object = ObjectConstructor(requireCoercible(this, 'flatMap')) as object
      const sourceLength = toLength(reflectGet(object, 'length'))
      if (typeof mapper !== 'function') throw new TypeErrorConstructor(`flatMap mapper function is not callable`)
      const target = speciesCreate(object)
      flattenInto(target, object, sourceLength, 0, 1, { fn: mapper, thisArg })
      return target as unknown[]
    },
  }
  function requireCoercible(value: unknown, name: string, owner = 'Array.prototype'): unknown {
    if (value === null || value === undefined) throw new TypeErrorConstructor(`${owner}.${name} called on null or undefined`)
    return value
  }
  // The native `length`s: `flat([depth])` and `flatMap(mapper[, thisArg])`.
  defineProperty(flatMethods.flat, 'length', { value: 0, configurable: true })
  defineProperty(flatMethods.flatMap, 'length', { value: 1, configurable: true })
  defineProperty(ArrayPrototype, 'flat', { value: flatMethods.flat, writable: true, configurable: true, enumerable: false })
  defineProperty(ArrayPrototype, 'flatMap', { value: flatMethods.flatMap, writable: true, configurable: true, enumerable: false })

  // --- Results as long as a string or a typed array --------------------------------------------
  // A string can hold 2^29 characters and a typed array as many elements as its buffer: one
  // array entry per character or element is past V8's fixed-array maximum, and V8 aborts the
  // process instead of throwing.
  const stringSplit = String.prototype.split
  const splitSymbol = Symbol.split
  function toUint32(value: unknown): number {
    const number = NumberConstructor(value)
    if (number !== number || number === Infinity || number === -Infinity) return 0
    const integer = trunc(number) % 4294967296
    return integer < 0 ? integer + 4294967296 : integer
  }
  /** Pieces `text.split(separator)` yields, counting no further than `limit`. */
  function countPieces(text: string, separator: string, limit: number): number {
    if (separator === '') return min(text.length, limit)
    let pieces = 1
    let at = apply(stringIndexOf, text, [separator, 0]) as number
    while (at !== -1 && pieces < limit) {
      pieces++
      at = apply(stringIndexOf, text, [separator, at + separator.length]) as number
    }
    return pieces
  }
  // The spec's String.prototype.split, with the native method left only the string case, on
  // primitives it cannot convert a second time.
  const splitMethods = {
    split(this: unknown, separator: unknown, limit: unknown): unknown {
      const object = requireCoercible(this, 'split', 'String.prototype')
      if (separator !== undefined && separator !== null) {
        const splitter: unknown = reflectGet(ObjectConstructor(separator) as object, splitSymbol, separator)
        if (splitter !== undefined && splitter !== null) return apply(splitter as Native, separator, [object, limit])
      }
      const text = toText(object)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      const separatorText = separator === undefined ? undefined : toText(separator)
      if (separatorText !== undefined && limitNumber > maxLength && text.length >= maxLength) {
        const pieces = countPieces(text, separatorText, maxLength + 1)
        if (pieces > maxLength) refuseText('String.prototype.split', text.length, maxLength, 'It makes more pieces than that: pass a limit or split a smaller string.')
      }
      return apply(stringSplit, text, [separatorText, limitNumber])
    },
  }
  defineProperty(splitMethods.split, 'length', { value: 2, configurable: true })
  defineProperty(String.prototype, 'split', { value: splitMethods.split, writable: true, configurable: true, enumerable: false })

  // A regular expression can split a string at every character; how many pieces it makes is only
  // known by running it, so a string longer than the limit must give a limit or a plain separator.
  const RegExpPrototype = RegExp.prototype as unknown as Record<symbol, Native>
  const regExpSplit = RegExpPrototype[splitSymbol] as Native
  const regExpMethods = {
    [splitSymbol](this: unknown, string: unknown, limit: unknown): unknown {
      const text = toText(string)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      if (text.length >= maxLength && limitNumber > maxLength) {
        refuseText('Splitting with a regular expression', text.length, maxLength, 'Pass a limit, split on a plain string, or split a smaller string.')
      }
      return apply(regExpSplit, this, [text, limitNumber])
    },
  }
  defineProperty(regExpMethods[splitSymbol], 'length', { value: 2, configurable: true })
  defineProperty(RegExpPrototype, splitSymbol, { value: regExpMethods[splitSymbol], writable: true, configurable: true, enumerable: false })

  // Matching or replacing every occurrence collects them all in native code first: on a string
  // longer than the limit, one per character is past what a thread can stop or hold.
  function guardRegExpText(symbol: symbol, what: string): void {
    const native = RegExpPrototype[symbol] as Native
    const methods = {
      [symbol](this: unknown, string: unknown, ...rest: unknown[]): unknown {
        const text = toText(string)
        if (text.length > maxLength) refuseText(what, text.length, maxLength, 'Work on smaller pieces of the string.')
        return apply(native, this, copyOf(rest, text))
      },
    }
    defineProperty(methods[symbol], 'length', { value: native.length, configurable: true })
    defineProperty(RegExpPrototype, symbol, { value: methods[symbol], writable: true, configurable: true, enumerable: false })
  }
  guardRegExpText(Symbol.match, 'Matching a regular expression')
  guardRegExpText(Symbol.replace, 'Replacing with a regular expression')

  // replaceAll with a plain string collects every occurrence first, like a global replace.
  const stringReplaceAll = String.prototype.replaceAll
  const replaceAllMethods = {
    replaceAll(this: unknown, searchValue: unknown, replaceValue: unknown): unknown {
      const object = requireCoercible(this, 'replaceAll', 'String.prototype')
      // A regular expression (or anything with its own replacer) goes through Symbol.replace, guarded above.
      if (searchValue !== undefined && searchValue !== null && (typeof searchValue === 'object' || typeof searchValue === 'function')) {
        return apply(stringReplaceAll, object, [searchValue, replaceValue])
      }
      const text = toText(object)
      const search = toText(searchValue)
      if (text.length > maxLength) {
        const occurrences = countPieces(text, search, maxLength + 2) - 1
        if (occurrences > maxLength) refuseText('String.prototype.replaceAll', text.length, maxLength, 'Replace in smaller pieces of the string.')
      }
      return apply(stringReplaceAll, text, [search, replaceValue])
    },
  }
  defineProperty(replaceAllMethods.replaceAll, 'length', { value: 2, configurable: true })
  defineProperty(String.prototype, 'replaceAll', { value: replaceAllMethods.replaceAll, writable: true, configurable: true, enumerable: false })

  // JSON.parse runs in native code from the first character to the last, and an array in the text
  // becomes one fixed array: two characters per element at least.
  const jsonParse = JSON.parse
  const maxJsonText = maxLength * 2
  const jsonMethods = {
    parse(text: unknown, reviver?: unknown): unknown {
      const source = toText(text)
      if (source.length > maxJsonText) refuseText('JSON.parse', source.length, maxJsonText, 'Parse smaller documents.')
      return reviver === undefined ? jsonParse(source) : jsonParse(source, reviver as (key: string, value: unknown) => unknown)
    },
  }
  defineProperty(jsonMethods.parse, 'length', { value: 2, configurable: true })
  defineProperty(JSON, 'parse', { value: jsonMethods.parse, writable: true, configurable: true, enumerable: false })

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
  for (const name of ['keys', 'values', 'entries', 'getOwnPropertyNames', 'getOwnPropertyDescriptors', 'assign', 'freeze', 'seal']) guardKeys(ObjectConstructor, 'Object', name)
  guardKeys(Reflect, 'Reflect', 'ownKeys')

  // --- Iterators a spread collects inside V8 ---------------------------------------------------
  // `[...text]`, `f(...text)`, `Math.max(...bytes)` and `Array.from(text[Symbol.iterator]())`
  // gather every value of a string's or typed array's iterator into one array in native code.
  // Nothing of the program runs between two steps, and the array's last growth asks the heap for
  // one block larger than what the worker's heap cap leaves: V8 then aborts the whole process (the
  // worker's near-heap-limit grace is a few MiB), not just the worker. So the iterator of a string
  // or typed array longer than the limit is refused when it is made; a loop over the indexes is
  // an ordinary loop the budgets stop.
  const stringIteratorFix = 'Loop over its indexes instead (for (let i = 0; i < text.length; i++)), or iterate smaller pieces of it.'
  const StringPrototype = String.prototype as unknown as Record<symbol, Native>
  const nativeStringIterator = StringPrototype[iteratorSymbol] as Native
  const stringIteratorMethods = {
    [iteratorSymbol](this: unknown): unknown {
      if (this === null || this === undefined || typeof this === 'symbol') return apply(nativeStringIterator, this, [])
      // ToString once here, so the native method gets a primitive it cannot convert again.
      const text = StringConstructor(this)
      if (text.length > maxLength) refuseText('A string iterator', text.length, maxLength, stringIteratorFix)
      return apply(nativeStringIterator, text, [])
    },
  }
  defineProperty(stringIteratorMethods[iteratorSymbol], 'length', { value: 0, configurable: true })
  defineProperty(StringPrototype, iteratorSymbol, { value: stringIteratorMethods[iteratorSymbol], writable: true, configurable: true, enumerable: false })

  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as Record<PropertyKey, Native>
  function guardTypedArrayIterator(name: 'values' | 'keys' | 'entries'): Native {
    const native = TypedArrayPrototype[name] as Native
    const guarded = {
      [name](this: unknown): unknown {
        const length = typedArrayLengthOf(this)
        if (length !== undefined && length > maxLength) refuse(`%TypedArray%.prototype.${name}`, length)
        return apply(native, this, [])
      },
    }[name] as Native
    defineProperty(guarded, 'length', { value: 0, configurable: true })
    defineProperty(TypedArrayPrototype, name, { value: guarded, writable: true, configurable: true, enumerable: false })
    return guarded
  }
  const nativeTypedArrayValues = TypedArrayPrototype.values
  const guardedTypedArrayValues = guardTypedArrayIterator('values')
  guardTypedArrayIterator('keys')
  guardTypedArrayIterator('entries')
  // `values` and `[Symbol.iterator]` are one function object; they stay one.
  if (TypedArrayPrototype[iteratorSymbol] === nativeTypedArrayValues) {
    defineProperty(TypedArrayPrototype, iteratorSymbol, { value: guardedTypedArrayValues, writable: true, configurable: true, enumerable: false })
  }

  // Array.from over an array-like walks its length natively; over an iterable it takes one step
  // per value (a string: one per character).
  const nativeFrom = Array.from
  const arrayFromMethods = {
    from(this: unknown, items: unknown, ...rest: unknown[]): unknown {
      if (items === null || items === undefined) return apply(nativeFrom, this, copyOf(rest, items))
      const object = ObjectConstructor(items) as object
      const found = stableLookup(object, iteratorSymbol)
      const method: unknown = found === undefined ? reflectGet(object, iteratorSymbol, items) : found.value
      if (method !== undefined && method !== null) {
        const count = typeof items === 'string' ? items.length : 0
        if (count > maxLength) refuse('Array.from', count)
        const source = found === undefined ? pinned(object, { iterator: { value: method } }) : items
        return apply(nativeFrom, this, copyOf(rest, source))
      }
      const length = toLength(reflectGet(object, 'length'))
      const stable = found === undefined ? undefined : stableLength(object)
      if ((stable ?? length) > maxLength) refuse('Array.from', stable ?? length)
      const source = stable === undefined ? pinned(object, { length, iterator: { value: undefined } }) : object
      return apply(nativeFrom, this, copyOf(rest, source))
    },
  }
  defineProperty(arrayFromMethods.from, 'length', { value: 1, configurable: true })
  defineProperty(Array, 'from', { value: arrayFromMethods.from, writable: true, configurable: true, enumerable: false })
}
