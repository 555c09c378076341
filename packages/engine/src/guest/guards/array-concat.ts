/** `Array.prototype.concat`, whose walk and result are the sum of its receiver and arguments. */
import {
  ObjectConstructor,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  apply,
  reflectGet,
  reflectHas,
  ArrayConstructor,
  isArray,
  ArrayPrototype,
  ObjectPrototype,
  concatSpreadable,
  speciesSymbol,
  maxSafeLength,
  TypeErrorConstructor,
} from './intrinsics.js'
import { maxLength, notProxy } from './sandbox-limits.js'
import { copyOf, toLength, createDataProperty, setOrThrow, arraySpeciesCreate } from './spec-operations.js'
import { stableLength, stableLookup } from './stable-reads.js'

export function installConcatGuard(): void {
  // concat walks the receiver and every spreadable argument: the sum is both a walk and the
  // result's size. When counting it runs no program code and stays within the limit, the native
  // method does the work; otherwise (a marker or length a getter answers, a species constructor
  // of the program's, a result past the limit) the spec's loop does, exact in the order of its
  // reads and errors, and stoppable by the compute budget.
  const nativeConcat = ArrayPrototype.concat
  const nativeSpeciesGetter = getOwnPropertyDescriptor(ArrayConstructor, speciesSymbol)?.get
  /** Whether concat spreads `object`, from its marker as read. */
  const spreads = (object: object, marker: unknown): boolean => (marker === undefined ? isArray(object) : !!marker)
  const isObject = (value: unknown): value is object =>
    (typeof value === 'object' || typeof value === 'function') && value !== null
  /** What concat adds for `object` when finding out runs no program code: `undefined` when it could. */
  function quietConcatCount(object: object): number | undefined {
    const found = stableLookup(object, concatSpreadable)
    if (found === undefined) return undefined
    return spreads(object, found.value) ? stableLength(object) : 1
  }
  // Finds a getter along the prototype chain without allocating a descriptor: the check below runs
  // on every concat of plain arrays.
  const lookupGetter = (ObjectPrototype as unknown as { __lookupGetter__: (this: object, key: PropertyKey) => unknown })
    .__lookupGetter__
  const speciesGetterIntact = (): boolean =>
    apply(lookupGetter, ArrayConstructor, [speciesSymbol]) === nativeSpeciesGetter
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
    apply(lookupGetter, ArrayPrototype, ['constructor']) === undefined &&
    ArrayPrototype.constructor === ArrayConstructor &&
    speciesGetterIntact()
  /**
   * The common case, where no program code can run: genuine arrays and primitives, with no
   * spreadability marker on the arrays or their prototypes. `undefined` for anything else.
   */
  function plainArraysCount(items: readonly unknown[]): number | undefined {
    if (
      hasOwn(ArrayPrototype, concatSpreadable) ||
      hasOwn(ObjectPrototype, concatSpreadable) ||
      getPrototypeOf(ArrayPrototype) !== ObjectPrototype
    )
      return undefined
    let count = 0
    for (let index = 0; index < items.length; index++) {
      const item = items[index]
      if (!isObject(item)) {
        count++
        continue
      }
      if (
        !isArray(item) ||
        !notProxy(item) ||
        getPrototypeOf(item) !== ArrayPrototype ||
        hasOwn(item, concatSpreadable)
      )
        return undefined
      count += (item as unknown[]).length
    }
    return count
  }
  /** What the native concat would walk and create, when counting it runs no program code. */
  function quietCount(items: readonly unknown[]): number | undefined {
    // A plain count means the receiver is a genuine array whose prototype is Array.prototype.
    const plain = plainArraysCount(items)
    if (plain !== undefined)
      return !hasOwn(items[0] as object, 'constructor') && plainArraySpeciesQuiet() ? plain : undefined
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
        if (next + length > maxSafeLength)
          throw new TypeErrorConstructor(
            `Array.prototype.concat would make a length of ${next + length}, past 2^53 - 1`,
          )
        for (let at = 0; at < length; at++, next++) {
          if (reflectHas(item, at)) createDataProperty(result, next, reflectGet(item, at))
        }
      } else {
        if (next >= maxSafeLength)
          throw new TypeErrorConstructor('Array.prototype.concat would make a length past 2^53 - 1')
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
  defineProperty(ArrayPrototype, 'concat', {
    value: concatMethods.concat,
    writable: true,
    configurable: true,
    enumerable: false,
  })
}
