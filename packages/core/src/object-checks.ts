/**
 * The two questions every package asks of a value it did not make, each asked one way: is it an
 * object to read fields from (`isObjectRecord`), and is it a plain object of data, as JSON or an
 * object literal makes it (`isPlainObject`). Values cross `vm` realms here, so neither compares a
 * prototype with this realm's `Object.prototype`.
 */

/**
 * True for any object that is not an array (class instances, Maps and Dates included): what a
 * field must be before its own properties are read.
 * @example isObjectRecord({ type: 'string' }) // true; isObjectRecord([1]) // false
 */
export function isObjectRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * True for `{...}` and `Object.create(null)` objects of any realm: an object whose prototype is
 * `null` or a prototype that has none itself. A Map, a Date or a class instance is not, so its
 * contents are never read as fields by mistake.
 * @example isPlainObject({ a: 1 }) // true; isPlainObject(new Map()) // false
 */
export function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (!isObjectRecord(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}
