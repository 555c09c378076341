/**
 * In-context script `code-runtime:globals/text-units`: the string and byte plumbing several web
 * globals share (TextEncoder/TextDecoder, URLSearchParams, crypto): strings built from UTF-16
 * code units in chunks, code points and lone surrogates, WebIDL USVString conversion, hex digits,
 * and the WHATWG UTF-8 encoder and decoder.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the {@link Primordials} it is given.
 */
import type { Primordials } from '../primordials.js'

/** The WHATWG UTF-8 decoder's state, kept between streaming `decode` calls. */
export interface Utf8DecoderState {
  needed: number
  seen: number
  codePoint: number
  lower: number
  upper: number
}

/** A string assembled from UTF-16 code units in chunks (one `fromCharCode` call per chunk). */
export interface CodeUnitBuilder {
  units: number[]
  text: string
}

export function createTextUnits(primordials: Primordials) {
  'use strict'
  const {
    apply,
    charCodeAt,
    create,
    fromCharCode,
    frozenRecord,
    newList,
    isView,
    Uint8ArrayConstructor,
    typedArrayTag,
    typedArrayBuffer,
    typedArrayByteOffset,
    typedArrayByteLength,
    dataViewBuffer,
    dataViewByteOffset,
    dataViewByteLength,
    arrayBufferByteLength,
    sharedArrayBufferByteLength,
  } = primordials

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
  function decodeUtf8(
    state: Utf8DecoderState,
    bytes: ArrayLike<number>,
    length: number,
    flush: boolean,
    fatal: boolean,
  ): string | undefined {
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
        return new Uint8ArrayConstructor(
          typedArrayBuffer(input),
          typedArrayByteOffset(input),
          typedArrayByteLength(input),
        )
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

  function isAsciiWhitespace(unit: number): boolean {
    return unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d || unit === 0x20
  }

  return frozenRecord({
    newBuilder,
    pushUnit,
    pushCodePoint,
    finishBuilder,
    codePointAt,
    toUSVString,
    isAsciiWhitespace,
    HEX_DIGITS,
    hexDigitValue,
    utf8ByteCount,
    writeCodePoint,
    encodeUtf8,
    newDecoderState,
    resetDecoderState,
    decodeUtf8,
    bytesOf,
  })
}

/** The record {@link createTextUnits} returns. */
export type TextUnits = ReturnType<typeof createTextUnits>
