/**
 * The built-ins every in-context script of the runtime works with, captured ONCE per program
 * context, after the guards that replace intrinsics (so the guarded ones are captured) and before
 * any program code runs. Each in-context script (the web globals' families) receives this record
 * as an argument instead of capturing its own copies (the bootstrap and the web globals' families;
 * the stack-trace filter and the built-in guards run before it, by design: the filter must see
 * every stack, and the guards replace intrinsics that must be captured guarded).
 *
 * {@link capturePrimordials} is evaluated from its source text inside the context, like every
 * in-context script: it names only ECMAScript globals and defines its helpers inside its body.
 *
 * What the record guarantees to the scripts that use it, since the program runs after it and may
 * replace any global or prototype member:
 * - methods come uncurried (`uncurryThis`): a plain function taking its receiver first, immune to
 *   later edits of `Function.prototype.call`/`bind`, and never looked up on a value at call time;
 * - getters of built-in prototypes come the same way (`uncurryGetter`), so `.length` or
 *   `.byteLength` of a program's value never runs a getter the program planted;
 * - the record itself has a null prototype and is frozen: nothing the program does reaches it,
 *   and it is never exposed to the program;
 * - the descriptor and list helpers build null-prototype records, so a `get`, `value` or index
 *   setter planted on `Object.prototype`/`Array.prototype` never changes their meaning.
 */

