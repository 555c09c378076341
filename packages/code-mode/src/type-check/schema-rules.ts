/**
 * What a tool's input schema makes certain about an object literal, read the way the runtime's
 * validator (Ajv, before the tool runs) applies it. Keywords of one schema all apply together, so
 * `required`, `additionalProperties: false` and `type` of the schema a value sits under refuse it
 * whatever `anyOf`/`allOf` beside them say. Every answer errs towards "not certain": an unresolved
 * `$ref`, a pattern that does not compile or a boolean schema gives no rule.
 */
import type { JsonSchema } from '../tools/tool-definition.js'
import { isObjectRecord, unescapeJsonPointerSegment } from '@code-runtime/core/internal'

/** JSON's value kinds, as the schema keyword `type` names them (`integer` is one kind of `number`). */
export type JsonKind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'

const JSON_KINDS: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'])

function own(schema: JsonSchema, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) from `root`, a few steps at most. */
export function resolveSchema(schema: unknown, root: JsonSchema): JsonSchema | undefined {
  let current = schema
  for (let step = 0; step < 8; step++) {
    if (!isObjectRecord(current)) return undefined
    const reference = own(current, '$ref')
    if (reference === undefined) return current
    // Only the referenced schema is certain to apply: drafts disagree on the keywords beside `$ref`.
    if (typeof reference !== 'string' || !reference.startsWith('#')) return undefined
    let target: unknown = root
    for (const segment of reference.slice(1).split('/').slice(1)) {
      const key = unescapeJsonPointerSegment(decodeURIComponent(segment))
      target = isObjectRecord(target) && Object.hasOwn(target, key) ? target[key] : undefined
    }
    current = target
  }
  return undefined
}

/** The property names the schema requires. */
export function requiredNames(schema: JsonSchema): readonly string[] {
  const required = own(schema, 'required')
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : []
}

/** The schema of property `name`, when the schema declares it. */
export function propertySchema(schema: JsonSchema, name: string, root: JsonSchema): JsonSchema | undefined {
  const properties = own(schema, 'properties')
  return isObjectRecord(properties) && Object.hasOwn(properties, name)
    ? resolveSchema(properties[name], root)
    : undefined
}

/**
 * True when the validator certainly refuses a property `name` here: `additionalProperties: false`
 * and neither `properties` nor a `patternProperties` pattern admits it.
 */
export function refusesProperty(schema: JsonSchema, name: string): boolean {
  if (own(schema, 'additionalProperties') !== false) return false
  const properties = own(schema, 'properties')
  if (isObjectRecord(properties) && Object.hasOwn(properties, name)) return false
  const patterns = own(schema, 'patternProperties')
  if (patterns === undefined) return true
  if (!isObjectRecord(patterns)) return false
  for (const pattern of Object.keys(patterns)) {
    try {
      if (new RegExp(pattern, 'u').test(name)) return false
    } catch {
      return false
    }
  }
  return true
}

/** The schema for each item of an array (`items` as one schema), when there is one. */
export function itemSchema(schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  const items = own(schema, 'items')
  return isObjectRecord(items) ? resolveSchema(items, root) : undefined
}

/** The kinds `type` allows (with `nullable: true` adding null), or undefined when any kind may pass. */
export function allowedKinds(schema: JsonSchema): ReadonlySet<JsonKind> | undefined {
  const type = own(schema, 'type')
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined
  if (
    names === undefined ||
    names.length === 0 ||
    !names.every(name => typeof name === 'string' && JSON_KINDS.has(name))
  )
    return undefined
  const kinds = new Set(names.map(name => (name === 'integer' ? 'number' : name) as JsonKind))
  if (own(schema, 'nullable') === true) kinds.add('null')
  return kinds
}

/** The primitive values `enum` or `const` allows, or undefined when it does not restrict to primitives. */
export function allowedPrimitives(schema: JsonSchema): readonly (string | number | boolean | null)[] | undefined {
  const values = Object.hasOwn(schema, 'const') ? [schema['const']] : own(schema, 'enum')
  if (!Array.isArray(values)) return undefined
  // An enum with an object or array in it could match a value only a deep comparison tells.
  if (!values.every(value => value === null || ['string', 'number', 'boolean'].includes(typeof value))) return undefined
  return values as (string | number | boolean | null)[]
}
