/** Built-ins that make one array entry per piece of a string: split, matching, replacing, JSON.parse. */
import {
  ObjectConstructor,
  defineProperty,
  apply,
  reflectGet,
  NumberConstructor,
  trunc,
  min,
  indexOfIn,
  type Native,
} from './intrinsics.js'
import { maxLength, refuseText } from './sandbox-limits.js'
import { copyOf, toText, requireCoercible } from './spec-operations.js'

export function installTextGuards(): void {
  // --- Results as long as a string or a typed array --------------------------------------------
  // A string can hold 2^29 characters and a typed array as many elements as its buffer: one
  // array entry per character or element is past V8's fixed-array maximum, and V8 aborts the
  // process instead of throwing.
  const stringSplit = String.prototype.split
  const splitSymbol = Symbol.split
  function toUint32(value: unknown): number {
    const number = NumberConstructor(value)
    if (number !== number || number === Infinity || number === -Infinity) return 0
    const integer = trunc(number) % 4294967296
    return integer < 0 ? integer + 4294967296 : integer
  }
  /** Pieces `text.split(separator)` yields, counting no further than `limit`. */
  function countPieces(text: string, separator: string, limit: number): number {
    if (separator === '') return min(text.length, limit)
    let pieces = 1
    let at = indexOfIn(text, separator, 0)
    while (at !== -1 && pieces < limit) {
      pieces++
      at = indexOfIn(text, separator, at + separator.length)
    }
    return pieces
  }
  // The spec's String.prototype.split, with the native method left only the string case, on
  // primitives it cannot convert a second time.
  const splitMethods = {
    split(this: unknown, separator: unknown, limit: unknown): unknown {
      const object = requireCoercible(this, 'split', 'String.prototype')
      if (separator !== undefined && separator !== null) {
        const splitter: unknown = reflectGet(ObjectConstructor(separator) as object, splitSymbol, separator)
        if (splitter !== undefined && splitter !== null) return apply(splitter as Native, separator, [object, limit])
      }
      const text = toText(object)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      const separatorText = separator === undefined ? undefined : toText(separator)
      if (separatorText !== undefined && limitNumber > maxLength && text.length >= maxLength) {
        const pieces = countPieces(text, separatorText, maxLength + 1)
        if (pieces > maxLength)
          refuseText(
            'String.prototype.split',
            text.length,
            maxLength,
            'It makes more pieces than that: pass a limit or split a smaller string.',
          )
      }
      return apply(stringSplit, text, [separatorText, limitNumber])
    },
  }
  defineProperty(splitMethods.split, 'length', { value: 2, configurable: true })
  defineProperty(String.prototype, 'split', {
    value: splitMethods.split,
    writable: true,
    configurable: true,
    enumerable: false,
  })

  // A regular expression can split a string at every character; how many pieces it makes is only
  // known by running it, so a string longer than the limit must give a limit or a plain separator.
  const RegExpPrototype = RegExp.prototype as unknown as Record<symbol, Native>
  const regExpSplit = RegExpPrototype[splitSymbol] as Native
  const regExpMethods = {
    [splitSymbol](this: unknown, string: unknown, limit: unknown): unknown {
      const text = toText(string)
      const limitNumber = limit === undefined ? 4294967295 : toUint32(limit)
      if (text.length >= maxLength && limitNumber > maxLength) {
        refuseText(
          'Splitting with a regular expression',
          text.length,
          maxLength,
          'Pass a limit, split on a plain string, or split a smaller string.',
        )
      }
      return apply(regExpSplit, this, [text, limitNumber])
    },
  }
  defineProperty(regExpMethods[splitSymbol], 'length', { value: 2, configurable: true })
  defineProperty(RegExpPrototype, splitSymbol, {
    value: regExpMethods[splitSymbol],
    writable: true,
    configurable: true,
    enumerable: false,
  })

  // Matching or replacing every occurrence collects them all in native code first: on a string
  // longer than the limit, one per character is past what a thread can stop or hold.
  function guardRegExpText(symbol: symbol, what: string): void {
    const native = RegExpPrototype[symbol] as Native
    const methods = {
      [symbol](this: unknown, string: unknown, ...rest: unknown[]): unknown {
        const text = toText(string)
        if (text.length > maxLength) refuseText(what, text.length, maxLength, 'Work on smaller pieces of the string.')
        return apply(native, this, copyOf(rest, text))
      },
    }
    defineProperty(methods[symbol], 'length', { value: native.length, configurable: true })
    defineProperty(RegExpPrototype, symbol, {
      value: methods[symbol],
      writable: true,
      configurable: true,
      enumerable: false,
    })
  }
  guardRegExpText(Symbol.match, 'Matching a regular expression')
  guardRegExpText(Symbol.replace, 'Replacing with a regular expression')

  // replaceAll with a plain string collects every occurrence first, like a global replace.
  const stringReplaceAll = String.prototype.replaceAll
  const replaceAllMethods = {
    replaceAll(this: unknown, searchValue: unknown, replaceValue: unknown): unknown {
      const object = requireCoercible(this, 'replaceAll', 'String.prototype')
      // A regular expression (or anything with its own replacer) goes through Symbol.replace, guarded above.
      if (
        searchValue !== undefined &&
        searchValue !== null &&
        (typeof searchValue === 'object' || typeof searchValue === 'function')
      ) {
        return apply(stringReplaceAll, object, [searchValue, replaceValue])
      }
      const text = toText(object)
      const search = toText(searchValue)
      if (text.length > maxLength) {
        const occurrences = countPieces(text, search, maxLength + 2) - 1
        if (occurrences > maxLength)
          refuseText('String.prototype.replaceAll', text.length, maxLength, 'Replace in smaller pieces of the string.')
      }
      return apply(stringReplaceAll, text, [search, replaceValue])
    },
  }
  defineProperty(replaceAllMethods.replaceAll, 'length', { value: 2, configurable: true })
  defineProperty(String.prototype, 'replaceAll', {
    value: replaceAllMethods.replaceAll,
    writable: true,
    configurable: true,
    enumerable: false,
  })

  // JSON.parse runs in native code from the first character to the last, and an array in the text
  // becomes one fixed array: two characters per element at least.
  const jsonParse = JSON.parse
  const maxJsonText = maxLength * 2
  const jsonMethods = {
    parse(text: unknown, reviver?: unknown): unknown {
      const source = toText(text)
      if (source.length > maxJsonText) refuseText('JSON.parse', source.length, maxJsonText, 'Parse smaller documents.')
      return reviver === undefined
        ? jsonParse(source)
        : jsonParse(source, reviver as (key: string, value: unknown) => unknown)
    },
  }
  defineProperty(jsonMethods.parse, 'length', { value: 2, configurable: true })
  defineProperty(JSON, 'parse', { value: jsonMethods.parse, writable: true, configurable: true, enumerable: false })
}
