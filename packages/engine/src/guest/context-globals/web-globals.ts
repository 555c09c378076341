/**
 * The web globals a program expects (`TextEncoder`, `TextDecoder`, `atob`, `btoa`,
 * `structuredClone`, `URL`, `URLSearchParams`, `crypto`), built INSIDE the program's vm context
 * from that context's own intrinsics, so no object of the worker's realm is reachable from them.
 *
 * {@link createWebGlobals} is not called as an import: the guest runtime evaluates its source text
 * (`Function.prototype.toString`) inside the context and calls the result with a
 * {@link WebGlobalsHost}. That is why this module is one long function instead of several small
 * modules: a helper outside the function would not travel with its source text. Its sections
 * follow the list above.
 *
 * Rules the body keeps, because the program runs after it and may replace any global or
 * prototype member:
 * - every intrinsic is captured when the function runs; methods are called only through captured
 *   copies (`uncurryThis`), never looked up on a value at call time;
 * - internal lists, records and property descriptors have a null prototype, and results are filled
 *   with `defineProperty`, so setters planted on `Object.prototype` or `Array.prototype` never run
 *   and never see an internal value;
 * - internal arrays are never iterated with `for...of` or spread, which use the replaceable array
 *   iterator; values of the program are, exactly as Node does;
 * - the host's functions stay in local constants, receive and return primitives only, and every
 *   call sits in a try/catch that throws a fresh error of the context instead of the caught value;
 * - the body is strict, so program code it calls (getters, callbacks, `toString`) cannot reach
 *   its functions through `caller` or `arguments.callee`.
 */

/** Worker-realm services the context cannot build itself. Primitives in, primitives out; never throws. */
export interface WebGlobalsHost {
  /** `length` (0..65536) cryptographically random bytes as a lowercase hex string. */
  randomBytesHex(length: number): string
  /** A random version 4 UUID, lowercase. */
  randomUUID(): string
  /**
   * Parses with WHATWG URL; returns JSON of { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash },
   * or of { refused } (why the sandbox will not parse it: too long a host or input), or undefined when invalid.
   */
  parseUrl(input: string, base: string | undefined): string | undefined
}

/** The result of `TextEncoder.prototype.encodeInto`. */
export interface WebEncodeIntoResult {
  read: number
  written: number
}

export interface WebTextEncoder {
  readonly encoding: string
  encode(input?: string): Uint8Array
  encodeInto(source: string, destination: Uint8Array): WebEncodeIntoResult
}

export type WebBufferSource = ArrayBuffer | SharedArrayBuffer | ArrayBufferView

export interface WebTextDecoder {
  readonly encoding: string
  readonly fatal: boolean
  readonly ignoreBOM: boolean
  decode(input?: WebBufferSource, options?: { stream?: boolean }): string
}

export type WebURLSearchParamsInit = string | Iterable<Iterable<string>> | Readonly<Record<string, string>>

export interface WebURLSearchParams {
  readonly size: number
  append(name: string, value: string): void
  delete(name: string, value?: string): void
  get(name: string): string | null
  getAll(name: string): string[]
  has(name: string, value?: string): boolean
  set(name: string, value: string): void
  sort(): void
  toString(): string
  forEach(callback: (value: string, name: string, parent: WebURLSearchParams) => void, thisArg?: unknown): void
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  entries(): IterableIterator<[string, string]>
  [Symbol.iterator](): IterableIterator<[string, string]>
}

export interface WebURL {
  href: string
  readonly origin: string
  protocol: string
  username: string
  password: string
  host: string
  hostname: string
  port: string
  pathname: string
  search: string
  readonly searchParams: WebURLSearchParams
  hash: string
  toString(): string
  toJSON(): string
}

export interface WebURLConstructor {
  new (input: string, base?: string): WebURL
  canParse(input: string, base?: string): boolean
  parse(input: string, base?: string): WebURL | null
}

export interface WebCrypto {
  getRandomValues<T extends ArrayBufferView>(array: T): T
  randomUUID(): string
}

export interface WebGlobals {
  TextEncoder: new () => WebTextEncoder
  TextDecoder: new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }) => WebTextDecoder
  atob: (data: string) => string
  btoa: (data: string) => string
  structuredClone: <T>(value: T, options?: { transfer?: readonly unknown[] }) => T
  URL: WebURLConstructor
  URLSearchParams: new (init?: WebURLSearchParamsInit) => WebURLSearchParams
  crypto: WebCrypto
}

/** The URL components the host reports; every field is a string. */
interface UrlRecord {
  href: string
  origin: string
  protocol: string
  username: string
  password: string
  host: string
  hostname: string
  port: string
  pathname: string
  search: string
  hash: string
}

/** An `href` cut at its path, query and fragment, for setters that rebuild it. */
interface HrefParts {
  /** Scheme, `:` and the authority (or `/.` for a host-less path starting with `//`). */
  beforePath: string
  path: string
  /** `?` and the query, or `''` when the query is null. */
  query: string
  /** `#` and the fragment, or `''` when the fragment is null. */
  fragment: string
  hasAuthority: boolean
  hasOpaquePath: boolean
}

/** The WHATWG UTF-8 decoder's state, kept between streaming `decode` calls. */
interface Utf8DecoderState {
  needed: number
  seen: number
  codePoint: number
  lower: number
  upper: number
}

/** A string assembled from UTF-16 code units in chunks (one `fromCharCode` call per chunk). */
interface CodeUnitBuilder {
  units: number[]
  text: string
}

type CloneKind =
  | 'object' | 'array' | 'date' | 'regexp' | 'map' | 'set' | 'array-buffer' | 'typed-array' | 'data-view'
  | 'boolean' | 'number' | 'string' | 'bigint' | 'error' | 'symbol' | 'shared-array-buffer'
  | 'weak-map' | 'weak-set' | 'weak-ref' | 'finalization-registry' | 'refused'

/** One object being filled by `structuredClone`: the children still to copy. */
interface CloneFrame {
  kind: 'properties' | 'map' | 'set' | 'error-cause'
  source: object
  target: object
  /** Property keys, flat map entries (key, value, ...), set values, or the one cause. */
  items: unknown[]
  index: number
  pendingKey: unknown
  /** The target is an array (its writes can also meet Array.prototype). */
  isArrayTarget: boolean
}

