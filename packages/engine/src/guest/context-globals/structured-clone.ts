/**
 * In-context script `code-runtime:globals/structured-clone`: `structuredClone`, following V8's
 * serializer (what it copies, in which order, what it refuses and how it words the refusal)
 * without running any getter the program did not write itself.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'

type CloneKind =
  | 'object'
  | 'array'
  | 'date'
  | 'regexp'
  | 'map'
  | 'set'
  | 'array-buffer'
  | 'typed-array'
  | 'data-view'
  | 'boolean'
  | 'number'
  | 'string'
  | 'bigint'
  | 'error'
  | 'symbol'
  | 'shared-array-buffer'
  | 'weak-map'
  | 'weak-set'
  | 'weak-ref'
  | 'finalization-registry'
  | 'refused'

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

export function createStructuredClone(primordials: Primordials, errors: NodeErrors) {
  'use strict'
  const {
    contextGlobal,
    ObjectConstructor,
    ObjectPrototype,
    ArrayPrototype,
    create,
    defineData,
    freeze,
    frozenRecord,
    getOwnPropertyDescriptor,
    getPrototypeOf,
    setPrototypeOf,
    hasOwn,
    objectKeys,
    ownKeys,
    newList,
    push,
    optionalGetter,
    ErrorConstructor,
    EvalErrorConstructor,
    RangeErrorConstructor,
    ReferenceErrorConstructor,
    SyntaxErrorConstructor,
    TypeErrorConstructor,
    URIErrorConstructor,
    ObjectPrototypeToString,
    objectToString,
    isArray,
    functionToString,
    symbolToString,
    symbolIterator,
    symbolToStringTag,
    SymbolPrototype,
    symbolValueOf,
    MapConstructor,
    mapGet,
    mapSet,
    mapHas,
    mapForEach,
    mapSize,
    SetConstructor,
    setAdd,
    setForEach,
    setSize,
    WeakMapPrototype,
    weakMapHas,
    WeakSetPrototype,
    weakSetHas,
    WeakRefPrototype,
    weakRefDeref,
    FinalizationRegistryPrototype,
    finalizationRegistryUnregister,
    BooleanPrototype,
    booleanValueOf,
    NumberPrototype,
    numberValueOf,
    StringPrototype,
    stringValueOf,
    BigIntPrototype,
    bigintValueOf,
    DateConstructor,
    dateGetTime,
    RegExpConstructor,
    regExpSource,
    PromisePrototype,
    IntlNamespace,
    ArrayBufferConstructor,
    arrayBufferByteLength,
    arrayBufferResizable,
    arrayBufferMaxByteLength,
    SharedArrayBufferPrototype,
    sharedArrayBufferByteLength,
    isView,
    Uint8ArrayConstructor,
    typedArrayConstructors,
    typedArrayTag,
    typedArrayBuffer,
    typedArrayByteOffset,
    typedArrayByteLength,
    typedArrayLength,
    typedArraySet,
    DataViewConstructor,
    dataViewBuffer,
    dataViewByteOffset,
    dataViewByteLength,
    IteratorPrototype,
    AsyncIteratorPrototype,
  } = primordials
  const { codedError, DOMException, invalidArgumentType, missingArguments } = errors
  type TypedArrayConstructor = new (buffer: ArrayBuffer, byteOffset?: number, length?: number) => ArrayBufferView

  const errorConstructorsByName = create(null) as Record<string, ErrorConstructor>
  errorConstructorsByName.EvalError = EvalErrorConstructor
  errorConstructorsByName.RangeError = RangeErrorConstructor
  errorConstructorsByName.ReferenceError = ReferenceErrorConstructor
  errorConstructorsByName.SyntaxError = SyntaxErrorConstructor
  errorConstructorsByName.TypeError = TypeErrorConstructor
  errorConstructorsByName.URIError = URIErrorConstructor
  /** A key no program can hold, for side-effect-free brand checks of weak collections. */
  const probeToken = freeze(create(null) as object)
  /** Flag getters in the canonical `flags` order; a flag this engine lacks is skipped. */
  const regExpFlagGetters = setPrototypeOf([], null) as { flag: string; get: (self: unknown) => boolean }[]
  {
    const flagNames = setPrototypeOf(
      [
        'd',
        'hasIndices',
        'g',
        'global',
        'i',
        'ignoreCase',
        'm',
        'multiline',
        's',
        'dotAll',
        'u',
        'unicode',
        'v',
        'unicodeSets',
        'y',
        'sticky',
      ],
      null,
    ) as string[]
    for (let index = 0; index < flagNames.length; index += 2) {
      const get = optionalGetter<boolean>(RegExpConstructor.prototype, flagNames[index + 1] as string)
      if (get !== undefined)
        regExpFlagGetters[regExpFlagGetters.length] = setPrototypeOf(
          { flag: flagNames[index] as string, get },
          null,
        ) as { flag: string; get: (self: unknown) => boolean }
    }
  }

  const MAX_CLONED_OBJECTS = 16_000_000
  /** What an object's nearest built-in prototype suggests it is; each suggestion is verified by brand. */
  const kindsByPrototype = new MapConstructor<unknown, CloneKind>()
  mapSet(kindsByPrototype, ObjectPrototype, 'object')
  mapSet(kindsByPrototype, DateConstructor.prototype, 'date')
  mapSet(kindsByPrototype, RegExpConstructor.prototype, 'regexp')
  mapSet(kindsByPrototype, MapConstructor.prototype, 'map')
  mapSet(kindsByPrototype, SetConstructor.prototype, 'set')
  mapSet(kindsByPrototype, ArrayBufferConstructor.prototype, 'array-buffer')
  if (SharedArrayBufferPrototype !== undefined)
    mapSet(kindsByPrototype, SharedArrayBufferPrototype, 'shared-array-buffer')
  mapSet(kindsByPrototype, BooleanPrototype, 'boolean')
  mapSet(kindsByPrototype, NumberPrototype, 'number')
  mapSet(kindsByPrototype, StringPrototype, 'string')
  mapSet(kindsByPrototype, BigIntPrototype, 'bigint')
  mapSet(kindsByPrototype, SymbolPrototype, 'symbol')
  mapSet(kindsByPrototype, ErrorConstructor.prototype, 'error')
  mapSet(kindsByPrototype, WeakMapPrototype, 'weak-map')
  mapSet(kindsByPrototype, WeakSetPrototype, 'weak-set')
  if (WeakRefPrototype !== undefined) mapSet(kindsByPrototype, WeakRefPrototype, 'weak-ref')
  if (FinalizationRegistryPrototype !== undefined)
    mapSet(kindsByPrototype, FinalizationRegistryPrototype, 'finalization-registry')
  // Promises, iterators, generators and Intl objects have no side-effect-free brand check; V8
  // refuses all of them, so anything inheriting from their prototypes is refused too.
  mapSet(kindsByPrototype, PromisePrototype, 'refused')
  mapSet(kindsByPrototype, IteratorPrototype, 'refused')
  mapSet(kindsByPrototype, AsyncIteratorPrototype, 'refused')
  if (IntlNamespace !== undefined) {
    const intlNames = ownKeys(IntlNamespace)
    for (let index = 0; index < intlNames.length; index++) {
      const member: unknown = (IntlNamespace as unknown as Record<PropertyKey, unknown>)[
        intlNames[index] as PropertyKey
      ]
      if (typeof member === 'function' && typeof (member as { prototype?: unknown }).prototype === 'object') {
        mapSet(kindsByPrototype, (member as { prototype: object }).prototype, 'refused')
      }
    }
  }
  /** The brand checks, in the order tried when the prototype says nothing useful. */
  const PROBED_KINDS = setPrototypeOf(
    [
      'date',
      'regexp',
      'map',
      'set',
      'array-buffer',
      'shared-array-buffer',
      'boolean',
      'number',
      'string',
      'bigint',
      'symbol',
      'weak-map',
      'weak-set',
      'weak-ref',
      'finalization-registry',
    ],
    null,
  ) as CloneKind[]
  /** Whether `value` really carries the internal slots of `kind` (brand getters throw otherwise). */
  function hasBrand(value: object, kind: CloneKind): boolean {
    try {
      switch (kind) {
        case 'date':
          dateGetTime(value)
          return true
        case 'regexp':
          regExpSource(value)
          return true
        case 'map':
          mapSize(value)
          return true
        case 'set':
          setSize(value)
          return true
        case 'array-buffer':
          arrayBufferByteLength(value)
          return true
        case 'shared-array-buffer':
          return sharedArrayBufferByteLength !== undefined && sharedArrayBufferByteLength(value) >= 0
        case 'boolean':
          booleanValueOf(value)
          return true
        case 'number':
          numberValueOf(value)
          return true
        case 'string':
          stringValueOf(value)
          return true
        case 'bigint':
          bigintValueOf(value)
          return true
        case 'symbol':
          symbolValueOf(value)
          return true
        case 'weak-map':
          weakMapHas(value, probeToken)
          return true
        case 'weak-set':
          weakSetHas(value, probeToken)
          return true
        case 'weak-ref':
          if (weakRefDeref === undefined) return false
          weakRefDeref(value)
          return true
        case 'finalization-registry':
          if (finalizationRegistryUnregister === undefined) return false
          finalizationRegistryUnregister(value, probeToken)
          return true
        default:
          return false
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
        const nameDescriptor =
          typeof constructor === 'function' ? getOwnPropertyDescriptor(constructor, 'name') : undefined
        const name: unknown =
          nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : undefined
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
    return new (
      ArrayBufferConstructor as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer
    )(byteLength, options)
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
    const isPlainWrite =
      !hasOwn(ObjectPrototype, key) &&
      (!isArrayTarget || (!hasOwn(ArrayPrototype, key) && getPrototypeOf(ArrayPrototype) === ObjectPrototype))
    if (isPlainWrite) (target as Record<string, unknown>)[key] = value
    else defineData(target, key, value, true)
  }
  function cloneStructured(root: unknown): unknown {
    const memory = new MapConstructor<unknown, unknown>()
    const frames = newList<CloneFrame>()
    let objectCount = 0
    function pushFrame(
      kind: CloneFrame['kind'],
      source: object,
      target: object,
      items: unknown[],
      isArrayTarget = false,
    ): void {
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
      if (++objectCount > MAX_CLONED_OBJECTS)
        throw new RangeErrorConstructor(`structuredClone: the value holds more than ${MAX_CLONED_OBJECTS} objects.`)
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
          setForEach(value, entry => push(entries, entry))
          pushFrame('set', value, target, entries)
          return target
        }
        case 'array-buffer': {
          const byteLength = arrayBufferByteLength(value)
          const source = value as ArrayBuffer
          const target = remember(
            value,
            newArrayBuffer(
              byteLength,
              isResizable(source) && arrayBufferMaxByteLength !== undefined
                ? arrayBufferMaxByteLength(source)
                : undefined,
            ),
          )
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
          const tracksLength =
            isResizable(sourceBuffer) &&
            byteOffset + typedArrayByteLength(value) === arrayBufferByteLength(sourceBuffer)
          return remember(
            value,
            tracksLength
              ? new Constructor(buffer, byteOffset)
              : new Constructor(buffer, byteOffset, typedArrayLength(value)),
          )
        }
        case 'data-view': {
          const sourceBuffer = dataViewBuffer(value)
          const buffer = cloneValue(sourceBuffer) as ArrayBuffer
          const byteOffset = dataViewByteOffset(value)
          const byteLength = dataViewByteLength(value)
          const tracksLength =
            isResizable(sourceBuffer) && byteOffset + byteLength === arrayBufferByteLength(sourceBuffer)
          return remember(
            value,
            tracksLength
              ? new DataViewConstructor(buffer, byteOffset)
              : new DataViewConstructor(buffer, byteOffset, byteLength),
          )
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
          const Constructor = hasOwn(errorConstructorsByName, name)
            ? (errorConstructorsByName[name] as ErrorConstructor)
            : ErrorConstructor
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
          if (
            (typeof transfer !== 'object' && typeof transfer !== 'function') ||
            typeof (transfer as { [symbolIterator]?: unknown })[symbolIterator] !== 'function'
          ) {
            throw invalidArgumentType('Optional transferList argument must be an iterable')
          }
          const checkTransferable = (item: unknown): void => {
            try {
              arrayBufferByteLength(item)
            } catch {
              throw codedError(
                TypeErrorConstructor,
                'Found invalid object in transferList',
                'ERR_INVALID_TRANSFER_OBJECT',
              )
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
  return frozenRecord({ structuredClone: cloneFunctions.structuredClone })
}