/** The record {@link capturePrimordials} returns: what every in-context script is given. */
export interface Primordials {
  readonly contextGlobal: typeof globalThis
  readonly ObjectConstructor: ObjectConstructor
  readonly ObjectPrototype: object
  readonly ArrayPrototype: object
  readonly create: typeof Object.create
  readonly defineProperty: typeof Object.defineProperty
  readonly freeze: typeof Object.freeze
  readonly getOwnPropertyDescriptor: typeof Object.getOwnPropertyDescriptor
  readonly getPrototypeOf: typeof Object.getPrototypeOf
  readonly setPrototypeOf: typeof Object.setPrototypeOf
  readonly hasOwn: typeof Object.hasOwn
  readonly objectKeys: typeof Object.keys
  readonly apply: typeof Reflect.apply
  readonly ownKeys: typeof Reflect.ownKeys
  readonly deleteProperty: typeof Reflect.deleteProperty
  readonly uncurryThis: <Self, Args extends unknown[], Result>(
    method: (this: Self, ...args: Args) => Result,
  ) => (self: Self, ...args: Args) => Result
  readonly uncurryGetter: <Value>(prototype: object, key: PropertyKey) => (self: unknown) => Value
  readonly optionalGetter: <Value>(prototype: object, key: PropertyKey) => ((self: unknown) => Value) | undefined
  readonly newList: <Item>() => Item[]
  readonly push: <Item>(list: Item[], item: Item) => void
  readonly dataDescriptor: (value: unknown, enumerable: boolean) => PropertyDescriptor
  readonly defineData: (target: object, key: PropertyKey, value: unknown, enumerable: boolean) => void
  readonly frozenRecord: <Record extends object>(record: Record) => Readonly<Record>
  readonly setEnumerable: (prototype: object, names: string) => void
  readonly setToStringTag: (target: object, tag: string) => void
  readonly ErrorConstructor: ErrorConstructor
  readonly EvalErrorConstructor: EvalErrorConstructor
  readonly RangeErrorConstructor: RangeErrorConstructor
  readonly ReferenceErrorConstructor: ReferenceErrorConstructor
  readonly SyntaxErrorConstructor: SyntaxErrorConstructor
  readonly TypeErrorConstructor: TypeErrorConstructor
  readonly URIErrorConstructor: URIErrorConstructor
  readonly ObjectPrototypeToString: typeof Object.prototype.toString
  readonly objectToString: (self: unknown) => string
  readonly isArray: typeof Array.isArray
  readonly arraySort: (self: unknown[], compare: (a: unknown, b: unknown) => number) => unknown[]
  readonly arrayJoin: (self: unknown[], separator: string) => string
  readonly functionToString: (self: unknown) => string
  readonly charCodeAt: (self: string, index: number) => number
  readonly stringSlice: (self: string, start?: number, end?: number) => string
  readonly stringIndexOf: (self: string, search: string, position?: number) => number
  readonly stringIncludes: (self: string, search: string) => boolean
  readonly stringSplit: (self: string, separator: string) => string[]
  readonly StringConstructor: StringConstructor
  readonly NumberConstructor: NumberConstructor
  readonly mathTrunc: (value: number) => number
  readonly fromCharCode: typeof String.fromCharCode
  readonly SymbolPrototype: object
  readonly symbolToString: (self: unknown) => string
  readonly symbolValueOf: (self: unknown) => symbol
  readonly symbolIterator: typeof Symbol.iterator
  readonly symbolToStringTag: typeof Symbol.toStringTag
  readonly jsonParse: typeof JSON.parse
  readonly MapConstructor: MapConstructor
  readonly mapGet: (self: Map<unknown, unknown>, key: unknown) => unknown
  readonly mapSet: (self: Map<unknown, unknown>, key: unknown, value: unknown) => unknown
  readonly mapHas: (self: Map<unknown, unknown>, key: unknown) => boolean
  readonly mapDelete: (self: Map<unknown, unknown>, key: unknown) => boolean
  readonly mapForEach: (self: unknown, callback: (value: unknown, key: unknown) => void) => void
  readonly mapSize: (self: unknown) => number
  readonly SetConstructor: SetConstructor
  readonly setAdd: (self: Set<unknown>, value: unknown) => unknown
  readonly setHas: (self: unknown, value: unknown) => boolean
  readonly setForEach: (self: unknown, callback: (value: unknown) => void) => void
  readonly setSize: (self: unknown) => number
  readonly WeakMapPrototype: object
  readonly weakMapHas: (self: unknown, key: object) => boolean
  readonly WeakSetPrototype: object
  readonly weakSetHas: (self: unknown, key: object) => boolean
  readonly WeakRefPrototype: object | undefined
  readonly weakRefDeref: ((self: unknown) => unknown) | undefined
  readonly FinalizationRegistryPrototype: object | undefined
  readonly finalizationRegistryUnregister: ((self: unknown, token: object) => boolean) | undefined
  readonly BooleanPrototype: object
  readonly booleanValueOf: (self: unknown) => boolean
  readonly NumberPrototype: object
  readonly numberValueOf: (self: unknown) => number
  readonly StringPrototype: object
  readonly stringValueOf: (self: unknown) => string
  readonly BigIntPrototype: object
  readonly bigintValueOf: (self: unknown) => bigint
  readonly DateConstructor: DateConstructor
  readonly dateGetTime: (self: unknown) => number
  readonly RegExpConstructor: RegExpConstructor
  readonly regExpSource: (self: unknown) => string
  readonly PromisePrototype: object
  readonly PromiseConstructor: PromiseConstructor
  readonly promiseThen: (
    self: Promise<unknown>,
    onFulfilled?: (value: unknown) => unknown,
    onRejected?: (reason: unknown) => unknown,
  ) => Promise<unknown>
  readonly IntlNamespace: typeof Intl | undefined
  readonly ArrayBufferConstructor: ArrayBufferConstructor
  readonly arrayBufferByteLength: (self: unknown) => number
  readonly arrayBufferResizable: ((self: unknown) => boolean) | undefined
  readonly arrayBufferMaxByteLength: ((self: unknown) => number) | undefined
  readonly SharedArrayBufferPrototype: object | undefined
  readonly sharedArrayBufferByteLength: ((self: unknown) => number) | undefined
  readonly isView: typeof ArrayBuffer.isView
  readonly Uint8ArrayConstructor: Uint8ArrayConstructor
  readonly Int8ArrayConstructor: Int8ArrayConstructor
  readonly typedArrayConstructors: Readonly<
    Record<string, new (buffer: ArrayBuffer, byteOffset?: number, length?: number) => ArrayBufferView>
  >
  readonly typedArrayTag: (self: unknown) => string | undefined
  readonly typedArrayBuffer: (self: unknown) => ArrayBuffer
  readonly typedArrayByteOffset: (self: unknown) => number
  readonly typedArrayByteLength: (self: unknown) => number
  readonly typedArrayLength: (self: unknown) => number
  readonly typedArraySet: (self: unknown, source: ArrayLike<number>, offset?: number) => void
  readonly DataViewConstructor: DataViewConstructor
  readonly dataViewBuffer: (self: unknown) => ArrayBuffer
  readonly dataViewByteOffset: (self: unknown) => number
  readonly dataViewByteLength: (self: unknown) => number
  readonly IteratorPrototype: object
  readonly AsyncIteratorPrototype: object
}

