/**
 * JSON Schema → type nodes. Reads one schema document keyword by keyword and never throws: what
 * TypeScript cannot say becomes `unknown` with a note, and keywords it does not know are ignored.
 *
 * Conventions, chosen for what a model should write rather than everything a validator accepts:
 * an object lists only its declared properties unless `additionalProperties` or
 * `patternProperties` open it (or it declares nothing at all), and a tuple has exactly its listed
 * items unless `items`/`additionalItems` allow more.
 */
import { resolveLocalReference, type UnresolvedReason } from './json-pointer.js'
import { toPascalCase } from './identifier-text.js'
import { describeSchema, ownKeyword } from './schema-annotations.js'
import type { JsonSchema } from '../tools/tool-definition.js'
import {
  intersectionOf,
  keywordType,
  NEVER_TYPE,
  NULL_TYPE,
  unionOf,
  UNKNOWN_TYPE,
  unknownType,
  type IndexSignatureNode,
  type PropertyNode,
  type TypeDoc,
  type TypeNode,
} from './type-node.js'
import { isObjectRecord } from '@code-runtime/core/internal'

/** Deeper nesting than this becomes `unknown`: real schemas stay far below, hostile ones stop here. */
const MAX_SCHEMA_DEPTH = 64

const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties', 'required'] as const
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems'] as const

/** Keywords with no TypeScript form, and the note left where a schema used only them. */
const UNEXPRESSIBLE_KEYWORDS: ReadonlyArray<readonly [string, string]> = [
  ['not', '"not" has no TypeScript form'],
  ['if', 'if/then/else has no TypeScript form'],
  ['$dynamicRef', '$dynamicRef is not resolved'],
]

/** Pointer segments that name a place in a schema rather than a thing worth naming a type after. */
const STRUCTURAL_SEGMENTS: ReadonlySet<string> = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
])

/** Containers whose keys are names chosen by the schema's author. */
const NAMING_CONTAINERS: ReadonlySet<string> = new Set(['$defs', 'definitions', 'properties', 'patternProperties'])

/** A named type a schema needs: a `$defs` entry, or any other target of a `$ref`. */
export interface SchemaDefinition {
  /** Unique across documents: the document key, `#` and the JSON Pointer. */
  readonly key: string
  /** The name the type would like to have; the SDK makes names unique later. */
  readonly preferredName: string
  readonly body: TypeNode
  readonly doc?: TypeDoc
}

export interface ReadSchema {
  /** The type of the whole schema; a reference when the schema refers to itself with `#`. */
  readonly root: TypeNode
  /** The named types `root` needs, in the order they were first referred to. */
  readonly definitions: readonly SchemaDefinition[]
}

export interface SchemaReadOptions {
  /** Prefix of definition keys; distinct for each document read into one SDK. */
  readonly documentKey: string
  /** The name of the root type when the schema refers to itself. */
  readonly rootName: string
}

function isString(value: unknown): value is string {
  return typeof value === 'string'
}

/** The value of a `const` or `enum` entry as a literal type: `"a"`, `3`, `{ kind: "x" }`. */
function literalType(value: unknown, depth: number): TypeNode {
  if (value === null) return NULL_TYPE
  if (typeof value === 'string' || typeof value === 'boolean') return { kind: 'literal', value }
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? { kind: 'literal', value: Object.is(value, -0) ? 0 : value }
      : unknownType('not a JSON number')
  }
  if (depth > MAX_SCHEMA_DEPTH) return unknownType('nested too deep')
  if (Array.isArray(value)) {
    return {
      kind: 'tuple',
      elements: value.map((item: unknown) => ({ type: literalType(item, depth + 1), isOptional: false })),
    }
  }
  if (isObjectRecord(value)) {
    const properties = Object.keys(value).map(name => ({
      name,
      isOptional: false,
      type: literalType(value[name], depth + 1),
    }))
    return { kind: 'object', properties }
  }
  return unknownType('not a JSON value')
}