export function createWebGlobals(host: WebGlobalsHost): WebGlobals {
  'use strict'
  // Host services: local constants only, called directly, never stored on or passed to anything.
  const { randomBytesHex, randomUUID: hostRandomUUID, parseUrl } = host

  // --- Intrinsics, captured before the program can touch them ----------------------------------
  const contextGlobal = globalThis
  const ObjectConstructor = Object
  const ObjectPrototype = Object.prototype
  const ArrayPrototype = Array.prototype
  const { create, defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, hasOwn } = Object
  const objectKeys = Object.keys
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
  function optionalGetter<Value>(prototype: object, key: PropertyKey): ((self: unknown) => Value) | undefined {
    const get = getOwnPropertyDescriptor(prototype, key)?.get
    return get === undefined ? undefined : uncurryThis(get as (this: unknown) => Value)
  }
  const ErrorConstructor = Error
  const TypeErrorConstructor = TypeError
  const RangeErrorConstructor = RangeError
  const errorConstructorsByName = create(null) as Record<string, ErrorConstructor>
  errorConstructorsByName.EvalError = EvalError
  errorConstructorsByName.RangeError = RangeError
  errorConstructorsByName.ReferenceError = ReferenceError
  errorConstructorsByName.SyntaxError = SyntaxError
  errorConstructorsByName.TypeError = TypeError
  errorConstructorsByName.URIError = URIError
  const ObjectPrototypeToString = Object.prototype.toString
  const objectToString = uncurryThis(ObjectPrototypeToString as (this: unknown) => string)
  const isArray = Array.isArray
  const arraySort = uncurryThis(Array.prototype.sort as (this: unknown[], compare: (a: unknown, b: unknown) => number) => unknown[])
  const functionToString = uncurryThis(Function.prototype.toString as (this: unknown) => string)
  const charCodeAt = uncurryThis(String.prototype.charCodeAt as (this: string, index: number) => number)
  const stringSlice = uncurryThis(String.prototype.slice as (this: string, start?: number, end?: number) => string)
  const stringIndexOf = uncurryThis(String.prototype.indexOf as (this: string, search: string, position?: number) => number)
  const fromCharCode = String.fromCharCode
  const symbolToString = uncurryThis(Symbol.prototype.toString as (this: unknown) => string)
  const symbolIterator: typeof Symbol.iterator = Symbol.iterator
  const symbolToStringTag: typeof Symbol.toStringTag = Symbol.toStringTag
  const jsonParse = JSON.parse
  const MapConstructor = Map
  const mapGet = uncurryThis(Map.prototype.get as (this: Map<unknown, unknown>, key: unknown) => unknown)
  const mapSet = uncurryThis(Map.prototype.set as (this: Map<unknown, unknown>, key: unknown, value: unknown) => unknown)
  const mapHas = uncurryThis(Map.prototype.has as (this: Map<unknown, unknown>, key: unknown) => boolean)
  const mapForEach = uncurryThis(Map.prototype.forEach as (this: unknown, callback: (value: unknown, key: unknown) => void) => void)
  const mapSize = uncurryGetter<number>(Map.prototype, 'size')
  const SetConstructor = Set
  const setAdd = uncurryThis(Set.prototype.add as (this: Set<unknown>, value: unknown) => unknown)
  const setForEach = uncurryThis(Set.prototype.forEach as (this: unknown, callback: (value: unknown) => void) => void)
  const setSize = uncurryGetter<number>(Set.prototype, 'size')
  const weakMapHas = uncurryThis(WeakMap.prototype.has as (this: unknown, key: object) => boolean)
  const weakSetHas = uncurryThis(WeakSet.prototype.has as (this: unknown, key: object) => boolean)
  const weakRefDeref = typeof WeakRef === 'function' ? uncurryThis(WeakRef.prototype.deref as (this: unknown) => unknown) : undefined
  const finalizationRegistryUnregister = typeof FinalizationRegistry === 'function'
    ? uncurryThis(FinalizationRegistry.prototype.unregister as (this: unknown, token: object) => boolean)
    : undefined
  /** A key no program can hold, for side-effect-free brand checks of weak collections. */
  const probeToken = freeze(create(null) as object)
  const DateConstructor = Date
  const dateGetTime = uncurryThis(Date.prototype.getTime as (this: unknown) => number)
  const RegExpConstructor = RegExp
  const regExpSource = uncurryGetter<string>(RegExp.prototype, 'source')
  /** Flag getters in the canonical `flags` order; a flag this engine lacks is skipped. */
  const regExpFlagGetters = setPrototypeOf([], null) as { flag: string; get: (self: unknown) => boolean }[]
  {
    const flagNames = setPrototypeOf(['d', 'hasIndices', 'g', 'global', 'i', 'ignoreCase', 'm', 'multiline', 's', 'dotAll', 'u', 'unicode', 'v', 'unicodeSets', 'y', 'sticky'], null) as string[]
    for (let index = 0; index < flagNames.length; index += 2) {
      const get = optionalGetter<boolean>(RegExp.prototype, flagNames[index + 1] as string)
      if (get !== undefined) regExpFlagGetters[regExpFlagGetters.length] = setPrototypeOf({ flag: flagNames[index] as string, get }, null) as { flag: string; get: (self: unknown) => boolean }
    }
  }
  const booleanValueOf = uncurryThis(Boolean.prototype.valueOf as (this: unknown) => boolean)
  const numberValueOf = uncurryThis(Number.prototype.valueOf as (this: unknown) => number)
  const stringValueOf = uncurryThis(String.prototype.valueOf as (this: unknown) => string)
  const bigintValueOf = uncurryThis(BigInt.prototype.valueOf as (this: unknown) => bigint)
  const symbolValueOf = uncurryThis(Symbol.prototype.valueOf as (this: unknown) => symbol)
  const ArrayBufferConstructor = ArrayBuffer
  const arrayBufferByteLength = uncurryGetter<number>(ArrayBuffer.prototype, 'byteLength')
  const arrayBufferResizable = optionalGetter<boolean>(ArrayBuffer.prototype, 'resizable')
  const arrayBufferMaxByteLength = optionalGetter<number>(ArrayBuffer.prototype, 'maxByteLength')
  const sharedArrayBufferByteLength = typeof SharedArrayBuffer === 'function' ? uncurryGetter<number>(SharedArrayBuffer.prototype, 'byteLength') : undefined
  const isView = ArrayBuffer.isView
  const Uint8ArrayConstructor = Uint8Array
  const Int8ArrayConstructor = Int8Array
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object
  const typedArrayTag = uncurryGetter<string | undefined>(TypedArrayPrototype, symbolToStringTag)
  const typedArrayBuffer = uncurryGetter<ArrayBuffer>(TypedArrayPrototype, 'buffer')
  const typedArrayByteOffset = uncurryGetter<number>(TypedArrayPrototype, 'byteOffset')
  const typedArrayByteLength = uncurryGetter<number>(TypedArrayPrototype, 'byteLength')
  const typedArrayLength = uncurryGetter<number>(TypedArrayPrototype, 'length')
  const typedArraySet = uncurryThis((TypedArrayPrototype as { set: (this: unknown, source: ArrayLike<number>, offset?: number) => void }).set)
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
  /** Typed arrays `crypto.getRandomValues` fills: the integer ones. */
  const integerTypedArrays = create(null) as Record<string, true>
  integerTypedArrays.Int8Array = true
  integerTypedArrays.Uint8Array = true
  integerTypedArrays.Uint8ClampedArray = true
  integerTypedArrays.Int16Array = true
  integerTypedArrays.Uint16Array = true
  integerTypedArrays.Int32Array = true
  integerTypedArrays.Uint32Array = true
  integerTypedArrays.BigInt64Array = true
  integerTypedArrays.BigUint64Array = true
  const DataViewConstructor = DataView
  const dataViewBuffer = uncurryGetter<ArrayBuffer>(DataView.prototype, 'buffer')
  const dataViewByteOffset = uncurryGetter<number>(DataView.prototype, 'byteOffset')
  const dataViewByteLength = uncurryGetter<number>(DataView.prototype, 'byteLength')
  const IteratorPrototype = getPrototypeOf(getPrototypeOf([][symbolIterator]())) as object
  // An async generator object inherits %AsyncGeneratorPrototype%, which inherits %AsyncIteratorPrototype%.
  const AsyncIteratorPrototype = getPrototypeOf(getPrototypeOf((async function* () {}).prototype)) as object

  // --- Small shared tools ------------------------------------------------------------------------
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
  function newBuilder(): CodeUnitBuilder {
    const builder = create(null) as CodeUnitBuilder
    builder.units = newList()
    builder.text = ''
    return builder
  }
  function pushUnit(builder: CodeUnitBuilder, unit: number): void {
    const units = builder.units
    units[units.length] = unit
    if (units.length === 8192) {
      builder.text += apply(fromCharCode, undefined, units)
      units.length = 0
    }
  }
  function pushCodePoint(builder: CodeUnitBuilder, codePoint: number): void {
    if (codePoint < 0x10000) {
      pushUnit(builder, codePoint)
    } else {
      pushUnit(builder, 0xd800 + ((codePoint - 0x10000) >> 10))
      pushUnit(builder, 0xdc00 + ((codePoint - 0x10000) & 0x3ff))
    }
  }
  function finishBuilder(builder: CodeUnitBuilder): string {
    return builder.text + apply(fromCharCode, undefined, builder.units)
  }
  function isLeadSurrogate(unit: number): boolean {
    return unit >= 0xd800 && unit <= 0xdbff
  }
  function isTrailSurrogate(unit: number): boolean {
    return unit >= 0xdc00 && unit <= 0xdfff
  }
  /** The code point at `index` (U+FFFD for a lone surrogate) and how many code units it spans. */
  function codePointAt(text: string, index: number): { codePoint: number; units: number } {
    const unit = charCodeAt(text, index)
    const result = create(null) as { codePoint: number; units: number }
    result.codePoint = unit
    result.units = 1
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = index + 1 < text.length ? charCodeAt(text, index + 1) : 0
      if (isLeadSurrogate(unit) && isTrailSurrogate(next)) {
        result.codePoint = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00)
        result.units = 2
      } else {
        result.codePoint = 0xfffd
      }
    }
    return result
  }
  /** WebIDL USVString conversion: `ToString`, then lone surrogates become U+FFFD. */
  function toUSVString(value: unknown): string {
    const text = `${value as string}`
    for (let index = 0; index < text.length; index++) {
      const unit = charCodeAt(text, index)
      if (unit < 0xd800 || unit > 0xdfff) continue
      if (isLeadSurrogate(unit) && index + 1 < text.length && isTrailSurrogate(charCodeAt(text, index + 1))) {
        index++
        continue
      }
      const builder = newBuilder()
      for (let copy = 0; copy < text.length; copy++) {
        const { codePoint, units } = codePointAt(text, copy)
        pushCodePoint(builder, codePoint)
        copy += units - 1
      }
      return finishBuilder(builder)
    }
    return text
  }
  const HEX_DIGITS = '0123456789ABCDEF'
  function hexDigitValue(unit: number): number {
    if (unit >= 0x30 && unit <= 0x39) return unit - 0x30
    if (unit >= 0x61 && unit <= 0x66) return unit - 0x57
    if (unit >= 0x41 && unit <= 0x46) return unit - 0x37
    return -1
  }

  // --- Errors --------------------------------------------------------------------------------------
  /** An error carrying Node's `code`, so programs written against Node can branch on it. */
  function codedError(Constructor: ErrorConstructor, message: string, code: string): Error {
    const error = new Constructor(message)
    defineData(error, 'code', code, true)
    return error
  }
  function missingArguments(message: string): Error {
    return codedError(TypeErrorConstructor, message, 'ERR_MISSING_ARGS')
  }
  function invalidThis(type: string): Error {
    return codedError(TypeErrorConstructor, `Value of "this" must be of type ${type}`, 'ERR_INVALID_THIS')
  }
  function invalidArgumentType(message: string): Error {
    return codedError(TypeErrorConstructor, message, 'ERR_INVALID_ARG_TYPE')
  }
  /** The name of the nearest `constructor` found without running any getter; `Object` by default. */
  function constructorNameOf(value: object): string {
    let prototype: object | null = value
    for (let depth = 0; prototype !== null && depth < 1000; depth++) {
      const constructorDescriptor = getOwnPropertyDescriptor(prototype, 'constructor')
      const constructor: unknown = constructorDescriptor !== undefined && hasOwn(constructorDescriptor, 'value') ? constructorDescriptor.value : undefined
      if (typeof constructor === 'function') {
        const nameDescriptor = getOwnPropertyDescriptor(constructor, 'name')
        const name: unknown = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : undefined
        if (typeof name === 'string' && name !== '') return name
      }
      prototype = getPrototypeOf(prototype) as object | null
    }
    return 'Object'
  }
  /** The "Received ..." tail of Node's argument errors. */
  function describeReceived(value: unknown): string {
    if (value === null || value === undefined) return `Received ${value === null ? 'null' : 'undefined'}`
    if (typeof value === 'function') {
      const nameDescriptor = getOwnPropertyDescriptor(value, 'name')
      const name: unknown = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : ''
      return `Received function ${typeof name === 'string' && name !== '' ? name : '<anonymous>'}`
    }
    if (typeof value === 'object') return `Received an instance of ${constructorNameOf(value)}`
    if (typeof value === 'symbol') return `Received type symbol (${symbolToString(value)})`
    let shown = typeof value === 'string' ? `'${value}'` : `${value as number}${typeof value === 'bigint' ? 'n' : ''}`
    if (shown.length > 28) shown = `${stringSlice(shown, 0, 25)}...`
    return `Received type ${typeof value} (${shown})`
  }
  const domExceptionCodes = create(null) as Record<string, number>
  domExceptionCodes.InvalidCharacterError = 5
  domExceptionCodes.TypeMismatchError = 17
  domExceptionCodes.QuotaExceededError = 22
  domExceptionCodes.DataCloneError = 25
  /** Node throws DOMExceptions here; this one is an `Error` of the context with the same name and code. */
  class DOMException extends ErrorConstructor {
    constructor(message: string, name: string) {
      super(message)
      defineData(this, 'name', name, false)
      defineData(this, 'code', hasOwn(domExceptionCodes, name) ? domExceptionCodes[name] : 0, false)
    }
  }
  function hostFailure(operation: string): Error {
    return new ErrorConstructor(`${operation} could not be completed in this sandbox.`)
  }

  // --- Host calls: primitives in, primitives out, and never the host's own error ----------------
  function readRandomBytes(length: number): Uint8Array {
    let hex: unknown
    try {
      hex = randomBytesHex(length)
    } catch {
      throw hostFailure('crypto.getRandomValues')
    }
    if (typeof hex !== 'string' || hex.length !== length * 2) throw hostFailure('crypto.getRandomValues')
    const bytes = new Uint8ArrayConstructor(length)
    for (let index = 0; index < length; index++) {
      const high = hexDigitValue(charCodeAt(hex, 2 * index))
      const low = hexDigitValue(charCodeAt(hex, 2 * index + 1))
      if (high < 0 || low < 0) throw hostFailure('crypto.getRandomValues')
      bytes[index] = high * 16 + low
    }
    return bytes
  }
  function readRandomUUID(): string {
    let uuid: unknown
    try {
      uuid = hostRandomUUID()
    } catch {
      throw hostFailure('crypto.randomUUID')
    }
    if (typeof uuid !== 'string' || uuid.length !== 36) throw hostFailure('crypto.randomUUID')
    for (let index = 0; index < 36; index++) {
      const unit = charCodeAt(uuid, index)
      const isDash = index === 8 || index === 13 || index === 18 || index === 23
      if (isDash ? unit !== 0x2d : !((unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x66))) throw hostFailure('crypto.randomUUID')
    }
    return uuid
  }
  const URL_FIELDS = setPrototypeOf(['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'], null) as (keyof UrlRecord)[]
  /** Why the sandbox refused to parse the last input, when it did (read by {@link invalidUrl}). */
  let urlRefusal: string | undefined
  /** Parses through the host; `undefined` means "not a valid URL". */
  function parseWithHost(input: string, base: string | undefined): UrlRecord | undefined {
    urlRefusal = undefined
    let json: unknown
    try {
      json = parseUrl(input, base)
    } catch {
      throw hostFailure('URL parsing')
    }
    if (json === undefined) return undefined
    if (typeof json !== 'string') throw hostFailure('URL parsing')
    let parsed: unknown
    try {
      parsed = jsonParse(json)
    } catch {
      throw hostFailure('URL parsing')
    }
    if (typeof parsed !== 'object' || parsed === null) throw hostFailure('URL parsing')
    if (hasOwn(parsed, 'refused')) {
      // An invalid URL for the program, with the sandbox's reason as the error's message.
      const reason: unknown = (parsed as { refused: unknown }).refused
      urlRefusal = typeof reason === 'string' ? reason : undefined
      return undefined
    }
    const record = create(null) as UrlRecord
    for (let index = 0; index < URL_FIELDS.length; index++) {
      const field = URL_FIELDS[index] as keyof UrlRecord
      const value: unknown = hasOwn(parsed, field) ? (parsed as Record<string, unknown>)[field] : undefined
      if (typeof value !== 'string') throw hostFailure('URL parsing')
      record[field] = value
    }
    return record
  }

  // --- UTF-8 ---------------------------------------------------------------------------------------
  function utf8ByteCount(codePoint: number): number {
    return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4
  }
  function writeCodePoint(bytes: Uint8Array | number[], offset: number, codePoint: number): number {
    if (codePoint < 0x80) {
      bytes[offset] = codePoint
      return offset + 1
    }
    if (codePoint < 0x800) {
      bytes[offset] = 0xc0 | (codePoint >> 6)
      bytes[offset + 1] = 0x80 | (codePoint & 0x3f)
      return offset + 2
    }
    if (codePoint < 0x10000) {
      bytes[offset] = 0xe0 | (codePoint >> 12)
      bytes[offset + 1] = 0x80 | ((codePoint >> 6) & 0x3f)
      bytes[offset + 2] = 0x80 | (codePoint & 0x3f)
      return offset + 3
    }
    bytes[offset] = 0xf0 | (codePoint >> 18)
    bytes[offset + 1] = 0x80 | ((codePoint >> 12) & 0x3f)
    bytes[offset + 2] = 0x80 | ((codePoint >> 6) & 0x3f)
    bytes[offset + 3] = 0x80 | (codePoint & 0x3f)
    return offset + 4
  }
  /** UTF-8 bytes of `text`; lone surrogates become U+FFFD, as the Encoding standard requires. */
  function encodeUtf8(text: string): Uint8Array {
    const length = text.length
    let size = 0
    for (let index = 0; index < length; index++) {
      const unit = charCodeAt(text, index)
      if (unit < 0x80) size += 1
      else if (unit < 0x800) size += 2
      else if (isLeadSurrogate(unit) && index + 1 < length && isTrailSurrogate(charCodeAt(text, index + 1))) {
        size += 4
        index++
      } else size += 3
    }
    const bytes = new Uint8ArrayConstructor(size)
    let offset = 0
    for (let index = 0; index < length; index++) {
      const unit = charCodeAt(text, index)
      if (unit < 0x80) {
        bytes[offset++] = unit
        continue
      }
      const { codePoint, units } = codePointAt(text, index)
      offset = writeCodePoint(bytes, offset, codePoint)
      index += units - 1
    }
    return bytes
  }
  function newDecoderState(): Utf8DecoderState {
    const state = create(null) as Utf8DecoderState
    resetDecoderState(state)
    return state
  }
  function resetDecoderState(state: Utf8DecoderState): void {
    state.needed = 0
    state.seen = 0
    state.codePoint = 0
    state.lower = 0x80
    state.upper = 0xbf
  }
  /**
   * The WHATWG UTF-8 decoder over `bytes[0..length)`. Invalid sequences become U+FFFD, or, when
   * `fatal`, the result is `undefined`. `flush` ends the stream: an unfinished sequence is an error.
   */
  function decodeUtf8(state: Utf8DecoderState, bytes: ArrayLike<number>, length: number, flush: boolean, fatal: boolean): string | undefined {
    const builder = newBuilder()
    for (let index = 0; index < length; index++) {
      const byte = bytes[index] as number
      if (state.needed === 0) {
        if (byte < 0x80) {
          pushUnit(builder, byte)
        } else if (byte >= 0xc2 && byte <= 0xdf) {
          state.needed = 1
          state.codePoint = byte & 0x1f
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) state.lower = 0xa0
          if (byte === 0xed) state.upper = 0x9f
          state.needed = 2
          state.codePoint = byte & 0xf
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) state.lower = 0x90
          if (byte === 0xf4) state.upper = 0x8f
          state.needed = 3
          state.codePoint = byte & 0x7
        } else {
          if (fatal) return undefined
          pushUnit(builder, 0xfffd)
        }
        continue
      }
      if (byte < state.lower || byte > state.upper) {
        // The byte is not a valid continuation: the sequence so far is one error, and the byte is
        // read again as the start of whatever comes next.
        resetDecoderState(state)
        if (fatal) return undefined
        pushUnit(builder, 0xfffd)
        index--
        continue
      }
      state.lower = 0x80
      state.upper = 0xbf
      state.codePoint = (state.codePoint << 6) | (byte & 0x3f)
      state.seen++
      if (state.seen !== state.needed) continue
      pushCodePoint(builder, state.codePoint)
      resetDecoderState(state)
    }
    if (flush && state.needed !== 0) {
      resetDecoderState(state)
      if (fatal) return undefined
      pushUnit(builder, 0xfffd)
    }
    return finishBuilder(builder)
  }
  /** A byte view of a BufferSource, or `undefined` when `input` is not one. */
  function bytesOf(input: unknown): Uint8Array | undefined {
    if (typeof input !== 'object' || input === null) return undefined
    if (isView(input)) {
      if (typedArrayTag(input) !== undefined) {
        return new Uint8ArrayConstructor(typedArrayBuffer(input), typedArrayByteOffset(input), typedArrayByteLength(input))
      }
      return new Uint8ArrayConstructor(dataViewBuffer(input), dataViewByteOffset(input), dataViewByteLength(input))
    }
    try {
      return new Uint8ArrayConstructor(input as ArrayBuffer, 0, arrayBufferByteLength(input))
    } catch {
      // Not an ArrayBuffer; maybe a SharedArrayBuffer.
    }
    if (sharedArrayBufferByteLength === undefined) return undefined
    try {
      return new Uint8ArrayConstructor(input as ArrayBuffer, 0, sharedArrayBufferByteLength(input))
    } catch {
      return undefined
    }
  }

  // --- TextEncoder -----------------------------------------------------------------------------------
  class TextEncoder {
    #isTextEncoder = true
    get encoding(): string {
      TextEncoder.#check(this)
      return 'utf-8'
    }
    encode(input: unknown = ''): Uint8Array {
      TextEncoder.#check(this)
      return encodeUtf8(`${input as string}`)
    }
    encodeInto(source: unknown, destination: unknown): WebEncodeIntoResult {
      TextEncoder.#check(this)
      if (typeof source !== 'string') throw invalidArgumentType(`The "src" argument must be of type string. ${describeReceived(source)}`)
      if (typedArrayTag(destination) !== 'Uint8Array') {
        throw invalidArgumentType(`The "dest" argument must be an instance of Uint8Array. ${describeReceived(destination)}`)
      }
      const target = destination as Uint8Array
      const capacity = typedArrayLength(target)
      let read = 0
      let written = 0
      while (read < source.length) {
        const { codePoint, units } = codePointAt(source, read)
        const size = utf8ByteCount(codePoint)
        if (written + size > capacity) break
        written = writeCodePoint(target, written, codePoint)
        read += units
      }
      return { read, written }
    }
    static #check(value: unknown): void {
      if (typeof value !== 'object' || value === null || !(#isTextEncoder in value)) throw invalidThis('TextEncoder')
    }
  }

  // --- TextDecoder -----------------------------------------------------------------------------------
  /** The Encoding standard's labels for UTF-8, the one encoding this sandbox decodes. */
  const utf8Labels = create(null) as Record<string, true>
  utf8Labels['unicode-1-1-utf-8'] = true
  utf8Labels.unicode11utf8 = true
  utf8Labels.unicode20utf8 = true
  utf8Labels['utf-8'] = true
  utf8Labels.utf8 = true
  utf8Labels['x-unicode20utf8'] = true
  function isAsciiWhitespace(unit: number): boolean {
    return unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d || unit === 0x20
  }
  /** Trims ASCII whitespace and lowercases ASCII letters, as the Encoding standard matches labels. */
  function normalizeLabel(label: string): string {
    let start = 0
    let end = label.length
    while (start < end && isAsciiWhitespace(charCodeAt(label, start))) start++
    while (end > start && isAsciiWhitespace(charCodeAt(label, end - 1))) end--
    const builder = newBuilder()
    for (let index = start; index < end; index++) {
      const unit = charCodeAt(label, index)
      pushUnit(builder, unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit)
    }
    return finishBuilder(builder)
  }
  const emptyBytes = new Uint8ArrayConstructor(0)
  class TextDecoder {
    #fatal: boolean
    #ignoreBOM: boolean
    #state = newDecoderState()
    #bomSeen = false
    #streaming = false
    constructor(label: unknown = 'utf-8', options: unknown = undefined) {
      const labelText = `${label as string}`
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw invalidArgumentType(`The "options" argument must be of type object. ${describeReceived(options)}`)
      }
      if (!hasOwn(utf8Labels, normalizeLabel(labelText))) {
        throw codedError(RangeErrorConstructor, `The "${labelText}" encoding is not supported`, 'ERR_ENCODING_NOT_SUPPORTED')
      }
      const settings = options as { fatal?: unknown; ignoreBOM?: unknown } | null | undefined
      this.#fatal = settings !== undefined && settings !== null && !!settings.fatal
      this.#ignoreBOM = settings !== undefined && settings !== null && !!settings.ignoreBOM
    }
    get encoding(): string {
      TextDecoder.#check(this)
      return 'utf-8'
    }
    get fatal(): boolean {
      return TextDecoder.#check(this).#fatal
    }
    get ignoreBOM(): boolean {
      return TextDecoder.#check(this).#ignoreBOM
    }
    decode(input: unknown = undefined, options: unknown = undefined): string {
      const decoder = TextDecoder.#check(this)
      const bytes = input === undefined ? emptyBytes : bytesOf(input)
      if (bytes === undefined) {
        throw invalidArgumentType('The "list" argument must be an instance of SharedArrayBuffer, ArrayBuffer or ArrayBufferView.')
      }
      const stream = options !== undefined && options !== null && !!(options as { stream?: unknown }).stream
      if (!decoder.#streaming) {
        resetDecoderState(decoder.#state)
        decoder.#bomSeen = false
      }
      decoder.#streaming = stream
      let text = decodeUtf8(decoder.#state, bytes, typedArrayLength(bytes), !stream, decoder.#fatal)
      if (text === undefined) {
        resetDecoderState(decoder.#state)
        decoder.#streaming = false
        throw codedError(TypeErrorConstructor, 'The encoded data was not valid for encoding utf-8', 'ERR_ENCODING_INVALID_ENCODED_DATA')
      }
      // The byte order mark is dropped once, at the start of a stream, unless ignoreBOM is set.
      if (!decoder.#ignoreBOM && !decoder.#bomSeen && text.length > 0) {
        decoder.#bomSeen = true
        if (charCodeAt(text, 0) === 0xfeff) text = stringSlice(text, 1)
      }
      return text
    }
    static #check(value: unknown): TextDecoder {
      if (typeof value !== 'object' || value === null || !(#fatal in value)) throw invalidThis('TextDecoder')
      return value
    }
  }

  // --- atob / btoa -------------------------------------------------------------------------------------
  const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const base64Values = new Int8ArrayConstructor(128)
  for (let index = 0; index < 128; index++) base64Values[index] = -1
  for (let index = 0; index < 64; index++) base64Values[charCodeAt(BASE64_ALPHABET, index)] = index
  function invalidCharacter(message: string): Error {
    return new DOMException(message, 'InvalidCharacterError')
  }
  const base64Functions = {
    atob(data: unknown): string {
      if (arguments.length === 0) throw missingArguments('The "input" argument must be specified')
      const input = `${data as string}`
      // Forgiving-base64 (HTML): ASCII whitespace is ignored and up to two '=' may end the input.
      // Which of Node's two messages a failure gets follows Node's decoder (simdutf): the padding
      // is found first, then bad characters, then a lone trailing character, then bad padding.
      let end = input.length
      while (end > 0 && isAsciiWhitespace(charCodeAt(input, end - 1))) end--
      let equals = 0
      while (equals < 2 && end > 0 && charCodeAt(input, end - 1) === 0x3d) {
        end--
        equals++
        while (equals < 2 && end > 0 && isAsciiWhitespace(charCodeAt(input, end - 1))) end--
      }
      let significant = 0
      for (let index = 0; index < end; index++) {
        const unit = charCodeAt(input, index)
        if (isAsciiWhitespace(unit)) continue
        if (unit >= 128 || (base64Values[unit] as number) < 0) throw invalidCharacter('Invalid character')
        significant++
      }
      if (significant % 4 === 1) throw invalidCharacter('The string to be decoded is not correctly encoded.')
      if (equals > 0 && (significant % 4 === 0 || (significant % 4) + equals !== 4)) throw invalidCharacter('Invalid character')
      const builder = newBuilder()
      let bits = 0
      let bitCount = 0
      for (let index = 0; index < end; index++) {
        const unit = charCodeAt(input, index)
        if (isAsciiWhitespace(unit)) continue
        bits = (bits << 6) | (base64Values[unit] as number)
        bitCount += 6
        if (bitCount >= 8) {
          bitCount -= 8
          pushUnit(builder, (bits >> bitCount) & 0xff)
          bits &= (1 << bitCount) - 1
        }
      }
      return finishBuilder(builder)
    },
    btoa(data: unknown): string {
      if (arguments.length === 0) throw missingArguments('The "input" argument must be specified')
      const input = `${data as string}`
      const length = input.length
      for (let index = 0; index < length; index++) {
        if (charCodeAt(input, index) > 0xff) throw invalidCharacter('Invalid character')
      }
      const builder = newBuilder()
      for (let index = 0; index < length; index += 3) {
        const first = charCodeAt(input, index)
        const second = index + 1 < length ? charCodeAt(input, index + 1) : 0
        const third = index + 2 < length ? charCodeAt(input, index + 2) : 0
        pushUnit(builder, charCodeAt(BASE64_ALPHABET, first >> 2))
        pushUnit(builder, charCodeAt(BASE64_ALPHABET, ((first & 0x3) << 4) | (second >> 4)))
        pushUnit(builder, index + 1 < length ? charCodeAt(BASE64_ALPHABET, ((second & 0xf) << 2) | (third >> 6)) : 0x3d)
        pushUnit(builder, index + 2 < length ? charCodeAt(BASE64_ALPHABET, third & 0x3f) : 0x3d)
      }
      return finishBuilder(builder)
    },
  }

  // --- structuredClone ---------------------------------------------------------------------------------
  /** V8 aborts the process when a Map grows past about 2^24 entries; the identity table stays below. */
  const MAX_CLONED_OBJECTS = 16_000_000
  /** What an object's nearest built-in prototype suggests it is; each suggestion is verified by brand. */
  const kindsByPrototype = new MapConstructor<unknown, CloneKind>()
  mapSet(kindsByPrototype, ObjectPrototype, 'object')
  mapSet(kindsByPrototype, Date.prototype, 'date')
  mapSet(kindsByPrototype, RegExp.prototype, 'regexp')
  mapSet(kindsByPrototype, Map.prototype, 'map')
  mapSet(kindsByPrototype, Set.prototype, 'set')
  mapSet(kindsByPrototype, ArrayBuffer.prototype, 'array-buffer')
  if (typeof SharedArrayBuffer === 'function') mapSet(kindsByPrototype, SharedArrayBuffer.prototype, 'shared-array-buffer')
  mapSet(kindsByPrototype, Boolean.prototype, 'boolean')
  mapSet(kindsByPrototype, Number.prototype, 'number')
  mapSet(kindsByPrototype, String.prototype, 'string')
  mapSet(kindsByPrototype, BigInt.prototype, 'bigint')
  mapSet(kindsByPrototype, Symbol.prototype, 'symbol')
  mapSet(kindsByPrototype, Error.prototype, 'error')
  mapSet(kindsByPrototype, WeakMap.prototype, 'weak-map')
  mapSet(kindsByPrototype, WeakSet.prototype, 'weak-set')
  if (typeof WeakRef === 'function') mapSet(kindsByPrototype, WeakRef.prototype, 'weak-ref')
  if (typeof FinalizationRegistry === 'function') mapSet(kindsByPrototype, FinalizationRegistry.prototype, 'finalization-registry')
  // Promises, iterators, generators and Intl objects have no side-effect-free brand check; V8
  // refuses all of them, so anything inheriting from their prototypes is refused too.
  mapSet(kindsByPrototype, Promise.prototype, 'refused')
  mapSet(kindsByPrototype, IteratorPrototype, 'refused')
  mapSet(kindsByPrototype, AsyncIteratorPrototype, 'refused')
  if (typeof Intl === 'object' && Intl !== null) {
    const intlNames = ownKeys(Intl)
    for (let index = 0; index < intlNames.length; index++) {
      const member: unknown = (Intl as unknown as Record<PropertyKey, unknown>)[intlNames[index] as PropertyKey]
      if (typeof member === 'function' && typeof (member as { prototype?: unknown }).prototype === 'object') {
        mapSet(kindsByPrototype, (member as { prototype: object }).prototype, 'refused')
      }
    }
  }
  /** The brand checks, in the order tried when the prototype says nothing useful. */
  const PROBED_KINDS = setPrototypeOf(['date', 'regexp', 'map', 'set', 'array-buffer', 'shared-array-buffer', 'boolean', 'number', 'string', 'bigint', 'symbol', 'weak-map', 'weak-set', 'weak-ref', 'finalization-registry'], null) as CloneKind[]
  /** Whether `value` really carries the internal slots of `kind` (brand getters throw otherwise). */
  function hasBrand(value: object, kind: CloneKind): boolean {
    try {
      switch (kind) {
        case 'date': dateGetTime(value); return true
        case 'regexp': regExpSource(value); return true
        case 'map': mapSize(value); return true
        case 'set': setSize(value); return true
        case 'array-buffer': arrayBufferByteLength(value); return true
        case 'shared-array-buffer': return sharedArrayBufferByteLength !== undefined && sharedArrayBufferByteLength(value) >= 0
        case 'boolean': booleanValueOf(value); return true
        case 'number': numberValueOf(value); return true
        case 'string': stringValueOf(value); return true
        case 'bigint': bigintValueOf(value); return true
        case 'symbol': symbolValueOf(value); return true
        case 'weak-map': weakMapHas(value, probeToken); return true
        case 'weak-set': weakSetHas(value, probeToken); return true
        case 'weak-ref':
          if (weakRefDeref === undefined) return false
          weakRefDeref(value)
          return true
        case 'finalization-registry':
          if (finalizationRegistryUnregister === undefined) return false
          finalizationRegistryUnregister(value, probeToken)
          return true
        default: return false
      }
    } catch {
      return false
    }
  }
  function kindSuggestedByPrototype(value: object): CloneKind {
    let prototype = getPrototypeOf(value) as object | null
    // A proxy can invent prototypes forever; past this depth the object is treated as plain.
    for (let depth = 0; prototype !== null && depth < 10000; depth++) {
      const kind = mapGet(kindsByPrototype, prototype) as CloneKind | undefined
      if (kind !== undefined) return kind
      prototype = getPrototypeOf(prototype) as object | null
    }
    return 'object'
  }
  function classify(value: object): CloneKind {
    if (isArray(value)) return 'array'
    if (isView(value)) return typedArrayTag(value) !== undefined ? 'typed-array' : 'data-view'
    if (value === contextGlobal) return 'refused'
    const suggested = kindSuggestedByPrototype(value)
    if (suggested === 'refused') return 'refused'
    if (suggested === 'error') {
      if (objectToString(value) === '[object Error]') return 'error'
    } else if (suggested === 'object') {
      // The common case; the tag only differs for exotic objects whose prototype was replaced.
      const tag = objectToString(value)
      if (tag === '[object Object]') return 'object'
      if (tag === '[object Error]') return 'error'
      if (tag === '[object Arguments]') return 'refused'
    } else if (hasBrand(value, suggested)) {
      return suggested
    }
    for (let index = 0; index < PROBED_KINDS.length; index++) {
      const kind = PROBED_KINDS[index] as CloneKind
      if (kind !== suggested && hasBrand(value, kind)) return kind
    }
    return 'object'
  }
  /** The first data property `key` on the prototype chain, without running getters (V8's GetDataProperty). */
  function findDataProperty(value: object, key: PropertyKey): unknown {
    let holder: object | null = value
    for (let depth = 0; holder !== null && depth < 1000; depth++) {
      const descriptor = getOwnPropertyDescriptor(holder, key)
      if (descriptor !== undefined) return hasOwn(descriptor, 'value') ? descriptor.value : undefined
      holder = getPrototypeOf(holder) as object | null
    }
    return undefined
  }
  /** How V8 shows a value it cannot clone: `#<Constructor>` for ordinary objects, else `[object Tag]`. */
  function dataCloneError(value: unknown, kind: CloneKind | undefined): Error {
    let shown: string
    if (typeof value === 'function') shown = functionToString(value)
    else if (typeof value === 'symbol') shown = symbolToString(value)
    else {
      const object = value as object
      shown = ''
      if (kind !== 'symbol' && findDataProperty(object, 'toString') === ObjectPrototypeToString) {
        const constructor = findDataProperty(object, 'constructor')
        const nameDescriptor = typeof constructor === 'function' ? getOwnPropertyDescriptor(constructor, 'name') : undefined
        const name: unknown = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : undefined
        if (typeof name === 'string' && name !== '') shown = `#<${name}>`
      }
      if (shown === '') {
        const tag = findDataProperty(object, symbolToStringTag)
        shown = typeof tag === 'string' ? `[object ${tag}]` : objectToString(object)
      }
    }
    return new DOMException(`${shown} could not be cloned.`, 'DataCloneError')
  }
  function newArrayBuffer(byteLength: number, maxByteLength: number | undefined): ArrayBuffer {
    if (maxByteLength === undefined) return new ArrayBufferConstructor(byteLength)
    const options = create(null) as { maxByteLength: number }
    options.maxByteLength = maxByteLength
    return new (ArrayBufferConstructor as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer)(byteLength, options)
  }
  function isResizable(buffer: ArrayBuffer): boolean {
    return arrayBufferResizable !== undefined && arrayBufferResizable(buffer)
  }
  /**
   * A clone frame as a class instance: a fixed shape is much faster than a null-prototype record,
   * and its fields are own properties, so reads and writes never reach a prototype.
   */
  class Frame implements CloneFrame {
    kind: CloneFrame['kind']
    source: object
    target: object
    items: unknown[]
    index = 0
    pendingKey: unknown = undefined
    isArrayTarget: boolean
    constructor(kind: CloneFrame['kind'], source: object, target: object, items: unknown[], isArrayTarget: boolean) {
      this.kind = kind
      this.source = source
      this.target = target
      this.items = items
      this.isArrayTarget = isArrayTarget
    }
  }
  /**
   * Defines `key` on a fresh `{}` or `[]` of the clone. An assignment on such an object could only
   * reach a setter or a read-only property through Object.prototype (and Array.prototype), so
   * when neither holds `key` (checked right before, with no program code in between) it creates
   * the same own data property as `defineProperty`, many times faster.
   */
  function writeCloneProperty(target: object, key: string, value: unknown, isArrayTarget: boolean): void {
    const isPlainWrite = !hasOwn(ObjectPrototype, key) &&
      (!isArrayTarget || (!hasOwn(ArrayPrototype, key) && getPrototypeOf(ArrayPrototype) === ObjectPrototype))
    if (isPlainWrite) (target as Record<string, unknown>)[key] = value
    else defineData(target, key, value, true)
  }
  function cloneStructured(root: unknown): unknown {
    const memory = new MapConstructor<unknown, unknown>()
    const frames = newList<CloneFrame>()
    let objectCount = 0
    function pushFrame(kind: CloneFrame['kind'], source: object, target: object, items: unknown[], isArrayTarget = false): void {
      push(frames, new Frame(kind, source, target, items, isArrayTarget))
    }
    function remember<Clone>(source: object, clone: Clone): Clone {
      mapSet(memory, source, clone)
      return clone
    }
    /** The clone of `value`; containers come back as shells whose children a frame copies later. */
    function cloneValue(value: unknown): unknown {
      if (typeof value === 'symbol' || typeof value === 'function') throw dataCloneError(value, undefined)
      if (typeof value !== 'object' || value === null) return value
      if (mapHas(memory, value)) return mapGet(memory, value)
      if (++objectCount > MAX_CLONED_OBJECTS) throw new RangeErrorConstructor(`structuredClone: the value holds more than ${MAX_CLONED_OBJECTS} objects.`)
      const kind = classify(value)
      switch (kind) {
        case 'object': {
          const target = remember(value, {})
          pushFrame('properties', value, target, objectKeys(value))
          return target
        }
        case 'array': {
          const target = remember(value, [] as unknown[])
          target.length = (value as unknown[]).length
          pushFrame('properties', value, target, objectKeys(value), true)
          return target
        }
        case 'date':
          return remember(value, new DateConstructor(dateGetTime(value)))
        case 'regexp': {
          let flags = ''
          for (let index = 0; index < regExpFlagGetters.length; index++) {
            const flag = regExpFlagGetters[index] as { flag: string; get: (self: unknown) => boolean }
            if (flag.get(value)) flags += flag.flag
          }
          return remember(value, new RegExpConstructor(regExpSource(value), flags))
        }
        case 'map': {
          const target = remember(value, new MapConstructor<unknown, unknown>())
          // A snapshot first, as V8 does: getters run while cloning must not change what is copied.
          const entries = newList<unknown>()
          mapForEach(value, (entryValue, entryKey) => {
            push(entries, entryKey)
            push(entries, entryValue)
          })
          pushFrame('map', value, target, entries)
          return target
        }
        case 'set': {
          const target = remember(value, new SetConstructor<unknown>())
          const entries = newList<unknown>()
          setForEach(value, (entry) => push(entries, entry))
          pushFrame('set', value, target, entries)
          return target
        }
        case 'array-buffer': {
          const byteLength = arrayBufferByteLength(value)
          const source = value as ArrayBuffer
          const target = remember(value, newArrayBuffer(byteLength, isResizable(source) && arrayBufferMaxByteLength !== undefined ? arrayBufferMaxByteLength(source) : undefined))
          typedArraySet(new Uint8ArrayConstructor(target), new Uint8ArrayConstructor(source, 0, byteLength))
          return target
        }
        case 'typed-array': {
          const sourceBuffer = typedArrayBuffer(value)
          const buffer = cloneValue(sourceBuffer) as ArrayBuffer
          const byteOffset = typedArrayByteOffset(value)
          const Constructor = typedArrayConstructors[typedArrayTag(value) as string] as TypedArrayConstructor
          // A view reaching the end of a resizable buffer is taken to track its length (the usual
          // `new Uint8Array(resizable)`); JavaScript cannot tell it from a fixed view of that size.
          const tracksLength = isResizable(sourceBuffer) && byteOffset + typedArrayByteLength(value) === arrayBufferByteLength(sourceBuffer)
          return remember(value, tracksLength ? new Constructor(buffer, byteOffset) : new Constructor(buffer, byteOffset, typedArrayLength(value)))
        }
        case 'data-view': {
          const sourceBuffer = dataViewBuffer(value)
          const buffer = cloneValue(sourceBuffer) as ArrayBuffer
          const byteOffset = dataViewByteOffset(value)
          const byteLength = dataViewByteLength(value)
          const tracksLength = isResizable(sourceBuffer) && byteOffset + byteLength === arrayBufferByteLength(sourceBuffer)
          return remember(value, tracksLength ? new DataViewConstructor(buffer, byteOffset) : new DataViewConstructor(buffer, byteOffset, byteLength))
        }
        case 'boolean':
          return remember(value, ObjectConstructor(booleanValueOf(value)))
        case 'number':
          return remember(value, ObjectConstructor(numberValueOf(value)))
        case 'string':
          return remember(value, ObjectConstructor(stringValueOf(value)))
        case 'bigint':
          return remember(value, ObjectConstructor(bigintValueOf(value)))
        case 'error': {
          // The reads happen in V8's order: own message and cause, then name, then stack.
          const messageDescriptor = getOwnPropertyDescriptor(value, 'message')
          const causeDescriptor = getOwnPropertyDescriptor(value, 'cause')
          const name = `${(value as { name?: unknown }).name as string}`
          const Constructor = hasOwn(errorConstructorsByName, name) ? errorConstructorsByName[name] as ErrorConstructor : ErrorConstructor
          const hasMessage = messageDescriptor !== undefined && hasOwn(messageDescriptor, 'value')
          const target = hasMessage ? new Constructor(`${messageDescriptor.value as string}`) : new Constructor()
          const stack: unknown = (value as { stack?: unknown }).stack
          defineData(target, 'stack', typeof stack === 'string' ? stack : undefined, false)
          remember(value, target)
          if (causeDescriptor !== undefined && hasOwn(causeDescriptor, 'value')) {
            const items = newList<unknown>()
            push(items, causeDescriptor.value)
            pushFrame('error-cause', value, target, items)
          }
          return target
        }
        default:
          throw dataCloneError(value, kind)
      }
    }
    /** Copies one child of the top frame, so children are visited depth-first in V8's order. */
    function step(frame: CloneFrame): void {
      const { items, target } = frame
      if (frame.index >= items.length) {
        frames.length--
        return
      }
      const index = frame.index++
      switch (frame.kind) {
        case 'properties': {
          const key = items[index] as string
          // A key deleted by an earlier getter is skipped, as V8 does.
          if (!hasOwn(frame.source, key)) return
          const child: unknown = (frame.source as Record<string, unknown>)[key]
          writeCloneProperty(target, key, cloneValue(child), frame.isArrayTarget)
          return
        }
        case 'map':
          if (index % 2 === 0) frame.pendingKey = cloneValue(items[index])
          else mapSet(target as Map<unknown, unknown>, frame.pendingKey, cloneValue(items[index]))
          return
        case 'set':
          setAdd(target as Set<unknown>, cloneValue(items[index]))
          return
        case 'error-cause':
          defineData(target, 'cause', cloneValue(items[index]), false)
          return
      }
    }
    const result = cloneValue(root)
    while (frames.length > 0) step(frames[frames.length - 1] as CloneFrame)
    return result
  }
  const cloneFunctions = {
    structuredClone(value: unknown = undefined, options: unknown = undefined): unknown {
      if (arguments.length === 0) throw missingArguments('The value argument must be specified')
      if (options !== undefined && options !== null) {
        if (typeof options !== 'object' && typeof options !== 'function') {
          throw invalidArgumentType('The options argument must be either an object or undefined')
        }
        const transfer: unknown = (options as { transfer?: unknown }).transfer
        if (transfer !== undefined && transfer !== null) {
          // The list is checked as Node checks it. Buffers are copied, not moved: JavaScript alone
          // cannot detach an ArrayBuffer here, so the originals stay usable.
          if ((typeof transfer !== 'object' && typeof transfer !== 'function') || typeof (transfer as { [symbolIterator]?: unknown })[symbolIterator] !== 'function') {
            throw invalidArgumentType('Optional transferList argument must be an iterable')
          }
          const checkTransferable = (item: unknown): void => {
            try {
              arrayBufferByteLength(item)
            } catch {
              throw codedError(TypeErrorConstructor, 'Found invalid object in transferList', 'ERR_INVALID_TRANSFER_OBJECT')
            }
          }
          // An array is read by index (not through its replaceable iterator); other iterables are iterated.
          if (isArray(transfer)) {
            for (let index = 0; index < transfer.length; index++) checkTransferable(transfer[index])
          } else {
            for (const item of transfer as Iterable<unknown>) checkTransferable(item)
          }
        }
      }
      return cloneStructured(value)
    },
  }

  // --- URLSearchParams -----------------------------------------------------------------------------------
  /** Bytes left as they are by the application/x-www-form-urlencoded serializer; space becomes '+'. */
  const formByteText = newList<string>()
  for (let byte = 0; byte < 256; byte++) {
    const isKept = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2a || byte === 0x2d || byte === 0x2e || byte === 0x5f
    push(formByteText, byte === 0x20 ? '+' : isKept ? fromCharCode(byte) : `%${HEX_DIGITS[byte >> 4] as string}${HEX_DIGITS[byte & 0xf] as string}`)
  }
  function serializeFormComponent(text: string): string {
    let isPlain = true
    for (let index = 0; index < text.length && isPlain; index++) {
      const unit = charCodeAt(text, index)
      isPlain = unit < 0x80 && unit !== 0x20 && (formByteText[unit] as string).length === 1
    }
    if (isPlain) return text
    const bytes = encodeUtf8(text)
    // The length through the captured getter: `bytes.length` would run a replaceable one.
    const length = typedArrayLength(bytes)
    let output = ''
    for (let index = 0; index < length; index++) output += formByteText[bytes[index] as number] as string
    return output
  }
  function serializeFormList(list: string[]): string {
    let output = ''
    for (let index = 0; index < list.length; index += 2) {
      if (index > 0) output += '&'
      output += `${serializeFormComponent(list[index] as string)}=${serializeFormComponent(list[index + 1] as string)}`
    }
    return output
  }
  /** '+' → space, then percent-decoding of bytes, then UTF-8 decoding with replacement. */
  function decodeFormComponent(text: string): string {
    if (stringIndexOf(text, '%') === -1 && stringIndexOf(text, '+') === -1) return text
    const bytes = newList<number>()
    for (let index = 0; index < text.length; index++) {
      const unit = charCodeAt(text, index)
      if (unit === 0x2b) {
        push(bytes, 0x20)
      } else if (unit === 0x25 && index + 2 < text.length && hexDigitValue(charCodeAt(text, index + 1)) >= 0 && hexDigitValue(charCodeAt(text, index + 2)) >= 0) {
        push(bytes, hexDigitValue(charCodeAt(text, index + 1)) * 16 + hexDigitValue(charCodeAt(text, index + 2)))
        index += 2
      } else if (unit < 0x80) {
        push(bytes, unit)
      } else {
        const { codePoint, units } = codePointAt(text, index)
        writeCodePoint(bytes, bytes.length, codePoint)
        index += units - 1
      }
    }
    return decodeUtf8(newDecoderState(), bytes, bytes.length, true, false) as string
  }
  /** The application/x-www-form-urlencoded parser: a flat list name, value, name, value... */
  function parseFormList(input: string): string[] {
    const list = newList<string>()
    let start = 0
    while (start <= input.length) {
      let end = stringIndexOf(input, '&', start)
      if (end === -1) end = input.length
      if (end > start) {
        const sequence = stringSlice(input, start, end)
        const equals = stringIndexOf(sequence, '=')
        push(list, decodeFormComponent(equals === -1 ? sequence : stringSlice(sequence, 0, equals)))
        push(list, decodeFormComponent(equals === -1 ? '' : stringSlice(sequence, equals + 1)))
      }
      start = end + 1
    }
    return list
  }
  function parseQueryList(search: string): string[] {
    return parseFormList(search !== '' && charCodeAt(search, 0) === 0x3f ? stringSlice(search, 1) : search)
  }
  function invalidTuple(): Error {
    return codedError(TypeErrorConstructor, 'Each query pair must be an iterable [name, value] tuple', 'ERR_INVALID_TUPLE')
  }
  // Links between the classes, filled in by their static blocks (private fields stay private).
  let searchParamsListOf: (params: URLSearchParams) => string[]
  let replaceSearchParamsList: (params: URLSearchParams, list: string[]) => void
  let createLinkedSearchParams: (url: URL, search: string) => URLSearchParams
  let applyQueryToURL: (url: URL, serializedQuery: string) => void
  /** The original `entries`, so a URLSearchParams passed to the constructor is copied directly. */
  let entriesMethod: unknown = undefined

  class URLSearchParams {
    #list: string[] = newList()
    #url: URL | null = null
    constructor(init: unknown = undefined) {
      if (init === undefined || init === null) return
      if (typeof init === 'object' || typeof init === 'function') {
        const method: unknown = (init as { [symbolIterator]?: unknown })[symbolIterator]
        if (method === entriesMethod && #list in init) {
          // Copying another URLSearchParams directly, as Node does, instead of iterating it.
          const source = init.#list
          for (let index = 0; index < source.length; index++) push(this.#list, source[index] as string)
        } else if (method !== undefined && method !== null) {
          if (typeof method !== 'function') throw codedError(TypeErrorConstructor, 'Query pairs must be iterable', 'ERR_ARG_NOT_ITERABLE')
          for (const pair of init as Iterable<unknown>) this.#appendPair(pair)
        } else {
          this.#appendRecord(init)
        }
        return
      }
      const text = toUSVString(init)
      this.#list = parseFormList(text !== '' && charCodeAt(text, 0) === 0x3f ? stringSlice(text, 1) : text)
    }
    #appendPair(pair: unknown): void {
      if (pair === null || pair === undefined) throw invalidTuple()
      if (isArray(pair)) {
        if (pair.length !== 2) throw invalidTuple()
        push(this.#list, toUSVString(pair[0]))
        push(this.#list, toUSVString(pair[1]))
        return
      }
      if ((typeof pair !== 'object' && typeof pair !== 'function') || typeof (pair as { [symbolIterator]?: unknown })[symbolIterator] !== 'function') {
        throw invalidTuple()
      }
      let length = 0
      for (const element of pair as Iterable<unknown>) {
        length++
        if (length > 2) throw invalidTuple()
        push(this.#list, toUSVString(element))
      }
      if (length !== 2) throw invalidTuple()
    }
    #appendRecord(record: object): void {
      // Two keys can become one after USVString conversion; the later value wins, in the earlier place.
      const positions = create(null) as Record<string, number>
      const keys = ownKeys(record)
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string | symbol
        const descriptor = getOwnPropertyDescriptor(record, key)
        if (descriptor === undefined || !descriptor.enumerable) continue
        const name = toUSVString(key)
        const value = toUSVString((record as Record<string | symbol, unknown>)[key])
        if (hasOwn(positions, name)) {
          this.#list[(positions[name] as number) + 1] = value
        } else {
          positions[name] = this.#list.length
          push(this.#list, name)
          push(this.#list, value)
        }
      }
    }
    #update(): void {
      if (this.#url !== null) applyQueryToURL(this.#url, serializeFormList(this.#list))
    }
    get size(): number {
      return URLSearchParams.#check(this).#list.length / 2
    }
    append(name: unknown, value: unknown): void {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 2) throw missingArguments('The "name" and "value" arguments must be specified')
      push(params.#list, toUSVString(name))
      push(params.#list, toUSVString(value))
      params.#update()
    }
    delete(name: unknown, value: unknown = undefined): void {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 1) throw missingArguments('The "name" argument must be specified')
      const list = params.#list
      const nameText = toUSVString(name)
      const valueText = value === undefined ? undefined : toUSVString(value)
      let kept = 0
      for (let index = 0; index < list.length; index += 2) {
        if (list[index] === nameText && (valueText === undefined || list[index + 1] === valueText)) continue
        list[kept] = list[index] as string
        list[kept + 1] = list[index + 1] as string
        kept += 2
      }
      list.length = kept
      params.#update()
    }
    get(name: unknown): string | null {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 1) throw missingArguments('The "name" argument must be specified')
      const list = params.#list
      const nameText = toUSVString(name)
      for (let index = 0; index < list.length; index += 2) {
        if (list[index] === nameText) return list[index + 1] as string
      }
      return null
    }
    getAll(name: unknown): string[] {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 1) throw missingArguments('The "name" argument must be specified')
      const list = params.#list
      const nameText = toUSVString(name)
      const values: string[] = []
      for (let index = 0; index < list.length; index += 2) {
        if (list[index] === nameText) defineData(values, values.length, list[index + 1], true)
      }
      return values
    }
    has(name: unknown, value: unknown = undefined): boolean {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 1) throw missingArguments('The "name" argument must be specified')
      const list = params.#list
      const nameText = toUSVString(name)
      const valueText = value === undefined ? undefined : toUSVString(value)
      for (let index = 0; index < list.length; index += 2) {
        if (list[index] === nameText && (valueText === undefined || list[index + 1] === valueText)) return true
      }
      return false
    }
    set(name: unknown, value: unknown): void {
      const params = URLSearchParams.#check(this)
      if (arguments.length < 2) throw missingArguments('The "name" and "value" arguments must be specified')
      const list = params.#list
      const nameText = toUSVString(name)
      const valueText = toUSVString(value)
      let found = false
      let kept = 0
      for (let index = 0; index < list.length; index += 2) {
        if (list[index] === nameText) {
          if (found) continue
          found = true
          list[kept] = nameText
          list[kept + 1] = valueText
        } else {
          list[kept] = list[index] as string
          list[kept + 1] = list[index + 1] as string
        }
        kept += 2
      }
      list.length = kept
      if (!found) {
        push(list, nameText)
        push(list, valueText)
      }
      params.#update()
    }
    sort(): void {
      const params = URLSearchParams.#check(this)
      const list = params.#list
      const pairs = newList<{ name: string; value: string }>()
      for (let index = 0; index < list.length; index += 2) {
        push(pairs, setPrototypeOf({ name: list[index] as string, value: list[index + 1] as string }, null) as { name: string; value: string })
      }
      // Array.prototype.sort is stable, and `<` on strings compares UTF-16 code units, as specified.
      arraySort(pairs, (left, right) => {
        const leftName = (left as { name: string }).name
        const rightName = (right as { name: string }).name
        return leftName < rightName ? -1 : leftName > rightName ? 1 : 0
      })
      for (let index = 0; index < pairs.length; index++) {
        const pair = pairs[index] as { name: string; value: string }
        list[2 * index] = pair.name
        list[2 * index + 1] = pair.value
      }
      params.#update()
    }
    forEach(callback: unknown, thisArg: unknown = undefined): void {
      const params = URLSearchParams.#check(this)
      if (typeof callback !== 'function') throw invalidArgumentType(`The "callback" argument must be of type function. ${describeReceived(callback)}`)
      // The list is read afresh each turn: the callback may change it, as in Node.
      for (let index = 0; index < params.#list.length; index += 2) {
        const list = params.#list
        apply(callback as (value: string, name: string, parent: URLSearchParams) => void, thisArg, [list[index + 1] as string, list[index] as string, params])
      }
    }
    keys(): IterableIterator<string> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 0) as unknown as IterableIterator<string>
    }
    values(): IterableIterator<string> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 1) as unknown as IterableIterator<string>
    }
    entries(): IterableIterator<[string, string]> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 2) as unknown as IterableIterator<[string, string]>
    }
    [Symbol.iterator](): IterableIterator<[string, string]> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 2) as unknown as IterableIterator<[string, string]>
    }
    toString(): string {
      return serializeFormList(URLSearchParams.#check(this).#list)
    }
    static #check(value: unknown): URLSearchParams {
      if (typeof value !== 'object' || value === null || !(#list in value)) throw invalidThis('URLSearchParams')
      return value
    }
    static {
      searchParamsListOf = (params) => params.#list
      replaceSearchParamsList = (params, list) => {
        params.#list = list
      }
      createLinkedSearchParams = (url, search) => {
        const params = new URLSearchParams()
        params.#list = parseQueryList(search)
        params.#url = url
        return params
      }
    }
  }
  // One function object for both names, as in Node (`params[Symbol.iterator] === params.entries`).
  entriesMethod = URLSearchParams.prototype.entries
  defineProperty(URLSearchParams.prototype, symbolIterator, dataDescriptor(entriesMethod, false))

  class URLSearchParamsIterator {
    #params: URLSearchParams
    #kind: number
    #index = 0
    constructor(params: URLSearchParams, kind: number) {
      this.#params = params
      this.#kind = kind
    }
    next(): IteratorResult<unknown> {
      if (typeof this !== 'object' || this === null || !(#params in this)) throw invalidThis('URLSearchParamsIterator')
      const list = searchParamsListOf(this.#params)
      const index = this.#index
      if (index >= list.length) return { value: undefined, done: true }
      this.#index = index + 2
      const name = list[index] as string
      const value = list[index + 1] as string
      if (this.#kind === 0) return { value: name, done: false }
      if (this.#kind === 1) return { value, done: false }
      return { value: [name, value], done: false }
    }
  }
  // Shaped like Node's iterator: only `next` of its own, %IteratorPrototype% above it.
  setPrototypeOf(URLSearchParamsIterator.prototype, IteratorPrototype)
  deleteProperty(URLSearchParamsIterator.prototype, 'constructor')
  defineProperty(URLSearchParamsIterator.prototype, symbolToStringTag, dataDescriptor('URLSearchParams Iterator', false))

  // --- URL ---------------------------------------------------------------------------------------------
  const SPECIAL_SCHEMES = create(null) as Record<string, true>
  SPECIAL_SCHEMES['ftp:'] = true
  SPECIAL_SCHEMES['file:'] = true
  SPECIAL_SCHEMES['http:'] = true
  SPECIAL_SCHEMES['https:'] = true
  SPECIAL_SCHEMES['ws:'] = true
  SPECIAL_SCHEMES['wss:'] = true
  function isSpecial(protocol: string): boolean {
    return hasOwn(SPECIAL_SCHEMES, protocol)
  }
  function invalidUrl(input: string, base: string | undefined): Error {
    const error = codedError(TypeErrorConstructor, urlRefusal ?? 'Invalid URL', 'ERR_INVALID_URL')
    defineData(error, 'input', input, true)
    if (base !== undefined) defineData(error, 'base', base, true)
    return error
  }
  /** Cuts a serialized URL at its path, query and fragment (the first '#', then the first '?'). */
  function splitHref(record: UrlRecord): HrefParts {
    const href = record.href
    const hashIndex = stringIndexOf(href, '#')
    const beforeHash = hashIndex === -1 ? href : stringSlice(href, 0, hashIndex)
    const queryIndex = stringIndexOf(beforeHash, '?')
    const pathEnd = queryIndex === -1 ? beforeHash.length : queryIndex
    const pathStart = pathEnd - record.pathname.length
    const parts = create(null) as HrefParts
    parts.beforePath = stringSlice(href, 0, pathStart)
    parts.path = record.pathname
    parts.query = queryIndex === -1 ? '' : stringSlice(beforeHash, queryIndex)
    parts.fragment = hashIndex === -1 ? '' : stringSlice(href, hashIndex)
    parts.hasAuthority = stringSlice(href, record.protocol.length, record.protocol.length + 2) === '//'
    parts.hasOpaquePath = !parts.hasAuthority && (record.pathname === '' || charCodeAt(record.pathname, 0) !== 0x2f)
    return parts
  }
  /** The basic URL parser removes every tab and newline from its input, setters included. */
  function removeTabsAndNewlines(text: string): string {
    if (stringIndexOf(text, '\t') === -1 && stringIndexOf(text, '\n') === -1 && stringIndexOf(text, '\r') === -1) return text
    const builder = newBuilder()
    for (let index = 0; index < text.length; index++) {
      const unit = charCodeAt(text, index)
      if (unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) pushUnit(builder, unit)
    }
    return finishBuilder(builder)
  }
  function percentEncodeByte(byte: number): string {
    return `%${HEX_DIGITS[byte >> 4] as string}${HEX_DIGITS[byte & 0xf] as string}`
  }
  /** Characters of the WHATWG userinfo percent-encode set besides C0 controls and non-ASCII. */
  const USERINFO_ENCODED = ' "#<>?`{}/:;=@[\\]^|'
  function percentEncodeUserinfo(text: string): string {
    let output = ''
    for (let index = 0; index < text.length; index++) {
      const { codePoint, units } = codePointAt(text, index)
      index += units - 1
      if (codePoint > 0x20 && codePoint < 0x7f && stringIndexOf(USERINFO_ENCODED, fromCharCode(codePoint)) === -1) {
        output += fromCharCode(codePoint)
        continue
      }
      const bytes = newList<number>()
      writeCodePoint(bytes, 0, codePoint)
      for (let byteIndex = 0; byteIndex < bytes.length; byteIndex++) output += percentEncodeByte(bytes[byteIndex] as number)
    }
    return output
  }
  /**
   * A setter's text ends the rebuilt href, where a full parse would strip trailing C0 controls
   * and spaces that the setter keeps (and percent-encodes); encoding them first keeps them.
   */
  function encodeTrailingControls(text: string): string {
    let end = text.length
    while (end > 0 && charCodeAt(text, end - 1) <= 0x20) end--
    if (end === text.length) return text
    let output = stringSlice(text, 0, end)
    for (let index = end; index < text.length; index++) output += percentEncodeByte(charCodeAt(text, index))
    return output
  }
  /** Replaces every `character` by its percent-encoding (for '?' and '#' a setter keeps literally). */
  function encodeCharacter(text: string, character: string, encoded: string): string {
    if (stringIndexOf(text, character) === -1) return text
    let output = ''
    for (let index = 0; index < text.length; index++) {
      const unit = charCodeAt(text, index)
      output += unit === charCodeAt(character, 0) ? encoded : fromCharCode(unit)
    }
    return output
  }
  function userinfoOf(record: UrlRecord): string {
    if (record.username === '' && record.password === '') return ''
    return `${record.username}${record.password === '' ? '' : `:${record.password}`}@`
  }
  /** Whether a URL cannot have a username, password or port (no host, an empty host, or file:). */
  function cannotHaveCredentials(record: UrlRecord, parts: HrefParts): boolean {
    return !parts.hasAuthority || record.hostname === '' || record.protocol === 'file:'
  }
  /**
   * The port after a `port` setter (or the port part of a `host` setter), following Node's URL
   * parser (Ada), which differs from the WHATWG text: a value with a digit somewhere but not at
   * its start clears the port instead of leaving it.
   */
  function portAfterSetter(current: string, value: string): string {
    const input = removeTabsAndNewlines(value)
    if (input === '') return ''
    if (charCodeAt(input, 0) <= 0x20) return current
    let hasDigit = false
    for (let index = 0; index < value.length && !hasDigit; index++) hasDigit = charCodeAt(value, index) >= 0x30 && charCodeAt(value, index) <= 0x39
    if (!hasDigit) return current
    let end = 0
    while (end < input.length && charCodeAt(input, end) >= 0x30 && charCodeAt(input, end) <= 0x39) end++
    const digits = stringSlice(input, 0, end)
    if (digits === '') return ''
    return portValue(digits) > 65535 ? current : digits
  }
  function portValue(digits: string): number {
    let value = 0
    for (let index = 0; index < digits.length && value <= 65535; index++) value = value * 10 + (charCodeAt(digits, index) - 0x30)
    return value
  }
  function isWindowsDriveLetter(text: string): boolean {
    if (text.length !== 2) return false
    const first = charCodeAt(text, 0)
    const second = charCodeAt(text, 1)
    return ((first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a)) && (second === 0x3a || second === 0x7c)
  }
  /**
   * The href after a `host` or `hostname` setter, or `undefined` when the setter does nothing.
   * Follows Node's URL parser (Ada): the text is cut at '#', the port part is everything after the
   * first colon outside brackets, and it is applied like the `port` setter.
   */
  function hrefWithHost(record: UrlRecord, value: string, isHostname: boolean): string | undefined {
    const parts = splitHref(record)
    if (parts.hasOpaquePath) return undefined
    const hashIndex = stringIndexOf(value, '#')
    const input = removeTabsAndNewlines(hashIndex === -1 ? value : stringSlice(value, 0, hashIndex))
    const special = isSpecial(record.protocol)
    const rest = `${parts.path}${parts.query}${parts.fragment}`
    if (record.protocol === 'file:') {
      let end = 0
      while (end < input.length && charCodeAt(input, end) !== 0x2f && charCodeAt(input, end) !== 0x3f && charCodeAt(input, end) !== 0x5c) end++
      const hostText = stringSlice(input, 0, end)
      // In a rebuilt href, '@' would read as userinfo and a drive letter as a path; as a host
      // both are forbidden anyway, so the setter does nothing.
      if (stringIndexOf(hostText, '@') !== -1 || isWindowsDriveLetter(hostText)) return undefined
      return `file://${hostText}${rest}`
    }
    let end = 0
    let insideBrackets = false
    let foundColon = false
    for (; end < input.length; end++) {
      const unit = charCodeAt(input, end)
      if (unit === 0x2f || unit === 0x3f || (special && unit === 0x5c)) break
      if (unit === 0x5b) insideBrackets = true
      else if (unit === 0x5d) insideBrackets = false
      else if (unit === 0x3a && !insideBrackets) {
        foundColon = true
        break
      }
    }
    const hostText = stringSlice(input, 0, end)
    let port = record.port
    if (foundColon) {
      if (isHostname) return undefined
      const portText = stringSlice(input, end + 1)
      if (portText !== '' && !cannotHaveCredentials(record, parts)) port = portAfterSetter(record.port, portText)
    } else if (hostText === '' && !special && (userinfoOf(record) !== '' || record.port !== '')) {
      return undefined
    }
    if (hostText === '' && !special) {
      if (parts.hasAuthority) return `${record.protocol}//${userinfoOf(record)}${port === '' ? '' : `:${port}`}${rest}`
      // Ada turns a path kept behind '/.' (it starts with '//') into an empty host before it.
      if (stringSlice(parts.path, 0, 2) === '//') return `${record.protocol}//${rest}`
      return undefined
    }
    // '@' would read as userinfo in the rebuilt href; a space or NUL is forbidden in every host.
    if (stringIndexOf(hostText, '@') !== -1 || stringIndexOf(hostText, ' ') !== -1 || stringIndexOf(hostText, '\0') !== -1) return undefined
    const portText = port === '' ? '' : `:${port}`
    // A host ending the href would lose trailing controls to the re-parse; encoded, they stay.
    const hostInHref = portText === '' && rest === '' ? encodeTrailingControls(hostText) : hostText
    return `${record.protocol}//${userinfoOf(record)}${hostInHref}${portText}${rest}`
  }
  const setterHrefs = {
    protocol(record: UrlRecord, value: string): string | undefined {
      const input = `${removeTabsAndNewlines(value)}:`
      let end = 0
      for (; end < input.length; end++) {
        const unit = charCodeAt(input, end)
        const isAlpha = (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a)
        if (unit === 0x3a) break
        if (!isAlpha && (end === 0 || !((unit >= 0x30 && unit <= 0x39) || unit === 0x2b || unit === 0x2d || unit === 0x2e))) return undefined
      }
      if (end === 0) return undefined
      const protocol = `${normalizeLabel(stringSlice(input, 0, end))}:`
      if (isSpecial(protocol) !== isSpecial(record.protocol)) return undefined
      const parts = splitHref(record)
      if (protocol === 'file:' && (userinfoOf(record) !== '' || record.port !== '')) return undefined
      if (record.protocol === 'file:' && parts.hasAuthority && record.hostname === '') return undefined
      return `${protocol}${stringSlice(record.href, record.protocol.length)}`
    },
    username(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      if (cannotHaveCredentials(record, parts)) return undefined
      const username = percentEncodeUserinfo(toUSVString(value))
      const userinfo = username === '' && record.password === '' ? '' : `${username}${record.password === '' ? '' : `:${record.password}`}@`
      return `${record.protocol}//${userinfo}${record.host}${parts.path}${parts.query}${parts.fragment}`
    },
    password(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      if (cannotHaveCredentials(record, parts)) return undefined
      const password = percentEncodeUserinfo(toUSVString(value))
      const userinfo = record.username === '' && password === '' ? '' : `${record.username}${password === '' ? '' : `:${password}`}@`
      return `${record.protocol}//${userinfo}${record.host}${parts.path}${parts.query}${parts.fragment}`
    },
    host(record: UrlRecord, value: string): string | undefined {
      return hrefWithHost(record, value, false)
    },
    hostname(record: UrlRecord, value: string): string | undefined {
      return hrefWithHost(record, value, true)
    },
    port(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      if (cannotHaveCredentials(record, parts)) return undefined
      const port = portAfterSetter(record.port, value)
      return `${record.protocol}//${userinfoOf(record)}${record.hostname}${port === '' ? '' : `:${port}`}${parts.path}${parts.query}${parts.fragment}`
    },
    pathname(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      if (parts.hasOpaquePath) return undefined
      // With a setter, '?' and '#' belong to the path, so they are encoded before the re-parse.
      let path = encodeCharacter(encodeCharacter(removeTabsAndNewlines(value), '?', '%3F'), '#', '%23')
      if (parts.query === '' && parts.fragment === '') path = encodeTrailingControls(path)
      const startsWithSlash = path !== '' && (charCodeAt(path, 0) === 0x2f || (isSpecial(record.protocol) && charCodeAt(path, 0) === 0x5c))
      if (parts.hasAuthority) {
        if (path !== '' && !startsWithSlash) path = `/${path}`
        return `${parts.beforePath}${path}${parts.query}${parts.fragment}`
      }
      if (!startsWithSlash) path = `/${path}`
      // A host-less path starting with '//' is serialized behind '/.', so it is not read as a host.
      const guard = path.length > 1 && charCodeAt(path, 1) === 0x2f ? '/.' : ''
      return `${record.protocol}${guard}${path}${parts.query}${parts.fragment}`
    },
    search(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      const beforeQuery = `${parts.beforePath}${parts.path}`
      if (value === '') return `${beforeQuery}${parts.fragment}`
      let query = removeTabsAndNewlines(value)
      if (query !== '' && charCodeAt(query, 0) === 0x3f) query = stringSlice(query, 1)
      query = encodeCharacter(query, '#', '%23')
      if (parts.fragment === '') query = encodeTrailingControls(query)
      return `${beforeQuery}?${query}${parts.fragment}`
    },
    hash(record: UrlRecord, value: string): string | undefined {
      const parts = splitHref(record)
      const beforeHash = `${parts.beforePath}${parts.path}${parts.query}`
      if (value === '') return beforeHash
      let fragment = removeTabsAndNewlines(value)
      if (fragment !== '' && charCodeAt(fragment, 0) === 0x23) fragment = stringSlice(fragment, 1)
      return `${beforeHash}#${encodeTrailingControls(fragment)}`
    },
  }

  class URL {
    #record: UrlRecord
    #searchParams: URLSearchParams | null = null
    constructor(input: unknown, base: unknown = undefined) {
      if (arguments.length === 0) throw missingArguments('The "url" argument must be specified')
      const inputText = `${input as string}`
      const baseText = base === undefined ? undefined : `${base as string}`
      const record = parseWithHost(inputText, baseText)
      if (record === undefined) throw invalidUrl(inputText, baseText)
      this.#record = record
    }
    /** Re-parses `href` (built by a setter); a failed parse leaves the URL unchanged, as WHATWG does. */
    #applyHref(href: string | undefined): void {
      if (href === undefined) return
      const record = parseWithHost(href, undefined)
      if (record === undefined) return
      this.#record = record
      if (this.#searchParams !== null) replaceSearchParamsList(this.#searchParams, parseQueryList(record.search))
    }
    #set(component: keyof typeof setterHrefs, value: unknown): void {
      this.#applyHref(setterHrefs[component](this.#record, `${value as string}`))
    }
    get href(): string {
      return URL.#recordOf(this).href
    }
    set href(value: unknown) {
      const url = URL.#check(this)
      const text = `${value as string}`
      const record = parseWithHost(text, undefined)
      if (record === undefined) throw invalidUrl(text, undefined)
      url.#record = record
      if (url.#searchParams !== null) replaceSearchParamsList(url.#searchParams, parseQueryList(record.search))
    }
    get origin(): string {
      return URL.#recordOf(this).origin
    }
    get protocol(): string {
      return URL.#recordOf(this).protocol
    }
    set protocol(value: unknown) {
      URL.#check(this).#set('protocol', value)
    }
    get username(): string {
      return URL.#recordOf(this).username
    }
    set username(value: unknown) {
      URL.#check(this).#set('username', value)
    }
    get password(): string {
      return URL.#recordOf(this).password
    }
    set password(value: unknown) {
      URL.#check(this).#set('password', value)
    }
    get host(): string {
      return URL.#recordOf(this).host
    }
    set host(value: unknown) {
      URL.#check(this).#set('host', value)
    }
    get hostname(): string {
      return URL.#recordOf(this).hostname
    }
    set hostname(value: unknown) {
      URL.#check(this).#set('hostname', value)
    }
    get port(): string {
      return URL.#recordOf(this).port
    }
    set port(value: unknown) {
      URL.#check(this).#set('port', value)
    }
    get pathname(): string {
      return URL.#recordOf(this).pathname
    }
    set pathname(value: unknown) {
      URL.#check(this).#set('pathname', value)
    }
    get search(): string {
      return URL.#recordOf(this).search
    }
    set search(value: unknown) {
      URL.#check(this).#set('search', value)
    }
    get searchParams(): URLSearchParams {
      const url = URL.#check(this)
      if (url.#searchParams === null) url.#searchParams = createLinkedSearchParams(url, url.#record.search)
      return url.#searchParams
    }
    get hash(): string {
      return URL.#recordOf(this).hash
    }
    set hash(value: unknown) {
      URL.#check(this).#set('hash', value)
    }
    toString(): string {
      return URL.#recordOf(this).href
    }
    toJSON(): string {
      return URL.#recordOf(this).href
    }
    static canParse(input: unknown, base: unknown = undefined): boolean {
      if (arguments.length === 0) throw missingArguments('The "url" argument must be specified')
      return parseWithHost(`${input as string}`, base === undefined ? undefined : `${base as string}`) !== undefined
    }
    static parse(input: unknown, base: unknown = undefined): URL | null {
      if (arguments.length === 0) throw missingArguments('The "url" argument must be specified')
      const inputText = `${input as string}`
      const baseText = base === undefined ? undefined : `${base as string}`
      return parseWithHost(inputText, baseText) === undefined ? null : new URL(inputText, baseText)
    }
    static #check(value: unknown): URL {
      if (typeof value !== 'object' || value === null || !(#record in value)) throw new TypeErrorConstructor('Receiver must be an instance of class URL')
      return value
    }
    static #recordOf(value: unknown): UrlRecord {
      return URL.#check(value).#record
    }
    static {
      applyQueryToURL = (url, serializedQuery) => {
        const parts = splitHref(url.#record)
        const href = `${parts.beforePath}${parts.path}${serializedQuery === '' ? '' : `?${serializedQuery}`}${parts.fragment}`
        // The list is the source of the new query, so it is kept as it is (not re-parsed).
        const record = parseWithHost(href, undefined)
        if (record !== undefined) url.#record = record
      }
    }
  }

  // --- crypto --------------------------------------------------------------------------------------------
  const MAX_RANDOM_BYTES = 65536
  const crypto = {
    getRandomValues<T extends ArrayBufferView>(array: T): T {
      if (arguments.length === 0) throw missingArguments("Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.")
      const tag = typedArrayTag(array)
      if (tag === undefined || !hasOwn(integerTypedArrays, tag)) {
        throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError')
      }
      const byteLength = typedArrayByteLength(array)
      if (byteLength > MAX_RANDOM_BYTES) throw new DOMException('The requested length exceeds 65,536 bytes', 'QuotaExceededError')
      const random = readRandomBytes(byteLength)
      typedArraySet(new Uint8ArrayConstructor(typedArrayBuffer(array), typedArrayByteOffset(array), byteLength), random)
      return array
    },
    randomUUID(): string {
      return readRandomUUID()
    },
  }
  defineProperty(crypto, symbolToStringTag, dataDescriptor('Crypto', false))
  freeze(crypto)

  // --- Shape: the members Node shows as enumerable, and the toStringTags -------------------------------
  function makeEnumerable(prototype: object, names: string): void {
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
  makeEnumerable(TextEncoder.prototype, 'encoding encode encodeInto')
  makeEnumerable(TextDecoder.prototype, 'encoding fatal ignoreBOM decode')
  makeEnumerable(URLSearchParams.prototype, 'size append delete get getAll has set sort entries forEach keys values toString')
  makeEnumerable(URL.prototype, 'toString href origin protocol username password host hostname port pathname search searchParams hash toJSON')
  defineProperty(TextEncoder.prototype, symbolToStringTag, dataDescriptor('TextEncoder', false))
  defineProperty(TextDecoder.prototype, symbolToStringTag, dataDescriptor('TextDecoder', false))
  defineProperty(URLSearchParams.prototype, symbolToStringTag, dataDescriptor('URLSearchParams', false))
  defineProperty(URL.prototype, symbolToStringTag, dataDescriptor('URL', false))

  return {
    TextEncoder,
    TextDecoder,
    atob: base64Functions.atob,
    btoa: base64Functions.btoa,
    structuredClone: cloneFunctions.structuredClone as WebGlobals['structuredClone'],
    URL: URL as unknown as WebURLConstructor,
    URLSearchParams: URLSearchParams as unknown as WebGlobals['URLSearchParams'],
    crypto,
  }
}
