/**
 * What a schema says beyond its type, as JSDoc: its description and compact tags for defaults,
 * examples, formats and limits (`@default 10`, `@format uri`, `@minimum 1`).
 */
import type { JsonSchema } from '../tools/tool-definition.js'
import type { TypeDoc } from './type-node.js'

/** Longer tag values are cut: a tag hints at a value, the schema still checks it. */
const MAX_TAG_VALUE_CHARS = 100
/** At most this many `@example` tags per schema. */
const MAX_EXAMPLES = 3

/** Keywords rendered as `@keyword value`, in this order. */
const LIMIT_KEYWORDS = [
  'format',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'contentMediaType',
  'contentEncoding',
] as const

/**
 * Limits that only restate what a JSON number can hold anyway. Zod writes them for every
 * `.int()`, so keeping them would add noise to every integer in the SDK.
 */
const VACUOUS_LIMITS: ReadonlyMap<string, number> = new Map([
  ['minimum', Number.MIN_SAFE_INTEGER],
  ['maximum', Number.MAX_SAFE_INTEGER],
])

/** A keyword of `schema` when it is the schema's own property, so `constructor` reads nothing. */
export function ownKeyword(schema: JsonSchema, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined
}

function cut(text: string): string {
  return text.length > MAX_TAG_VALUE_CHARS ? `${text.slice(0, MAX_TAG_VALUE_CHARS - 3)}...` : text
}

/** A JSON value as tag text, or `undefined` for a value JSON cannot show. */
function formatJsonValue(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value) as string | undefined
    return text === undefined ? undefined : cut(text)
  } catch {
    return undefined
  }
}

/** Strings show bare (`@format uri`) unless they hold a line break, which would end the tag. */
function formatKeywordValue(value: unknown): string | undefined {
  if (typeof value === 'string') return /[\r\n\u2028\u2029]/.test(value) ? formatJsonValue(value) : cut(value)
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean') return String(value)
  return undefined
}

function isIntegerSchema(schema: JsonSchema): boolean {
  const type = ownKeyword(schema, 'type')
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'))
}

function limitTags(schema: JsonSchema): string[] {
  const tags: string[] = []
  for (const keyword of LIMIT_KEYWORDS) {
    const value = ownKeyword(schema, keyword)
    if (value === undefined || VACUOUS_LIMITS.get(keyword) === value) continue
    const text = formatKeywordValue(value)
    // Draft-04 writes `exclusiveMinimum: true` to qualify `minimum`: a bare tag says it.
    if (text === 'true') tags.push(`@${keyword}`)
    else if (text !== undefined && text !== 'false') tags.push(`@${keyword} ${text}`)
  }
  if (ownKeyword(schema, 'uniqueItems') === true) tags.push('@uniqueItems')
  return tags
}

function exampleTags(schema: JsonSchema): string[] {
  const examples = ownKeyword(schema, 'examples')
  const single = ownKeyword(schema, 'example')
  const values = Array.isArray(examples) ? examples.slice(0, MAX_EXAMPLES) : single === undefined ? [] : [single]
  return values.flatMap(value => {
    const text = formatJsonValue(value)
    return text === undefined ? [] : [`@example ${text}`]
  })
}

/** Lower case letters and digits only, to compare a title with the name it merely restates. */
function looseName(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '')
}

/**
 * The description to show: `description`, else a `title` that says more than the property name
 * (generators such as Pydantic title every property `Path` for `path`, which tells nothing).
 */
function pickDescription(schema: JsonSchema, propertyName: string | undefined): string | undefined {
  const description = ownKeyword(schema, 'description')
  if (typeof description === 'string' && description.trim() !== '') return description
  const title = ownKeyword(schema, 'title')
  if (typeof title !== 'string' || title.trim() === '') return undefined
  if (propertyName !== undefined && looseName(title) === looseName(propertyName)) return undefined
  return title
}

/**
 * The JSDoc for a property or named type described by `schema`, or `undefined` when the schema
 * says nothing worth a comment.
 * @param propertyName the property the schema describes, so a title that only repeats it is dropped.
 */
export function describeSchema(schema: unknown, propertyName?: string): TypeDoc | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined
  const record = schema as JsonSchema
  const tags: string[] = []
  if (isIntegerSchema(record)) tags.push('@integer')
  tags.push(...limitTags(record))
  const defaultText = Object.hasOwn(record, 'default') ? formatJsonValue(record.default) : undefined
  if (defaultText !== undefined) tags.push(`@default ${defaultText}`)
  tags.push(...exampleTags(record))
  if (ownKeyword(record, 'deprecated') === true) tags.push('@deprecated')
  const description = pickDescription(record, propertyName)
  if (description === undefined && tags.length === 0) return undefined
  return description === undefined ? { tags } : { description, tags }
}
