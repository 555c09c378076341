/** The iterators a spread collects inside V8 (strings, typed arrays), and `Array.from`. */
import {
  ObjectConstructor,
  defineProperty,
  getPrototypeOf,
  apply,
  reflectGet,
  StringConstructor,
  iteratorSymbol,
  type Native,
} from './intrinsics.js'
import { maxLength, refuse, refuseText } from './sandbox-limits.js'
import { copyOf, toLength } from './spec-operations.js'
import { typedArrayLengthOf, stableLength, pinned, stableLookup } from './stable-reads.js'

export function installIteratorGuards(): void {
  // --- Iterators a spread collects inside V8 ---------------------------------------------------
  // `[...text]`, `f(...text)`, `Math.max(...bytes)` and `Array.from(text[Symbol.iterator]())`
  // gather every value of a string's or typed array's iterator into one array in native code.
  // Nothing of the program runs between two steps, and the array's last growth asks the heap for
  // one block larger than what the worker's heap cap leaves: V8 then aborts the whole process (the
  // worker's near-heap-limit grace is a few MiB), not just the worker. So the iterator of a string
  // or typed array longer than the limit is refused when it is made; a loop over the indexes is
  // an ordinary loop the budgets stop.
  const stringIteratorFix =
    'Loop over its indexes instead (for (let i = 0; i < text.length; i++)), or iterate smaller pieces of it.'
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
  defineProperty(StringPrototype, iteratorSymbol, {
    value: stringIteratorMethods[iteratorSymbol],
    writable: true,
    configurable: true,
    enumerable: false,
  })

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
    defineProperty(TypedArrayPrototype, iteratorSymbol, {
      value: guardedTypedArrayValues,
      writable: true,
      configurable: true,
      enumerable: false,
    })
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