function unresolvedReferenceType(reference: string, reason: UnresolvedReason): TypeNode {
  const shown = reference.length > 60 ? `${reference.slice(0, 57)}...` : reference
  switch (reason) {
    case 'remote':
      return unknownType(`$ref ${shown} is remote`)
    case 'anchor':
      return unknownType(`$ref ${shown}: anchors are not resolved`)
    case 'missing':
      return unknownType(`$ref ${shown} not found`)
    case 'malformed':
      return unknownType(`$ref ${shown} is malformed`)
  }
}

/** What to call the type at `segments`: the nearest name an author chose, else the root's name. */
function preferredDefinitionName(segments: readonly string[], rootName: string): string {
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index] as string
    const isChosenName = NAMING_CONTAINERS.has(segments[index - 1] ?? '')
    if (!isChosenName && (STRUCTURAL_SEGMENTS.has(segment) || /^[0-9]+$/.test(segment))) continue
    const name = toPascalCase(segment)
    if (name !== '') return name
  }
  return segments.length === 0 ? rootName : `${rootName}Part`
}

/** Reads one schema document; `$ref` targets are queued and read once each, never recursively. */
class SchemaDocumentReader {
  readonly #document: unknown
  readonly #options: SchemaReadOptions
  /** Targets referred to so far, by key, in the order first seen. */
  readonly #queued = new Map<
    string,
    { readonly pointer: string; readonly segments: readonly string[]; readonly target: unknown }
  >()

  constructor(document: unknown, options: SchemaReadOptions) {
    this.#document = document
    this.#options = options
  }

  read(): ReadSchema {
    const rootNode = this.#readSchema(this.#document, 0)
    const definitions: SchemaDefinition[] = []
    // The queue grows while it is read: a definition may refer to further ones.
    for (const [key, { pointer, segments, target }] of this.#queued) {
      const body = pointer === '' ? rootNode : this.#readSchema(target, 0)
      const doc = describeSchema(target)
      const definition = { key, preferredName: preferredDefinitionName(segments, this.#options.rootName), body }
      definitions.push(doc === undefined ? definition : { ...definition, doc })
    }
    const rootKey = this.#keyOf('')
    return { root: this.#queued.has(rootKey) ? { kind: 'reference', key: rootKey } : rootNode, definitions }
  }

  #keyOf(pointer: string): string {
    return `${this.#options.documentKey}#${pointer}`
  }

  #readSchema(schema: unknown, depth: number): TypeNode {
    if (schema === true) return UNKNOWN_TYPE
    if (schema === false) return NEVER_TYPE
    if (!isObjectRecord(schema)) return unknownType('not a schema')
    if (depth > MAX_SCHEMA_DEPTH) return unknownType('nested too deep')
    const node = this.#readKeywords(schema, depth)
    // OpenAPI's spelling of "or null".
    return ownKeyword(schema, 'nullable') === true ? unionOf([node, NULL_TYPE]) : node
  }

  #readKeywords(schema: JsonSchema, depth: number): TypeNode {
    const reference = ownKeyword(schema, '$ref') ?? ownKeyword(schema, '$recursiveRef')
    if (isString(reference)) return this.#readReference(reference)
    if (Object.hasOwn(schema, 'const')) return literalType(schema.const, depth)
    const enumValues = ownKeyword(schema, 'enum')
    if (Array.isArray(enumValues)) return unionOf(enumValues.map((value: unknown) => literalType(value, depth)))
    const combined = this.#readCombinators(schema, depth)
    const base = this.#readTypeKeywords(schema, depth)
    if (base === undefined && combined.length === 0) {
      const unexpressible = UNEXPRESSIBLE_KEYWORDS.find(([keyword]) => Object.hasOwn(schema, keyword))
      return unknownType(unexpressible?.[1])
    }
    if (combined.length === 0) return (base as { readonly node: TypeNode }).node
    // `type: "object"` beside `oneOf` of object shapes only restates them; keep the shapes.
    if (base === undefined || base.isTypeOnly) return intersectionOf(combined)
    return intersectionOf([base.node, ...combined])
  }

