/**
 * In-context script `code-runtime:globals/url-search-params`: `URLSearchParams` and its
 * iterator, the application/x-www-form-urlencoded parser and serializer, with Node's argument
 * checks, error codes and member shape.
 *
 * The URL script links a URL to its own `searchParams` through {@link SearchParamsLink}, a
 * record this script returns beside the class, never through a global the program could replace.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'
import type { TextUnits } from './text-units.js'

/** How a URL keeps its `searchParams` and its query in step, both ways. */
export interface SearchParamsLink {
  /** A URLSearchParams of `search` whose every change is reported as the new serialized query. */
  createLinked(search: string, onUpdate: (serializedQuery: string) => void): object
  /** Replaces the list of a linked URLSearchParams by the pairs of `search` (after a URL setter). */
  replaceQuery(params: object, search: string): void
}

export function createURLSearchParams(primordials: Primordials, errors: NodeErrors, units: TextUnits) {
  'use strict'
  const {
    apply,
    arraySort,
    charCodeAt,
    create,
    defineData,
    defineProperty,
    dataDescriptor,
    deleteProperty,
    fromCharCode,
    frozenRecord,
    getOwnPropertyDescriptor,
    hasOwn,
    isArray,
    IteratorPrototype,
    newList,
    ownKeys,
    push,
    setEnumerable,
    setPrototypeOf,
    setToStringTag,
    stringIndexOf,
    stringSlice,
    symbolIterator,
    typedArrayLength,
    TypeErrorConstructor,
  } = primordials
  const { codedError, describeReceived, invalidArgumentType, invalidThis, missingArguments } = errors
  const {
    codePointAt,
    decodeUtf8,
    encodeUtf8,
    hexDigitValue,
    HEX_DIGITS,
    newDecoderState,
    toUSVString,
    writeCodePoint,
  } = units

  /**
   * Each byte as the application/x-www-form-urlencoded serializer writes it: kept, '+' for a
   * space, or percent-encoded. Built on first use: most programs never serialize a query, and
   * this runs in every fresh context.
   */
  let formByteTable: string[] | undefined
  function formByteText(): string[] {
    if (formByteTable !== undefined) return formByteTable
    const table = newList<string>()
    for (let byte = 0; byte < 256; byte++) {
      const isKept =
        (byte >= 0x30 && byte <= 0x39) ||
        (byte >= 0x41 && byte <= 0x5a) ||
        (byte >= 0x61 && byte <= 0x7a) ||
        byte === 0x2a ||
        byte === 0x2d ||
        byte === 0x2e ||
        byte === 0x5f
      push(
        table,
        byte === 0x20
          ? '+'
          : isKept
            ? fromCharCode(byte)
            : `%${HEX_DIGITS[byte >> 4] as string}${HEX_DIGITS[byte & 0xf] as string}`,
      )
    }
    formByteTable = table
    return table
  }
  function serializeFormComponent(text: string): string {
    const byteText = formByteText()
    let isPlain = true
    for (let index = 0; index < text.length && isPlain; index++) {
      const unit = charCodeAt(text, index)
      isPlain = unit < 0x80 && unit !== 0x20 && (byteText[unit] as string).length === 1
    }
    if (isPlain) return text
    const bytes = encodeUtf8(text)
    // The length through the captured getter: `bytes.length` would run a replaceable one.
    const length = typedArrayLength(bytes)
    let output = ''
    for (let index = 0; index < length; index++) output += byteText[bytes[index] as number] as string
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
      } else if (
        unit === 0x25 &&
        index + 2 < text.length &&
        hexDigitValue(charCodeAt(text, index + 1)) >= 0 &&
        hexDigitValue(charCodeAt(text, index + 2)) >= 0
      ) {
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
    return codedError(
      TypeErrorConstructor,
      'Each query pair must be an iterable [name, value] tuple',
      'ERR_INVALID_TUPLE',
    )
  }
  // Links between the classes, filled in by their static blocks (private fields stay private).
  let searchParamsListOf: (params: URLSearchParams) => string[]
  let replaceQuery: SearchParamsLink['replaceQuery']
  let createLinked: SearchParamsLink['createLinked']
  /** The original `entries`, so a URLSearchParams passed to the constructor is copied directly. */
  let entriesMethod: unknown = undefined

  class URLSearchParams {
    #list: string[] = newList()
    /** Set on a URL's own `searchParams`: carries each change of the list to that URL's query. */
    #onUpdate: ((serializedQuery: string) => void) | null = null
    constructor(init: unknown = undefined) {
      if (init === undefined || init === null) return
      if (typeof init === 'object' || typeof init === 'function') {
        const method: unknown = (init as { [symbolIterator]?: unknown })[symbolIterator]
        if (method === entriesMethod && #list in init) {
          // Copying another URLSearchParams directly, as Node does, instead of iterating it.
          const source = init.#list
          for (let index = 0; index < source.length; index++) push(this.#list, source[index] as string)
        } else if (method !== undefined && method !== null) {
          if (typeof method !== 'function')
            throw codedError(TypeErrorConstructor, 'Query pairs must be iterable', 'ERR_ARG_NOT_ITERABLE')
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
      if (
        (typeof pair !== 'object' && typeof pair !== 'function') ||
        typeof (pair as { [symbolIterator]?: unknown })[symbolIterator] !== 'function'
      ) {
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
      if (this.#onUpdate !== null) this.#onUpdate(serializeFormList(this.#list))
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
        push(
          pairs,
          setPrototypeOf({ name: list[index] as string, value: list[index + 1] as string }, null) as {
            name: string
            value: string
          },
        )
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
      if (typeof callback !== 'function')
        throw invalidArgumentType(`The "callback" argument must be of type function. ${describeReceived(callback)}`)
      // The list is read afresh each turn: the callback may change it, as in Node.
      for (let index = 0; index < params.#list.length; index += 2) {
        const list = params.#list
        apply(callback as (value: string, name: string, parent: URLSearchParams) => void, thisArg, [
          list[index + 1] as string,
          list[index] as string,
          params,
        ])
      }
    }
    keys(): IterableIterator<string> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 0) as unknown as IterableIterator<string>
    }
    values(): IterableIterator<string> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 1) as unknown as IterableIterator<string>
    }
    entries(): IterableIterator<[string, string]> {
      return new URLSearchParamsIterator(URLSearchParams.#check(this), 2) as unknown as IterableIterator<
        [string, string]
      >
    }
    toString(): string {
      return serializeFormList(URLSearchParams.#check(this).#list)
    }
    static #check(value: unknown): URLSearchParams {
      if (typeof value !== 'object' || value === null || !(#list in value)) throw invalidThis('URLSearchParams')
      return value
    }
    static {
      searchParamsListOf = params => params.#list
      replaceQuery = (params, search) => {
        ;(params as URLSearchParams).#list = parseQueryList(search)
      }
      createLinked = (search, onUpdate) => {
        const params = new URLSearchParams()
        params.#list = parseQueryList(search)
        params.#onUpdate = onUpdate
        return params
      }
    }
  }
  // One function object for both names, as in Node (`params[Symbol.iterator] === params.entries`);
  // defined here, since a computed `[Symbol.iterator]` member would read the context's global.
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
  setToStringTag(URLSearchParamsIterator.prototype, 'URLSearchParams Iterator')
  setEnumerable(
    URLSearchParams.prototype,
    'size append delete get getAll has set sort entries forEach keys values toString',
  )
  setToStringTag(URLSearchParams.prototype, 'URLSearchParams')
  const link: SearchParamsLink = frozenRecord({ createLinked, replaceQuery })
  return frozenRecord({ URLSearchParams, link })
}