export function capturePrimordials(): Primordials {
  'use strict'
  const ObjectConstructor = Object
  const { create, defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, hasOwn } = Object
  const { apply, ownKeys, deleteProperty } = Reflect
  const functionBind = Function.prototype.bind
  const functionCall = Function.prototype.call
  /** `method` as a plain function taking its receiver first; immune to later edits of `call`/`bind`. */
  function uncurryThis<Self, Args extends unknown[], Result>(
    method: (this: Self, ...args: Args) => Result,
  ): (self: Self, ...args: Args) => Result {
    return apply(functionBind, functionCall, [method]) as (self: Self, ...args: Args) => Result
  }
  function uncurryGetter<Value>(prototype: object, key: PropertyKey): (self: unknown) => Value {
    const get = getOwnPropertyDescriptor(prototype, key)?.get
    return uncurryThis(get as (this: unknown) => Value)
  }
  /** Like {@link uncurryGetter}, for a getter this engine version may lack. */
  function optionalGetter<Value>(prototype: object, key: PropertyKey): ((self: unknown) => Value) | undefined {
    const get = getOwnPropertyDescriptor(prototype, key)?.get
    return get === undefined ? undefined : uncurryThis(get as (this: unknown) => Value)
  }
  /** A list with a null prototype: index writes can never reach a setter the program planted. */
  function newList<Item>(): Item[] {
    return setPrototypeOf([], null) as Item[]
  }
  function push<Item>(list: Item[], item: Item): void {
    list[list.length] = item
  }
  /** A descriptor with a null prototype, so a planted `Object.prototype.get` cannot change its meaning. */
  function dataDescriptor(value: unknown, enumerable: boolean): PropertyDescriptor {
    const descriptor = create(null) as PropertyDescriptor
    descriptor.value = value
    descriptor.writable = true
    descriptor.enumerable = enumerable
    descriptor.configurable = true
    return descriptor
  }
  function defineData(target: object, key: PropertyKey, value: unknown, enumerable: boolean): void {
    defineProperty(target, key, dataDescriptor(value, enumerable))
  }
  /** `record` with a null prototype, frozen: how in-context scripts hand their members to each other. */
  function frozenRecord<Record extends object>(record: Record): Readonly<Record> {
    setPrototypeOf(record, null)
    return freeze(record)
  }
  const stringSlice = uncurryThis(String.prototype.slice as (this: string, start?: number, end?: number) => string)
  const stringIndexOf = uncurryThis(
    String.prototype.indexOf as (this: string, search: string, position?: number) => number,
  )
  /** Makes the space-separated `names` of `prototype` enumerable, as Node shows its web classes' members. */
  function setEnumerable(prototype: object, names: string): void {
    let start = 0
    while (start < names.length) {
      let end = stringIndexOf(names, ' ', start)
      if (end === -1) end = names.length
      const name = stringSlice(names, start, end)
      const descriptor = getOwnPropertyDescriptor(prototype, name)
      if (descriptor !== undefined) {
        setPrototypeOf(descriptor, null)
        descriptor.enumerable = true
        defineProperty(prototype, name, descriptor)
      }
      start = end + 1
    }
  }
  const symbolToStringTag: typeof Symbol.toStringTag = Symbol.toStringTag
  const symbolIterator: typeof Symbol.iterator = Symbol.iterator
  /** Sets the `[Symbol.toStringTag]` a web class shows (`Object.prototype.toString` → `[object URL]`). */
  function setToStringTag(target: object, tag: string): void {
    defineProperty(target, symbolToStringTag, dataDescriptor(tag, false))
  }
  /** The typed array constructors by name. */
  type TypedArrayConstructor = new (buffer: ArrayBuffer, byteOffset?: number, length?: number) => ArrayBufferView
  const typedArrayConstructors = create(null) as Record<string, TypedArrayConstructor>
  typedArrayConstructors.Int8Array = Int8Array
  typedArrayConstructors.Uint8Array = Uint8Array
  typedArrayConstructors.Uint8ClampedArray = Uint8ClampedArray
  typedArrayConstructors.Int16Array = Int16Array
  typedArrayConstructors.Uint16Array = Uint16Array
  typedArrayConstructors.Int32Array = Int32Array
  typedArrayConstructors.Uint32Array = Uint32Array
  typedArrayConstructors.Float32Array = Float32Array
  typedArrayConstructors.Float64Array = Float64Array
  typedArrayConstructors.BigInt64Array = BigInt64Array
  typedArrayConstructors.BigUint64Array = BigUint64Array
  freeze(typedArrayConstructors)
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object
  const SharedArrayBufferConstructor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : undefined
  const WeakRefConstructor = typeof WeakRef === 'function' ? WeakRef : undefined
  const FinalizationRegistryConstructor = typeof FinalizationRegistry === 'function' ? FinalizationRegistry : undefined

  // Filled one by one on a null-prototype object: an object literal this large is ~5x slower to
  // build in a fresh context (each context builds its literal's shape anew), and this runs per run.
  const primordials = create(null) as { -readonly [Key in keyof Primordials]: Primordials[Key] }
  primordials.contextGlobal = globalThis
  // Objects and reflection
  primordials.ObjectConstructor = ObjectConstructor
  primordials.ObjectPrototype = Object.prototype
  primordials.ArrayPrototype = Array.prototype
  primordials.create = create
  primordials.defineProperty = defineProperty
  primordials.freeze = freeze
  primordials.getOwnPropertyDescriptor = getOwnPropertyDescriptor
  primordials.getPrototypeOf = getPrototypeOf
  primordials.setPrototypeOf = setPrototypeOf
  primordials.hasOwn = hasOwn
  primordials.objectKeys = Object.keys
  primordials.apply = apply
  primordials.ownKeys = ownKeys
  primordials.deleteProperty = deleteProperty
  primordials.uncurryThis = uncurryThis
  primordials.uncurryGetter = uncurryGetter
  primordials.optionalGetter = optionalGetter
  // Helpers that never meet a planted setter
  primordials.newList = newList
  primordials.push = push
  primordials.dataDescriptor = dataDescriptor
  primordials.defineData = defineData
  primordials.frozenRecord = frozenRecord
  primordials.setEnumerable = setEnumerable
  primordials.setToStringTag = setToStringTag
  // Errors
  primordials.ErrorConstructor = Error
  primordials.EvalErrorConstructor = EvalError
  primordials.RangeErrorConstructor = RangeError
  primordials.ReferenceErrorConstructor = ReferenceError
  primordials.SyntaxErrorConstructor = SyntaxError
  primordials.TypeErrorConstructor = TypeError
  primordials.URIErrorConstructor = URIError
  // Functions, strings, symbols, JSON
  primordials.ObjectPrototypeToString = Object.prototype.toString
  primordials.objectToString = uncurryThis(Object.prototype.toString as (this: unknown) => string)
  primordials.isArray = Array.isArray
  primordials.arraySort = uncurryThis(
    Array.prototype.sort as (this: unknown[], compare: (a: unknown, b: unknown) => number) => unknown[],
  )
  primordials.arrayJoin = uncurryThis(Array.prototype.join as (this: unknown[], separator: string) => string)
  primordials.functionToString = uncurryThis(Function.prototype.toString as (this: unknown) => string)
  primordials.charCodeAt = uncurryThis(String.prototype.charCodeAt as (this: string, index: number) => number)
  primordials.stringSlice = stringSlice
  primordials.stringIndexOf = stringIndexOf
  primordials.stringIncludes = uncurryThis(String.prototype.includes as (this: string, search: string) => boolean)
  primordials.stringSplit = uncurryThis(String.prototype.split as (this: string, separator: string) => string[])
  primordials.StringConstructor = String
  primordials.NumberConstructor = Number
  primordials.mathTrunc = Math.trunc
  primordials.fromCharCode = String.fromCharCode
  primordials.SymbolPrototype = Symbol.prototype
  primordials.symbolToString = uncurryThis(Symbol.prototype.toString as (this: unknown) => string)
  primordials.symbolValueOf = uncurryThis(Symbol.prototype.valueOf as (this: unknown) => symbol)
  primordials.symbolIterator = symbolIterator
  primordials.symbolToStringTag = symbolToStringTag
  primordials.jsonParse = JSON.parse
  // Collections
  primordials.MapConstructor = Map
  primordials.mapGet = uncurryThis(Map.prototype.get as (this: Map<unknown, unknown>, key: unknown) => unknown)
  primordials.mapSet = uncurryThis(
    Map.prototype.set as (this: Map<unknown, unknown>, key: unknown, value: unknown) => unknown,
  )
  primordials.mapHas = uncurryThis(Map.prototype.has as (this: Map<unknown, unknown>, key: unknown) => boolean)
  primordials.mapDelete = uncurryThis(Map.prototype.delete as (this: Map<unknown, unknown>, key: unknown) => boolean)
  primordials.mapForEach = uncurryThis(
    Map.prototype.forEach as (this: unknown, callback: (value: unknown, key: unknown) => void) => void,
  )
  primordials.mapSize = uncurryGetter<number>(Map.prototype, 'size')
  primordials.SetConstructor = Set
  primordials.setAdd = uncurryThis(Set.prototype.add as (this: Set<unknown>, value: unknown) => unknown)
  primordials.setHas = uncurryThis(Set.prototype.has as (this: unknown, value: unknown) => boolean)
  primordials.setForEach = uncurryThis(
    Set.prototype.forEach as (this: unknown, callback: (value: unknown) => void) => void,
  )
  primordials.setSize = uncurryGetter<number>(Set.prototype, 'size')
  primordials.WeakMapPrototype = WeakMap.prototype
  primordials.weakMapHas = uncurryThis(WeakMap.prototype.has as (this: unknown, key: object) => boolean)
  primordials.WeakSetPrototype = WeakSet.prototype
  primordials.weakSetHas = uncurryThis(WeakSet.prototype.has as (this: unknown, key: object) => boolean)
  primordials.WeakRefPrototype = WeakRefConstructor?.prototype as object | undefined
  primordials.weakRefDeref =
    WeakRefConstructor === undefined
      ? undefined
      : uncurryThis(WeakRefConstructor.prototype.deref as (this: unknown) => unknown)
  primordials.FinalizationRegistryPrototype = FinalizationRegistryConstructor?.prototype as object | undefined
  primordials.finalizationRegistryUnregister =
    FinalizationRegistryConstructor === undefined
      ? undefined
      : uncurryThis(FinalizationRegistryConstructor.prototype.unregister as (this: unknown, token: object) => boolean)
  // Boxed primitives, dates, regular expressions, promises
  primordials.BooleanPrototype = Boolean.prototype
  primordials.booleanValueOf = uncurryThis(Boolean.prototype.valueOf as (this: unknown) => boolean)
  primordials.NumberPrototype = Number.prototype
  primordials.numberValueOf = uncurryThis(Number.prototype.valueOf as (this: unknown) => number)
  primordials.StringPrototype = String.prototype
  primordials.stringValueOf = uncurryThis(String.prototype.valueOf as (this: unknown) => string)
  primordials.BigIntPrototype = BigInt.prototype
  primordials.bigintValueOf = uncurryThis(BigInt.prototype.valueOf as (this: unknown) => bigint)
  primordials.DateConstructor = Date
  primordials.dateGetTime = uncurryThis(Date.prototype.getTime as (this: unknown) => number)
  primordials.RegExpConstructor = RegExp
  primordials.regExpSource = uncurryGetter<string>(RegExp.prototype, 'source')
  primordials.PromisePrototype = Promise.prototype
  primordials.PromiseConstructor = Promise
  primordials.promiseThen = uncurryThis(
    Promise.prototype.then as (
      this: Promise<unknown>,
      onFulfilled?: (value: unknown) => unknown,
      onRejected?: (reason: unknown) => unknown,
    ) => Promise<unknown>,
  )
  primordials.IntlNamespace = typeof Intl === 'object' && Intl !== null ? Intl : undefined
  // Binary data
  primordials.ArrayBufferConstructor = ArrayBuffer
  primordials.arrayBufferByteLength = uncurryGetter<number>(ArrayBuffer.prototype, 'byteLength')
  primordials.arrayBufferResizable = optionalGetter<boolean>(ArrayBuffer.prototype, 'resizable')
  primordials.arrayBufferMaxByteLength = optionalGetter<number>(ArrayBuffer.prototype, 'maxByteLength')
  primordials.SharedArrayBufferPrototype = SharedArrayBufferConstructor?.prototype as object | undefined
  primordials.sharedArrayBufferByteLength =
    SharedArrayBufferConstructor === undefined
      ? undefined
      : uncurryGetter<number>(SharedArrayBufferConstructor.prototype, 'byteLength')
  primordials.isView = ArrayBuffer.isView
  primordials.Uint8ArrayConstructor = Uint8Array
  primordials.Int8ArrayConstructor = Int8Array
  primordials.typedArrayConstructors = typedArrayConstructors
  primordials.typedArrayTag = uncurryGetter<string | undefined>(TypedArrayPrototype, symbolToStringTag)
  primordials.typedArrayBuffer = uncurryGetter<ArrayBuffer>(TypedArrayPrototype, 'buffer')
  primordials.typedArrayByteOffset = uncurryGetter<number>(TypedArrayPrototype, 'byteOffset')
  primordials.typedArrayByteLength = uncurryGetter<number>(TypedArrayPrototype, 'byteLength')
  primordials.typedArrayLength = uncurryGetter<number>(TypedArrayPrototype, 'length')
  primordials.typedArraySet = uncurryThis(
    (TypedArrayPrototype as { set: (this: unknown, source: ArrayLike<number>, offset?: number) => void }).set,
  )
  primordials.DataViewConstructor = DataView
  primordials.dataViewBuffer = uncurryGetter<ArrayBuffer>(DataView.prototype, 'buffer')
  primordials.dataViewByteOffset = uncurryGetter<number>(DataView.prototype, 'byteOffset')
  primordials.dataViewByteLength = uncurryGetter<number>(DataView.prototype, 'byteLength')
  // Iteration
  primordials.IteratorPrototype = getPrototypeOf(getPrototypeOf([][symbolIterator]())) as object
  // An async generator object inherits %AsyncGeneratorPrototype%, which inherits %AsyncIteratorPrototype%.
  primordials.AsyncIteratorPrototype = getPrototypeOf(getPrototypeOf(async function* () {}.prototype)) as object
  return freeze(primordials)
}