  #readReference(reference: string): TypeNode {
    const resolved = resolveLocalReference(this.#document, reference)
    if (!resolved.ok) return unresolvedReferenceType(reference, resolved.error)
    const key = this.#keyOf(resolved.value.pointer)
    if (!this.#queued.has(key)) this.#queued.set(key, resolved.value)
    return { kind: 'reference', key }
  }

  /** `anyOf`/`oneOf` as unions and `allOf` members, leaving out parts that constrain nothing here. */
  #readCombinators(schema: JsonSchema, depth: number): TypeNode[] {
    const parts: TypeNode[] = []
    for (const keyword of ['anyOf', 'oneOf']) {
      const members = ownKeyword(schema, keyword)
      if (Array.isArray(members) && members.length > 0) {
        parts.push(unionOf(members.map((member: unknown) => this.#readSchema(member, depth + 1))))
      }
    }
    const allOf = ownKeyword(schema, 'allOf')
    if (Array.isArray(allOf)) parts.push(...allOf.map((member: unknown) => this.#readSchema(member, depth + 1)))
    return parts.filter(part => part.kind !== 'unknown')
  }

  /** The type from `type` (or implied by object or array keywords), or `undefined` when there is none. */
  #readTypeKeywords(
    schema: JsonSchema,
    depth: number,
  ): { readonly node: TypeNode; readonly isTypeOnly: boolean } | undefined {
    const declared = ownKeyword(schema, 'type')
    const hasObjectKeywords = OBJECT_KEYWORDS.some(keyword => Object.hasOwn(schema, keyword))
    const hasArrayKeywords = ARRAY_KEYWORDS.some(keyword => Object.hasOwn(schema, keyword))
    const isTypeOnly = !hasObjectKeywords && !hasArrayKeywords
    let typeNames: string[]
    if (isString(declared)) typeNames = [declared]
    else if (Array.isArray(declared)) typeNames = declared.filter(isString)
    else if (declared !== undefined) return { node: unknownType('"type" is malformed'), isTypeOnly }
    else typeNames = hasObjectKeywords ? ['object'] : hasArrayKeywords ? ['array'] : []
    if (typeNames.length === 0) return undefined
    return { node: unionOf(typeNames.map(name => this.#readTypeName(name, schema, depth))), isTypeOnly }
  }

  #readTypeName(typeName: string, schema: JsonSchema, depth: number): TypeNode {
    switch (typeName) {
      case 'string':
        return keywordType('string')
      case 'number':
      case 'integer':
        return keywordType('number')
      case 'boolean':
        return keywordType('boolean')
      case 'null':
        return NULL_TYPE
      case 'object':
        return this.#readObject(schema, depth)
      case 'array':
        return this.#readArray(schema, depth)
      case 'any':
        return UNKNOWN_TYPE
      default:
        return unknownType(`type ${JSON.stringify(typeName)} is not JSON Schema`)
    }
  }

  #readObject(schema: JsonSchema, depth: number): TypeNode {
    const declared = ownKeyword(schema, 'properties')
    const properties = isObjectRecord(declared) ? declared : undefined
    const requiredList = ownKeyword(schema, 'required')
    const required = new Set(Array.isArray(requiredList) ? requiredList.filter(isString) : [])
    const nodes: PropertyNode[] = []
    for (const name of properties === undefined ? [] : Object.keys(properties)) {
      const propertySchema = (properties as JsonSchema)[name]
      const doc = describeSchema(propertySchema, name)
      const node = { name, isOptional: !required.has(name), type: this.#readSchema(propertySchema, depth + 1) }
      nodes.push(doc === undefined ? node : { ...node, doc })
    }
    // A name that is required but not described is still a property the caller must pass.
    for (const name of required) {
      if (properties === undefined || !Object.hasOwn(properties, name))
        nodes.push({ name, isOptional: false, type: UNKNOWN_TYPE })
    }
    const declaresNothing = properties === undefined && required.size === 0
    const index = this.#readIndexSignature(schema, depth, nodes, declaresNothing)
    return index === undefined ? { kind: 'object', properties: nodes } : { kind: 'object', properties: nodes, index }
  }

  #readIndexSignature(
    schema: JsonSchema,
    depth: number,
    properties: readonly PropertyNode[],
    declaresNothing: boolean,
  ): IndexSignatureNode | undefined {
    const additional = ownKeyword(schema, 'additionalProperties')
    const patternSchemas = ownKeyword(schema, 'patternProperties')
    const patterns = isObjectRecord(patternSchemas) ? Object.keys(patternSchemas) : []
    const valueTypes: TypeNode[] = []
    if (additional === true || (additional === undefined && declaresNothing && patterns.length === 0)) {
      valueTypes.push(UNKNOWN_TYPE)
    } else if (isObjectRecord(additional)) {
      valueTypes.push(this.#readSchema(additional, depth + 1))
    }
    const isOpenToAnyKey = valueTypes.length > 0
    for (const pattern of patterns)
      valueTypes.push(this.#readSchema((patternSchemas as JsonSchema)[pattern], depth + 1))
    if (valueTypes.length === 0) return undefined
    // TypeScript requires every declared property to fit the index signature's type.
    const fitting =
      properties.length === 0
        ? []
        : [
            ...properties.map(property => property.type),
            ...(properties.some(property => property.isOptional) ? [keywordType('undefined')] : []),
          ]
    const type = unionOf([...valueTypes, ...fitting])
    if (isOpenToAnyKey || patterns.length === 0) return { type }
    return {
      type,
      doc: { description: `Keys match ${patterns.map(pattern => `/${pattern}/`).join(' or ')}.`, tags: [] },
    }
  }

  #readArray(schema: JsonSchema, depth: number): TypeNode {
    const prefixItems = ownKeyword(schema, 'prefixItems')
    const items = ownKeyword(schema, 'items')
    if (Array.isArray(prefixItems)) return this.#readTuple(schema, prefixItems, items, depth)
    if (Array.isArray(items)) return this.#readTuple(schema, items, ownKeyword(schema, 'additionalItems'), depth)
    return { kind: 'array', element: items === undefined ? UNKNOWN_TYPE : this.#readSchema(items, depth + 1) }
  }

  #readTuple(schema: JsonSchema, itemSchemas: readonly unknown[], restSchema: unknown, depth: number): TypeNode {
    const minItems = ownKeyword(schema, 'minItems')
    // Without `minItems` every listed item is taken as expected; past it they are optional.
    const requiredCount = typeof minItems === 'number' ? minItems : itemSchemas.length
    const elements = itemSchemas.map((itemSchema, position) => ({
      type: this.#readSchema(itemSchema, depth + 1),
      isOptional: position >= requiredCount,
    }))
    const rest = restSchema === undefined || restSchema === false ? undefined : this.#readSchema(restSchema, depth + 1)
    if (rest === undefined || (rest.kind === 'keyword' && rest.name === 'never')) return { kind: 'tuple', elements }
    return { kind: 'tuple', elements, rest }
  }
}

/**
 * Reads a JSON Schema document into type nodes and the named types it refers to. Never throws:
 * what TypeScript cannot express becomes `unknown` with a reason.
 */
export function readSchema(schema: unknown, options: SchemaReadOptions): ReadSchema {
  try {
    return new SchemaDocumentReader(schema, options).read()
  } catch {
    // Only a hostile object (a throwing getter, a revoked proxy) gets here; JSON never does.
    return { root: unknownType('schema could not be read'), definitions: [] }
  }
}
