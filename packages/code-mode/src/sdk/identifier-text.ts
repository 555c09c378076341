/**
 * Turning arbitrary text (tool names, `$defs` keys, property names) into ASCII identifiers, the
 * one spelling every language a program may be written in accepts.
 */

/** Property names that need no quotes in a TypeScript type literal. */
const BARE_PROPERTY_NAME_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** Letters that Unicode decomposition leaves alone but that have a common ASCII spelling. */
const TRANSLITERATIONS: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['æ', 'ae'],
  ['Æ', 'AE'],
  ['œ', 'oe'],
  ['Œ', 'OE'],
  ['ø', 'o'],
  ['Ø', 'O'],
  ['ł', 'l'],
  ['Ł', 'L'],
  ['đ', 'd'],
  ['Đ', 'D'],
  ['ð', 'd'],
  ['Ð', 'D'],
  ['þ', 'th'],
  ['Þ', 'Th'],
  ['ı', 'i'],
])

const COMBINING_MARK_PATTERN = /\p{M}/u
const SEPARATOR_RUN_PATTERN = /[^A-Za-z0-9_]+/

/**
 * Rewrites text to ASCII: accents are dropped (`é` → `e`), a few letters are spelled out
 * (`ß` → `ss`), and any other character becomes a word of its own, `u` and its code point in hex
 * (`文` → ` u6587 `), so distinct scripts stay distinct instead of collapsing to `_`.
 */
function transliterate(text: string): string {
  let ascii = ''
  for (const character of text.normalize('NFKD')) {
    const codePoint = character.codePointAt(0) ?? 0
    if (codePoint < 0x80) ascii += character
    else if (COMBINING_MARK_PATTERN.test(character)) continue
    else ascii += TRANSLITERATIONS.get(character) ?? ` u${codePoint.toString(16)} `
  }
  return ascii
}

/**
 * The words of `text` joined by `_`: every run of characters that cannot be in an identifier
 * becomes one `_`, except at either end, where it is dropped. May be empty or start with a digit.
 */
export function toIdentifierWords(text: string): string {
  const words = transliterate(text)
    .split(SEPARATOR_RUN_PATTERN)
    .filter(word => word !== '')
  let joined = ''
  for (const word of words) {
    const needsSeparator = joined !== '' && !joined.endsWith('_') && !word.startsWith('_')
    joined += needsSeparator ? `_${word}` : word
  }
  return joined
}

/** True when `name` can be written bare as a property of a TypeScript type literal. */
export function isBarePropertyName(name: string): boolean {
  return BARE_PROPERTY_NAME_PATTERN.test(name)
}

/**
 * `read_file` → `ReadFile`, `entity-type` → `EntityType`, `getUser` → `GetUser`. Starts with a
 * letter (`T` is put before a leading digit); empty when the text has no letters or digits.
 */
export function toPascalCase(text: string): string {
  const pascal = toIdentifierWords(text)
    .split('_')
    .filter(word => word !== '')
    .map(word => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')
  return /^[0-9]/.test(pascal) ? `T${pascal}` : pascal
}

/**
 * The singular of an English plural at the end of a name (`entities` → `entity`,
 * `excludePatterns` → `excludePattern`), or `undefined` when the word does not look plural.
 * Used only to name the element type of an array property, so a wrong guess costs nothing.
 */
export function singularNoun(word: string): string | undefined {
  if (/[^aeiou]ies$/i.test(word)) return `${word.slice(0, -3)}y`
  if (/(?:ss|sh|ch|x|z)es$/i.test(word)) return word.slice(0, -2)
  if (/[^isu]s$/i.test(word) && word.length > 3) return word.slice(0, -1)
  return undefined
}
