/**
 * In-context script `code-runtime:globals/text-codec`: `TextEncoder` and `TextDecoder` (UTF-8
 * only, as the Encoding standard and Node's small-ICU builds agree on), with Node's argument
 * checks, error codes and member shape.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'
import type { TextUnits } from './text-units.js'

/** The result of `TextEncoder.prototype.encodeInto`. */
export interface WebEncodeIntoResult {
  read: number
  written: number
}

export function createTextCodec(primordials: Primordials, errors: NodeErrors, units: TextUnits) {
  'use strict'
  const {
    charCodeAt,
    create,
    frozenRecord,
    hasOwn,
    setEnumerable,
    setToStringTag,
    stringSlice,
    typedArrayLength,
    typedArrayTag,
    Uint8ArrayConstructor,
    RangeErrorConstructor,
    TypeErrorConstructor,
  } = primordials
  const { codedError, describeReceived, invalidArgumentType, invalidThis } = errors
  const {
    bytesOf,
    codePointAt,
    decodeUtf8,
    encodeUtf8,
    finishBuilder,
    isAsciiWhitespace,
    newBuilder,
    newDecoderState,
    pushUnit,
    resetDecoderState,
    utf8ByteCount,
    writeCodePoint,
  } = units

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
      if (typeof source !== 'string')
        throw invalidArgumentType(`The "src" argument must be of type string. ${describeReceived(source)}`)
      if (typedArrayTag(destination) !== 'Uint8Array') {
        throw invalidArgumentType(
          `The "dest" argument must be an instance of Uint8Array. ${describeReceived(destination)}`,
        )
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
        throw codedError(
          RangeErrorConstructor,
          `The "${labelText}" encoding is not supported`,
          'ERR_ENCODING_NOT_SUPPORTED',
        )
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
        throw invalidArgumentType(
          'The "list" argument must be an instance of SharedArrayBuffer, ArrayBuffer or ArrayBufferView.',
        )
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
        throw codedError(
          TypeErrorConstructor,
          'The encoded data was not valid for encoding utf-8',
          'ERR_ENCODING_INVALID_ENCODED_DATA',
        )
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

  // The members Node shows as enumerable, and the tags.
  setEnumerable(TextEncoder.prototype, 'encoding encode encodeInto')
  setEnumerable(TextDecoder.prototype, 'encoding fatal ignoreBOM decode')
  setToStringTag(TextEncoder.prototype, 'TextEncoder')
  setToStringTag(TextDecoder.prototype, 'TextDecoder')
  return frozenRecord({ TextEncoder, TextDecoder })
}
