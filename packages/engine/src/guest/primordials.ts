/**
 * The built-ins every in-context script of the runtime works with, captured ONCE per program
 * context, after the guards that replace intrinsics (so the guarded ones are captured) and before
 * any program code runs. Each in-context script (the web globals' families) receives this record
 * as an argument instead of capturing its own copies.
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

export function capturePrimordials() {
  'use strict'
  const ObjectConstructor = Object
  const { create, defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, hasOwn } = Object
  const { apply, ownKeys, deleteProperty } = Reflect
  const functionBind = Function.prototype.bind
  const functionCall = Function.prototype.call
  /** `method` as a plain function taking its receiver first; immune to later edits of `call`/`bind`. */
  function uncurryThis<Self, Args extends unknown[], Result>(method: (this: Self, ...args: Args) => Result): (self: Self, ...args: Args) => Result {
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
  const stringIndexOf = uncurryThis(String.prototype.indexOf as (this: string, search: string, position?: number) => number)
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

  const primordials = {
    contextGlobal: globalThis,
    // Objects and reflection
    ObjectConstructor,
    ObjectPrototype: Object.prototype,
    ArrayPrototype: Array.prototype,
    create,
    defineProperty,
    freeze,
    getOwnPropertyDescriptor,
    getPrototypeOf,
    setPrototypeOf,
    hasOwn,
    objectKeys: Object.keys,
    apply,
    ownKeys,
    deleteProperty,
    uncurryThis,
    uncurryGetter,
    optionalGetter,
    // Helpers that never meet a planted setter
    newList,
    push,
    dataDescriptor,
    defineData,
    frozenRecord,
    setEnumerable,
    setToStringTag,
    // Errors
    ErrorConstructor: Error,
    EvalErrorConstructor: EvalError,
    RangeErrorConstructor: RangeError,
    ReferenceErrorConstructor: ReferenceError,
    SyntaxErrorConstructor: SyntaxError,
    TypeErrorConstructor: TypeError,
    URIErrorConstructor: URIError,
    // Functions, strings, symbols, JSON
    ObjectPrototypeToString: Object.prototype.toString,
    objectToString: uncurryThis(Object.prototype.toString as (this: unknown) => string),
    isArray: Array.isArray,
    arraySort: uncurryThis(Array.prototype.sort as (this: unknown[], compare: (a: unknown, b: unknown) => number) => unknown[]),
    functionToString: uncurryThis(Function.prototype.toString as (this: unknown) => string),
    charCodeAt: uncurryThis(String.prototype.charCodeAt as (this: string, index: number) => number),
    stringSlice,
    stringIndexOf,
    fromCharCode: String.fromCharCode,
    SymbolPrototype: Symbol.prototype,
    symbolToString: uncurryThis(Symbol.prototype.toString as (this: unknown) => string),
    symbolValueOf: uncurryThis(Symbol.prototype.valueOf as (this: unknown) => symbol),
    symbolIterator,
    symbolToStringTag,
    jsonParse: JSON.parse,
    // Collections
    MapConstructor: Map,
    mapGet: uncurryThis(Map.prototype.get as (this: Map<unknown, unknown>, key: unknown) => unknown),
    mapSet: uncurryThis(Map.prototype.set as (this: Map<unknown, unknown>, key: unknown, value: unknown) => unknown),
    mapHas: uncurryThis(Map.prototype.has as (this: Map<unknown, unknown>, key: unknown) => boolean),
    mapForEach: uncurryThis(Map.prototype.forEach as (this: unknown, callback: (value: unknown, key: unknown) => void) => void),
    mapSize: uncurryGetter<number>(Map.prototype, 'size'),
    SetConstructor: Set,
    setAdd: uncurryThis(Set.prototype.add as (this: Set<unknown>, value: unknown) => unknown),
    setForEach: uncurryThis(Set.prototype.forEach as (this: unknown, callback: (value: unknown) => void) => void),
    setSize: uncurryGetter<number>(Set.prototype, 'size'),
    WeakMapPrototype: WeakMap.prototype,
    weakMapHas: uncurryThis(WeakMap.prototype.has as (this: unknown, key: object) => boolean),
    WeakSetPrototype: WeakSet.prototype,
    weakSetHas: uncurryThis(WeakSet.prototype.has as (this: unknown, key: object) => boolean),
    WeakRefPrototype: WeakRefConstructor?.prototype as object | undefined,
    weakRefDeref: WeakRefConstructor === undefined ? undefined : uncurryThis(WeakRefConstructor.prototype.deref as (this: unknown) => unknown),
    FinalizationRegistryPrototype: FinalizationRegistryConstructor?.prototype as object | undefined,
    finalizationRegistryUnregister: FinalizationRegistryConstructor === undefined
      ? undefined
      : uncurryThis(FinalizationRegistryConstructor.prototype.unregister as (this: unknown, token: object) => boolean),
    // Boxed primitives, dates, regular expressions, promises
    BooleanPrototype: Boolean.prototype,
    booleanValueOf: uncurryThis(Boolean.prototype.valueOf as (this: unknown) => boolean),
    NumberPrototype: Number.prototype,
    numberValueOf: uncurryThis(Number.prototype.valueOf as (this: unknown) => number),
    StringPrototype: String.prototype,
    stringValueOf: uncurryThis(String.prototype.valueOf as (this: unknown) => string),
    BigIntPrototype: BigInt.prototype,
    bigintValueOf: uncurryThis(BigInt.prototype.valueOf as (this: unknown) => bigint),
    DateConstructor: Date,
    dateGetTime: uncurryThis(Date.prototype.getTime as (this: unknown) => number),
    RegExpConstructor: RegExp,
    regExpSource: uncurryGetter<string>(RegExp.prototype, 'source'),
    PromisePrototype: Promise.prototype,
    IntlNamespace: typeof Intl === 'object' && Intl !== null ? Intl : undefined,
    // Binary data
    ArrayBufferConstructor: ArrayBuffer,
    arrayBufferByteLength: uncurryGetter<number>(ArrayBuffer.prototype, 'byteLength'),
    arrayBufferResizable: optionalGetter<boolean>(ArrayBuffer.prototype, 'resizable'),
    arrayBufferMaxByteLength: optionalGetter<number>(ArrayBuffer.prototype, 'maxByteLength'),
    SharedArrayBufferPrototype: SharedArrayBufferConstructor?.prototype as object | undefined,
    sharedArrayBufferByteLength: SharedArrayBufferConstructor === undefined ? undefined : uncurryGetter<number>(SharedArrayBufferConstructor.prototype, 'byteLength'),
    isView: ArrayBuffer.isView,
    Uint8ArrayConstructor: Uint8Array,
    Int8ArrayConstructor: Int8Array,
    typedArrayConstructors,
    typedArrayTag: uncurryGetter<string | undefined>(TypedArrayPrototype, symbolToStringTag),
    typedArrayBuffer: uncurryGetter<ArrayBuffer>(TypedArrayPrototype, 'buffer'),
    typedArrayByteOffset: uncurryGetter<number>(TypedArrayPrototype, 'byteOffset'),
    typedArrayByteLength: uncurryGetter<number>(TypedArrayPrototype, 'byteLength'),
    typedArrayLength: uncurryGetter<number>(TypedArrayPrototype, 'length'),
    typedArraySet: uncurryThis((TypedArrayPrototype as { set: (this: unknown, source: ArrayLike<number>, offset?: number) => void }).set),
    DataViewConstructor: DataView,
    dataViewBuffer: uncurryGetter<ArrayBuffer>(DataView.prototype, 'buffer'),
    dataViewByteOffset: uncurryGetter<number>(DataView.prototype, 'byteOffset'),
    dataViewByteLength: uncurryGetter<number>(DataView.prototype, 'byteLength'),
    // Iteration
    IteratorPrototype: getPrototypeOf(getPrototypeOf([][symbolIterator]())) as object,
    // An async generator object inherits %AsyncGeneratorPrototype%, which inherits %AsyncIteratorPrototype%.
    AsyncIteratorPrototype: getPrototypeOf(getPrototypeOf((async function* () {}).prototype)) as object,
  }
  return frozenRecord(primordials)
}

/** The record {@link capturePrimordials} returns: what every in-context script is given. */
export type Primordials = ReturnType<typeof capturePrimordials>
