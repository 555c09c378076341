/**
 * The `Array.prototype` methods that walk their receiver by its `length`: each counts the work the
 * spec would do (its early exits, `fromIndex`, the order of its own reads and errors) and leaves
 * the native method a walk within the limit, or does the work itself as the spec's loop.
 */
import {
  ObjectConstructor,
  defineProperty,
  objectKeys,
  apply,
  reflectGet,
  reflectHas,
  isArray,
  trunc,
  min,
  max,
  ArrayPrototype,
  maxSafeLength,
  TypeErrorConstructor,
  type Native,
} from './intrinsics.js'
import { maxLength, refuse, notProxy } from './sandbox-limits.js'
import {
  copyOf,
  argAt,
  integerOf,
  toInteger,
  toLength,
  relativeIndex,
  createDataProperty,
  setOrThrow,
  deleteOrThrow,
  moveOrDelete,
  tooLong,
  arraySpeciesCreate,
} from './spec-operations.js'
import { stableLength, pinned } from './stable-reads.js'

export function installArrayWalkGuards(): void {
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
    if (typeof value !== 'function')
      throw new TypeErrorConstructor(
        `Array.prototype.${name}: the callback is not a function (got ${value === null ? 'null' : typeof value})`,
      )
  }
  function predicateLoop(
    object: object,
    length: number,
    args: readonly unknown[],
    name: 'every' | 'some' | 'forEach',
  ): unknown {
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
      if (!inBounds(index))
        throw new TypeErrorConstructor(`Array.prototype.${name} of an empty array with no initial value`)
      accumulator = reflectGet(object, index)
      index += step
    }
    for (; inBounds(index); index += step) {
      if (reflectHas(object, index))
        accumulator = apply(callback as Native, undefined, [accumulator, reflectGet(object, index), index, object])
    }
    return accumulator
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
      for (let index = start; index < length - deleteCount; index++)
        moveOrDelete(object, index + deleteCount, index + itemCount)
      for (let index = length; index > length - deleteCount + itemCount; index--) deleteOrThrow(object, index - 1)
    } else if (itemCount > deleteCount) {
      for (let index = length - deleteCount; index > start; index--)
        moveOrDelete(object, index + deleteCount - 1, index + itemCount - 1)
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

  const wholeWalk: Walk = { numeric: [], lazy: false, count: length => length }
  const walks: Record<string, Walk> = {
    indexOf: {
      numeric: [1],
      lazy: true,
      count: (length, args) => length - relativeIndex(integerAt(args, 1), length),
      loop: indexOfLoop,
    },
    includes: {
      numeric: [1],
      lazy: true,
      count: (length, args) => length - relativeIndex(integerAt(args, 1), length),
      loop: includesLoop,
    },
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
    splice: {
      lazy: false,
      numeric: [0, 1],
      count: (length, args) => (args.length === 0 ? 0 : length - relativeIndex(integerAt(args, 0), length)),
      loop: spliceLoop,
    },
    toSpliced: { lazy: false, numeric: [0, 1], count: toSplicedLength, loop: toSplicedPastLimit },
    // With nothing to insert, unshift only writes the length back.
    unshift: { lazy: false, numeric: [], count: (length, args) => (args.length === 0 ? 0 : length), loop: unshiftLoop },
    reverse: { lazy: false, numeric: [], count: length => length, loop: reverseLoop },
    sort: { lazy: false, numeric: [], count: length => length, checkFirst: comparatorFirst },
    toSorted: { lazy: false, numeric: [], count: length => length, checkFirst: comparatorFirst },
    with: { lazy: false, numeric: [0], count: length => length },
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
            if (position < converted.length && converted[position] !== undefined)
              converted[position] = toInteger(converted[position])
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
    if (typeof (ArrayPrototype as unknown as Record<string, unknown>)[name] === 'function')
      guardArrayMethod(name, walks[name] as Walk)
  }
}
