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

/** The worker-realm service the guards need: a proxy cannot be recognized from inside a realm. */
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
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf } = Object
  const { apply, get: reflectGet } = Reflect
  const isArray = Array.isArray
  const ProxyConstructor = Proxy
  const RangeErrorConstructor = RangeError
  const NumberConstructor = Number
  const StringConstructor = String
  const { trunc, min, max } = Math
  const ArrayPrototype = Array.prototype
  const concatSpreadable = Symbol.isConcatSpreadable
  const iteratorSymbol = Symbol.iterator
  const TypeErrorConstructor = TypeError
  const stringIndexOf = String.prototype.indexOf

  function refuse(what: string, count: number): never {
    throw new RangeErrorConstructor(
      `${what} over ${count} elements refused: this sandbox allows at most ${maxLength} in one built-in call. ` +
      'Work on smaller arrays and strings, or loop over the indexes yourself.',
    )
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

  /**
   * The length a native method will read from `object` right now, when reading it cannot run
   * program code or change between two reads: an own data property of an object that is not a
   * proxy (arrays, strings, `arguments`, plain array-likes). `undefined` otherwise.
   */
  function stableLength(object: object): number | undefined {
    if (isProxy(object)) return undefined
    const descriptor = getOwnPropertyDescriptor(object, 'length')
    if (descriptor === undefined || !('value' in descriptor)) return undefined
    const value: unknown = descriptor.value
    if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return undefined
    return toLength(value)
  }

  /** What a stand-in answers for `length`, `Symbol.isConcatSpreadable` and `Symbol.iterator`; unset keys pass through. */
  interface Pins {
    readonly length?: number
    readonly spreadable?: boolean
    readonly iterator?: { readonly value: unknown }
  }
  /**
   * A stand-in for `object` whose pinned keys always answer what was checked; every other
   * operation reaches `object` itself (getters run with `object` as their receiver).
   */
  function pinned(object: object, pins: Pins): object {
    const { length, spreadable, iterator } = pins
    return new ProxyConstructor(object, {
      get(target: object, key: string | symbol): unknown {
        if (key === 'length' && length !== undefined) return length
        if (key === concatSpreadable && spreadable !== undefined) return spreadable
        if (key === iteratorSymbol && iterator !== undefined) return iterator.value
        return reflectGet(target, key)
      },
    })
  }

  interface Prepared {
    /** What the native method receives as `this`. */
    readonly receiver: unknown
    /** The length the native method will see. */
    readonly length: number
  }
  /**
   * Reads `length` once, as the spec does, then runs `convert` (which converts the numeric
   * arguments in spec order and may run program code), then decides what the native method gets.
   */
  function prepare(thisValue: unknown, convert: (length: number) => void): Prepared {
    const object = ObjectConstructor(thisValue) as object
    const length = toLength(reflectGet(object, 'length'))
    convert(length)
    // Read again after the conversions: program code may have changed a stable length meanwhile.
    const stable = stableLength(object)
    if (stable !== undefined) return { receiver: typeof thisValue === 'object' || typeof thisValue === 'function' ? thisValue : object, length: stable }
    return { receiver: pinned(object, { length }), length }
  }

  type Native = (...args: unknown[]) => unknown
  /**
   * Replaces `owner[name]` with a guard. `check` receives the receiver and the arguments, and
   * returns the receiver and arguments to hand to the native method (arguments converted).
   */
  function guard(owner: object, name: string, check: (thisValue: unknown, args: unknown[]) => { receiver: unknown; args: unknown[] }): void {
    const native = (owner as Record<string, Native>)[name] as Native
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        const prepared = check(this, args)
        const result = apply(native, prepared.receiver, prepared.args)
        // A method that returns its receiver must not return the stand-in.
        return result === prepared.receiver && result !== this ? ObjectConstructor(this) : result
      },
    }[name] as Native
    defineProperty(guarded, 'length', { value: native.length, configurable: true })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }

  /** Methods whose native loop walks the whole length (with no program code run per index for holes). */
  function guardWholeWalk(name: string): void {
    guard(ArrayPrototype, name, (thisValue, args) => {
      if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
      const prepared = prepare(thisValue, () => {})
      if (prepared.length > maxLength) refuse(`Array.prototype.${name}`, prepared.length)
      return { receiver: prepared.receiver, args }
    })
  }
  for (const name of ['join', 'toLocaleString', 'reverse', 'every', 'some', 'forEach', 'map', 'filter', 'reduce', 'reduceRight',
    'find', 'findIndex', 'findLast', 'findLastIndex', 'sort', 'toSorted', 'toReversed', 'shift', 'entries', 'keys', 'values']) {
    if (typeof (ArrayPrototype as unknown as Record<string, unknown>)[name] === 'function') guardWholeWalk(name)
  }
  // Array.prototype.toString calls `this.join`, which is the guarded join above (the native one is
  // unreachable from the program), or the program's own function.

  /** indexOf/includes walk from a relative start to the end. */
  function guardForwardSearch(name: string): void {
    guard(ArrayPrototype, name, (thisValue, args) => {
      if (thisValue === null || thisValue === undefined || args.length < 2) {
        if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
      }
      let start = 0
      const prepared = prepare(thisValue, (length) => {
        if (length === 0) return
        start = args.length > 1 ? toInteger(args[1]) : 0
      })
      const from = relativeIndex(start, prepared.length)
      const count = prepared.length - from
      if (count > maxLength) refuse(`Array.prototype.${name}`, count)
      return { receiver: prepared.receiver, args: args.length > 1 ? [args[0], start] : [args[0]] }
    })
  }
  guardForwardSearch('indexOf')
  guardForwardSearch('includes')

  guard(ArrayPrototype, 'lastIndexOf', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    let start = Infinity
    const prepared = prepare(thisValue, (length) => {
      if (length === 0) return
      if (args.length > 1) start = toInteger(args[1])
    })
    const from = start === Infinity ? prepared.length - 1 : start < 0 ? prepared.length + start : min(start, prepared.length - 1)
    const count = from < 0 ? 0 : from + 1
    if (count > maxLength) refuse('Array.prototype.lastIndexOf', count)
    return { receiver: prepared.receiver, args: args.length > 1 ? [args[0], start] : [args[0]] }
  })

  /** Converts (start, end) arguments as fill/slice/copyWithin do; `end` undefined means the length. */
  function rangeOf(args: unknown[], startIndex: number, length: number): { start: number; end: number } {
    const start = toInteger(args[startIndex])
    const endArg = args[startIndex + 1]
    const end = endArg === undefined ? length : toInteger(endArg)
    return { start, end }
  }

  // fill writes every index of its range: the range is both a native walk and, on a sparse array
  // or array-like, an allocation of that many elements.
  guard(ArrayPrototype, 'fill', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    let range = { start: 0, end: 0 }
    const prepared = prepare(thisValue, (length) => { range = rangeOf(args, 1, length) })
    const count = max(relativeIndex(range.end, prepared.length) - relativeIndex(range.start, prepared.length), 0)
    if (count > maxLength) refuse('Array.prototype.fill', count)
    return { receiver: prepared.receiver, args: [args[0], range.start, range.end] }
  })

  guard(ArrayPrototype, 'slice', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    let range = { start: 0, end: 0 }
    const prepared = prepare(thisValue, (length) => { range = rangeOf(args, 0, length) })
    const count = max(relativeIndex(range.end, prepared.length) - relativeIndex(range.start, prepared.length), 0)
    if (count > maxLength) refuse('Array.prototype.slice', count)
    return { receiver: prepared.receiver, args: [range.start, range.end] }
  })

  guard(ArrayPrototype, 'copyWithin', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    let target = 0
    let range = { start: 0, end: 0 }
    const prepared = prepare(thisValue, (length) => {
      target = toInteger(args[0])
      range = rangeOf(args, 1, length)
    })
    const length = prepared.length
    const count = max(min(relativeIndex(range.end, length) - relativeIndex(range.start, length), length - relativeIndex(target, length)), 0)
    if (count > maxLength) refuse('Array.prototype.copyWithin', count)
    return { receiver: prepared.receiver, args: [target, range.start, range.end] }
  })

  // splice and toSpliced move every element after the cut, and toSpliced copies the whole array.
  function guardSplice(name: string): void {
    guard(ArrayPrototype, name, (thisValue, args) => {
      if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
      let start = 0
      let deleteCount = 0
      const prepared = prepare(thisValue, (length) => {
        start = toInteger(args[0])
        const from = relativeIndex(start, length)
        deleteCount = args.length === 0 ? 0 : args.length === 1 ? length - from : min(max(toInteger(args[1]), 0), length - from)
      })
      const length = prepared.length
      const count = name === 'splice' ? length - relativeIndex(start, length) : length + args.length
      if (count > maxLength) refuse(`Array.prototype.${name}`, count)
      const converted = args.length === 0 ? [] : args.length === 1 ? [start] : [start, deleteCount, ...args.slice(2)]
      return { receiver: prepared.receiver, args: converted }
    })
  }
  guardSplice('splice')
  if (typeof (ArrayPrototype as { toSpliced?: unknown }).toSpliced === 'function') guardSplice('toSpliced')

  guard(ArrayPrototype, 'unshift', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    const prepared = prepare(thisValue, () => {})
    // With nothing to insert, unshift only writes the length back.
    if (args.length > 0 && prepared.length > maxLength) refuse('Array.prototype.unshift', prepared.length)
    return { receiver: prepared.receiver, args }
  })

  if (typeof (ArrayPrototype as { with?: unknown }).with === 'function') {
    guard(ArrayPrototype, 'with', (thisValue, args) => {
      if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
      let index = 0
      const prepared = prepare(thisValue, () => { index = toInteger(args[0]) })
      if (prepared.length > maxLength) refuse('Array.prototype.with', prepared.length)
      return { receiver: prepared.receiver, args: [index, args[1]] }
    })
  }

  /**
   * How `key` resolves on `object` when no program code can run on the way: every object of the
   * prototype chain is not a proxy and the property found is a data property. `undefined` when
   * looking it up could run program code (a getter, a proxy) and so answer differently twice.
   */
  function stableLookup(object: object, key: PropertyKey): { readonly value: unknown } | undefined {
    let current: object | null = object
    for (let depth = 0; current !== null && depth < 64; depth++) {
      if (isProxy(current)) return undefined
      const descriptor = getOwnPropertyDescriptor(current, key)
      if (descriptor !== undefined) return 'value' in descriptor ? { value: descriptor.value } : undefined
      current = getPrototypeOf(current) as object | null
    }
    return current === null ? { value: undefined } : undefined
  }

  // concat walks the receiver and every spreadable argument: the sum is both a walk and the
  // result's size. Each spreadable item is checked as it will be seen: its spreadability and
  // length read once, and pinned when a second read could answer differently.
  guard(ArrayPrototype, 'concat', (thisValue, args) => {
    if (thisValue === null || thisValue === undefined) return { receiver: thisValue, args }
    const items: unknown[] = [ObjectConstructor(thisValue)]
    for (let index = 0; index < args.length; index++) items[items.length] = args[index]
    let count = 0
    for (let index = 0; index < items.length; index++) {
      const item = items[index]
      if (typeof item !== 'object' || item === null) {
        if (typeof item !== 'function') { count++; continue }
      }
      const object = item as object
      const found = stableLookup(object, concatSpreadable)
      const marker: unknown = found === undefined ? reflectGet(object, concatSpreadable) : found.value
      const spreadable = marker === undefined ? isArray(object) : !!marker
      if (!spreadable) {
        count++
        if (found === undefined) items[index] = pinned(object, { spreadable: false })
        continue
      }
      const length = toLength(reflectGet(object, 'length'))
      const stable = found === undefined ? undefined : stableLength(object)
      if (stable === undefined) items[index] = pinned(object, { length, spreadable: true })
      count += stable ?? length
    }
    if (count > maxLength) refuse('Array.prototype.concat', count)
    const receiver = items[0] === thisValue || items[0] === ObjectConstructor(thisValue) ? thisValue : items[0]
    const rest: unknown[] = []
    for (let index = 1; index < items.length; index++) rest[rest.length] = items[index]
    return { receiver, args: rest }
  })

  // flat and flatMap walk nested arrays the receiver's length says nothing about; they are
  // written out here, as the spec does, so the walk is a loop the compute budget can stop.
  const nativeMap = ArrayPrototype.map
  const reflectHas = Reflect.has
  function createDataProperty(target: object, index: number, value: unknown): void {
    defineProperty(target, index, { value, writable: true, enumerable: true, configurable: true })
  }
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
  const typedArrayLength = getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype) as object, 'length')?.get as (this: unknown) => number
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
      const text = StringConstructor(object)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      const separatorText = separator === undefined ? undefined : StringConstructor(separator)
      if (separatorText !== undefined && limitNumber > maxLength && text.length >= maxLength) {
        const pieces = countPieces(text, separatorText, maxLength + 1)
        if (pieces > maxLength) refuse('String.prototype.split', countPieces(text, separatorText, limitNumber))
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
      const text = StringConstructor(string)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      if (text.length >= maxLength && limitNumber > maxLength) {
        throw new RangeErrorConstructor(
          `Splitting ${text.length} characters with a regular expression refused: this sandbox allows at most ${maxLength} pieces in one built-in call. ` +
          'Pass a limit, split on a plain string, or split a smaller string.',
        )
      }
      return apply(regExpSplit, this, [text, limitNumber])
    },
  }
  defineProperty(regExpMethods[splitSymbol], 'length', { value: 2, configurable: true })
  defineProperty(RegExpPrototype, splitSymbol, { value: regExpMethods[splitSymbol], writable: true, configurable: true, enumerable: false })

  /**
   * How many index keys `value` has without running program code: a string's length, or a typed
   * array's. Zero for anything else (its keys are properties it holds, bounded by the heap).
   */
  function indexKeyCount(value: unknown): number {
    if (typeof value === 'string') return value.length
    if (typeof value !== 'object' || value === null || isProxy(value)) return 0
    try {
      return apply(typedArrayLength, value, []) as number
    } catch {
      // Not a typed array.
    }
    const length = stableLength(value)
    // A String object's own `length` is its string's, not writable: trustworthy.
    if (length !== undefined && !(getOwnPropertyDescriptor(value, 'length')?.writable ?? true)) return length
    return 0
  }
  function guardKeys(owner: object, ownerName: string, name: string): void {
    const native = (owner as Record<string, Native>)[name] as Native
    const guarded = {
      [name](...args: unknown[]): unknown {
        for (let index = 0; index < args.length; index++) {
          const count = indexKeyCount(args[index])
          if (count > maxLength) refuse(`${ownerName}.${name}`, count)
        }
        return apply(native, owner, args)
      },
    }[name] as Native
    defineProperty(guarded, 'length', { value: native.length, configurable: true })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  for (const name of ['keys', 'values', 'entries', 'getOwnPropertyNames', 'getOwnPropertyDescriptors', 'assign', 'freeze', 'seal']) guardKeys(ObjectConstructor, 'Object', name)
  guardKeys(Reflect, 'Reflect', 'ownKeys')

  // Array.from over an array-like walks its length natively; over an iterable it takes one step
  // per value (a string: one per character).
  const nativeFrom = Array.from
  const arrayFromMethods = {
    from(this: unknown, items: unknown, ...rest: unknown[]): unknown {
      if (items === null || items === undefined) return apply(nativeFrom, this, [items, ...rest])
      const object = ObjectConstructor(items) as object
      const found = stableLookup(object, iteratorSymbol)
      const method: unknown = found === undefined ? reflectGet(object, iteratorSymbol, items) : found.value
      if (method !== undefined && method !== null) {
        const count = typeof items === 'string' ? items.length : 0
        if (count > maxLength) refuse('Array.from', count)
        const source = found === undefined ? pinned(object, { iterator: { value: method } }) : items
        return apply(nativeFrom, this, [source, ...rest])
      }
      const length = toLength(reflectGet(object, 'length'))
      const stable = found === undefined ? undefined : stableLength(object)
      if ((stable ?? length) > maxLength) refuse('Array.from', stable ?? length)
      const source = stable === undefined ? pinned(object, { length, iterator: { value: undefined } }) : object
      return apply(nativeFrom, this, [source, ...rest])
    },
  }
  defineProperty(arrayFromMethods.from, 'length', { value: 1, configurable: true })
  defineProperty(Array, 'from', { value: arrayFromMethods.from, writable: true, configurable: true, enumerable: false })
}
