/**
 * In-context script `code-runtime:globals/url`: the WHATWG `URL` class, with Node's argument
 * checks, error codes and member shape.
 *
 * Parsing and every setter run on the substrate realm's own WHATWG URL through the {@link UrlHost}
 * (strings in, a JSON string of components out), so this script never re-implements the URL
 * standard: it keeps the components of each URL and asks the host for new ones. A URL's
 * `searchParams` is linked to it through the {@link SearchParamsLink} of the URLSearchParams
 * script, so each side updates the other.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'
import type { SearchParamsLink } from './url-search-params.js'

/** The URL members with a setter other than `href` (which is a parse of its own). */
export type UrlSetterMember =
  'protocol' | 'username' | 'password' | 'host' | 'hostname' | 'port' | 'pathname' | 'search' | 'hash'

/** The substrate-realm URL services. Primitives in, primitives out; never throws. */
export interface UrlHost {
  /**
   * Parses with WHATWG URL; returns JSON of { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash },
   * or of { refused } (why the sandbox will not parse it: too long a host or input), or undefined when invalid.
   */
  parseUrl(input: string, base: string | undefined): string | undefined
  /**
   * Applies the setter of `member` with `value` to a URL parsed from `href`; returns JSON of the
   * new components (as `parseUrl`), or undefined when the URL stays as it was (the setter does
   * nothing, or the sandbox refuses so long an input or host).
   */
  updateUrl(href: string, member: UrlSetterMember, value: string): string | undefined
}

/** The URL components the host reports, each a string. */
type UrlComponent =
  | 'href'
  | 'origin'
  | 'protocol'
  | 'username'
  | 'password'
  | 'host'
  | 'hostname'
  | 'port'
  | 'pathname'
  | 'search'
  | 'hash'
type UrlRecord = Record<UrlComponent, string>

export function createURL(
  primordials: Primordials,
  errors: NodeErrors,
  searchParams: { URLSearchParams: unknown; link: SearchParamsLink },
  host: UrlHost,
) {
  'use strict'
  // Host services: local constants only, called directly, never stored on or passed to anything.
  const { parseUrl, updateUrl } = host
  const {
    create,
    defineData,
    frozenRecord,
    hasOwn,
    jsonParse,
    setEnumerable,
    setPrototypeOf,
    setToStringTag,
    TypeErrorConstructor,
  } = primordials
  const { codedError, hostFailure, missingArguments } = errors
  const { createLinked, replaceQuery } = searchParams.link

  const URL_FIELDS = setPrototypeOf(
    ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'],
    null,
  ) as UrlComponent[]
  /** Why the sandbox refused to parse the last input, when it did (read by {@link invalidUrl}). */
  let urlRefusal: string | undefined
  /**
   * Checks a host answer and rebuilds it as a record of the context: `undefined` stays
   * `undefined`, a refusal is remembered and becomes `undefined`, and any other shape is a
   * failure of the host, never trusted.
   */
  function readHostAnswer(answer: unknown, operation: string): UrlRecord | undefined {
    if (answer === undefined) return undefined
    if (typeof answer !== 'string') throw hostFailure(operation)
    let parsed: unknown
    try {
      parsed = jsonParse(answer)
    } catch {
      throw hostFailure(operation)
    }
    if (typeof parsed !== 'object' || parsed === null) throw hostFailure(operation)
    if (hasOwn(parsed, 'refused')) {
      // An invalid URL for the program, with the sandbox's reason as the error's message.
      const reason: unknown = (parsed as { refused: unknown }).refused
      urlRefusal = typeof reason === 'string' ? reason : undefined
      return undefined
    }
    const record = create(null) as UrlRecord
    for (let index = 0; index < URL_FIELDS.length; index++) {
      const field = URL_FIELDS[index] as UrlComponent
      const value: unknown = hasOwn(parsed, field) ? (parsed as Record<string, unknown>)[field] : undefined
      if (typeof value !== 'string') throw hostFailure(operation)
      record[field] = value
    }
    return record
  }
  /** Parses through the host; `undefined` means "not a valid URL". */
  function parseWithHost(input: string, base: string | undefined): UrlRecord | undefined {
    urlRefusal = undefined
    let answer: unknown
    try {
      answer = parseUrl(input, base)
    } catch {
      throw hostFailure('URL parsing')
    }
    return readHostAnswer(answer, 'URL parsing')
  }
  /** Applies a setter through the host; `undefined` means "the URL stays as it was". */
  function updateWithHost(record: UrlRecord, member: UrlSetterMember, value: string): UrlRecord | undefined {
    let answer: unknown
    try {
      answer = updateUrl(record.href, member, value)
    } catch {
      throw hostFailure('URL update')
    }
    return readHostAnswer(answer, 'URL update')
  }
  function invalidUrl(input: string, base: string | undefined): Error {
    const error = codedError(TypeErrorConstructor, urlRefusal ?? 'Invalid URL', 'ERR_INVALID_URL')
    defineData(error, 'input', input, true)
    if (base !== undefined) defineData(error, 'base', base, true)
    return error
  }

  class URL {
    #record: UrlRecord
    #searchParams: object | null = null
    constructor(input: unknown, base: unknown = undefined) {
      if (arguments.length === 0) throw missingArguments('The "url" argument must be specified')
      const inputText = `${input as string}`
      const baseText = base === undefined ? undefined : `${base as string}`
      const record = parseWithHost(inputText, baseText)
      if (record === undefined) throw invalidUrl(inputText, baseText)
      this.#record = record
    }
    /** The URL takes `record`; its own `searchParams`, if read already, follows the new query. */
    #take(record: UrlRecord): void {
      this.#record = record
      if (this.#searchParams !== null) replaceQuery(this.#searchParams, record.search)
    }
    #set(member: UrlSetterMember, value: unknown): void {
      const record = updateWithHost(this.#record, member, `${value as string}`)
      if (record !== undefined) this.#take(record)
    }
    get href(): string {
      return URL.#recordOf(this).href
    }
    set href(value: unknown) {
      const url = URL.#check(this)
      const text = `${value as string}`
      const record = parseWithHost(text, undefined)
      if (record === undefined) throw invalidUrl(text, undefined)
      url.#take(record)
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
    get searchParams(): object {
      const url = URL.#check(this)
      if (url.#searchParams === null) {
        // The list is the source of the new query, so it is kept as it is (not parsed again).
        url.#searchParams = createLinked(url.#record.search, serializedQuery => {
          const record = updateWithHost(url.#record, 'search', serializedQuery)
          if (record !== undefined) url.#record = record
        })
      }
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
      if (typeof value !== 'object' || value === null || !(#record in value))
        throw new TypeErrorConstructor('Receiver must be an instance of class URL')
      return value
    }
    static #recordOf(value: unknown): UrlRecord {
      return URL.#check(value).#record
    }
  }

  setEnumerable(
    URL.prototype,
    'toString href origin protocol username password host hostname port pathname search searchParams hash toJSON',
  )
  setToStringTag(URL.prototype, 'URL')
  return frozenRecord({ URL })
}
