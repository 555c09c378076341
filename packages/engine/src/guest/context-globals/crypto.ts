/**
 * In-context script `code-runtime:globals/crypto`: the `crypto` object (`getRandomValues`,
 * `randomUUID`), whose randomness comes from the substrate realm's CSPRNG through the
 * {@link RandomHost} as hex text, checked before use.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the records it is given.
 */
import type { Primordials } from '../primordials.js'
import type { NodeErrors } from './node-errors.js'
import type { TextUnits } from './text-units.js'

/** The substrate-realm randomness services. Primitives in, primitives out; never throws. */
export interface RandomHost {
  /** `length` (0..65536) cryptographically random bytes as a lowercase hex string. */
  randomBytesHex(length: number): string
  /** A random version 4 UUID, lowercase. */
  randomUUID(): string
}

export function createCrypto(primordials: Primordials, errors: NodeErrors, units: TextUnits, host: RandomHost) {
  'use strict'
  // Host services: local constants only, called directly, never stored on or passed to anything.
  const { randomBytesHex, randomUUID: hostRandomUUID } = host
  const {
    charCodeAt,
    freeze,
    frozenRecord,
    hasOwn,
    setToStringTag,
    typedArrayBuffer,
    typedArrayConstructors,
    typedArrayByteLength,
    typedArrayByteOffset,
    typedArraySet,
    typedArrayTag,
    Uint8ArrayConstructor,
  } = primordials
  const { DOMException, hostFailure, missingArguments } = errors
  const { hexDigitValue } = units

  /** Whether `crypto.getRandomValues` fills a typed array of this tag: the integer ones. */
  function isIntegerTypedArray(tag: string | undefined): boolean {
    return tag !== undefined && hasOwn(typedArrayConstructors, tag) && tag !== 'Float32Array' && tag !== 'Float64Array'
  }
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
      if (isDash ? unit !== 0x2d : !((unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x66)))
        throw hostFailure('crypto.randomUUID')
    }
    return uuid
  }

  const MAX_RANDOM_BYTES = 65536
  const crypto = {
    getRandomValues<T extends ArrayBufferView>(array: T): T {
      if (arguments.length === 0)
        throw missingArguments(
          "Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.",
        )
      const tag = typedArrayTag(array)
      if (!isIntegerTypedArray(tag)) {
        throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError')
      }
      const byteLength = typedArrayByteLength(array)
      if (byteLength > MAX_RANDOM_BYTES)
        throw new DOMException('The requested length exceeds 65,536 bytes', 'QuotaExceededError')
      const random = readRandomBytes(byteLength)
      typedArraySet(new Uint8ArrayConstructor(typedArrayBuffer(array), typedArrayByteOffset(array), byteLength), random)
      return array
    },
    randomUUID(): string {
      return readRandomUUID()
    },
  }
  setToStringTag(crypto, 'Crypto')
  freeze(crypto)
  return frozenRecord({ crypto })
}
