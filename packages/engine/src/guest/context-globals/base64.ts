/**
 * In-context script `code-runtime:globals/base64`: `atob` and `btoa` (HTML's forgiving-base64),
 * with the DOMException names and messages Node gives.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'
import type { TextUnits } from './text-units.js'

export function createBase64(primordials: Primordials, errors: NodeErrors, units: TextUnits) {
  'use strict'
  const { charCodeAt, frozenRecord, Int8ArrayConstructor } = primordials
  const { DOMException, missingArguments } = errors
  const { finishBuilder, isAsciiWhitespace, newBuilder, pushUnit } = units

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
      if (equals > 0 && (significant % 4 === 0 || (significant % 4) + equals !== 4))
        throw invalidCharacter('Invalid character')
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
  return frozenRecord({ atob: base64Functions.atob, btoa: base64Functions.btoa })
}
