/**
 * The small type language between JSON Schema and TypeScript text. Schemas are read into these
 * plain, immutable nodes once; naming, sharing and printing then work on nodes, never on schemas.
 */

/** What a JSDoc comment says about a property or a named type. */
export interface TypeDoc {
  readonly description?: string
  /** Rendered tags, e.g. `@default 10` or `@format uri`. */
  readonly tags: readonly string[]
}

export interface PropertyNode {
  readonly name: string
  readonly isOptional: boolean
  readonly type: TypeNode
  readonly doc?: TypeDoc
}

export interface IndexSignatureNode {
  readonly type: TypeNode
  readonly doc?: TypeDoc
}

export interface TupleElementNode {
  readonly type: TypeNode
  readonly isOptional: boolean
}

export type KeywordTypeName = 'string' | 'number' | 'boolean' | 'null' | 'undefined' | 'never'

export type TypeNode =
  | { readonly kind: 'keyword'; readonly name: KeywordTypeName }
  /** Anything at all; `reason` says why when a schema said more than TypeScript can. */
  | { readonly kind: 'unknown'; readonly reason?: string }
  | { readonly kind: 'literal'; readonly value: string | number | boolean }
  /** A named type, by key until names are assigned and by name afterwards. */
  | { readonly kind: 'reference'; readonly key: string }
  | { readonly kind: 'array'; readonly element: TypeNode }
  | { readonly kind: 'tuple'; readonly elements: readonly TupleElementNode[]; readonly rest?: TypeNode }
  | { readonly kind: 'object'; readonly properties: readonly PropertyNode[]; readonly index?: IndexSignatureNode }
  | { readonly kind: 'union'; readonly members: readonly TypeNode[] }
  | { readonly kind: 'intersection'; readonly members: readonly TypeNode[] }

export const UNKNOWN_TYPE: TypeNode = Object.freeze({ kind: 'unknown' })
export const NEVER_TYPE: TypeNode = Object.freeze({ kind: 'keyword', name: 'never' })
export const NULL_TYPE: TypeNode = Object.freeze({ kind: 'keyword', name: 'null' })

export function keywordType(name: KeywordTypeName): TypeNode {
  return { kind: 'keyword', name }
}

/** `unknown`, with a short note for the reader when the schema said more than a type can. */
export function unknownType(reason?: string): TypeNode {
  return reason === undefined ? UNKNOWN_TYPE : { kind: 'unknown', reason }
}

/** Nodes are plain data, so their JSON is a structural identity good enough to drop duplicates. */
function structuralKey(node: TypeNode): string {
  return JSON.stringify(node)
}

function withoutDuplicates(nodes: readonly TypeNode[]): TypeNode[] {
  const seen = new Set<string>()
  return nodes.filter(node => {
    const key = structuralKey(node)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * A union, simplified the way TypeScript would: nested unions flattened, duplicates and `never`
 * dropped, and anything united with `unknown` is `unknown`.
 */
export function unionOf(members: readonly TypeNode[]): TypeNode {
  const flat = members.flatMap(member => (member.kind === 'union' ? member.members : [member]))
  const anything = flat.find(member => member.kind === 'unknown')
  if (anything !== undefined) return anything
  const kept = withoutDuplicates(flat.filter(member => !(member.kind === 'keyword' && member.name === 'never')))
  if (kept.length === 0) return NEVER_TYPE
  if (kept.length === 1) return kept[0] as TypeNode
  return { kind: 'union', members: kept }
}

function isMergeableObject(node: TypeNode): node is Extract<TypeNode, { kind: 'object' }> {
  return node.kind === 'object' && node.index === undefined
}

/**
 * Plain objects of an intersection become one object when no property is declared twice:
 * `{ a: string } & { b: number }` reads better as `{ a: string; b: number }`.
 */
function mergeObjects(members: readonly TypeNode[]): TypeNode[] {
  const objects = members.filter(isMergeableObject)
  if (objects.length < 2) return [...members]
  const properties = objects.flatMap(object => object.properties)
  if (new Set(properties.map(property => property.name)).size !== properties.length) return [...members]
  return [...members.filter(member => !isMergeableObject(member)), { kind: 'object', properties }]
}

/**
 * An intersection, simplified: nested intersections flattened, `unknown` and duplicates dropped,
 * `never` absorbs everything, and plain objects merged.
 */
export function intersectionOf(members: readonly TypeNode[]): TypeNode {
  const flat = members.flatMap(member => (member.kind === 'intersection' ? member.members : [member]))
  if (flat.some(member => member.kind === 'keyword' && member.name === 'never')) return NEVER_TYPE
  const kept = mergeObjects(withoutDuplicates(flat.filter(member => member.kind !== 'unknown')))
  if (kept.length === 0) return UNKNOWN_TYPE
  if (kept.length === 1) return kept[0] as TypeNode
  return { kind: 'intersection', members: kept }
}

/** The nodes directly inside `node`, in print order. */
export function childTypes(node: TypeNode): TypeNode[] {
  switch (node.kind) {
    case 'array':
      return [node.element]
    case 'tuple':
      return [...node.elements.map(element => element.type), ...(node.rest === undefined ? [] : [node.rest])]
    case 'object':
      return [...node.properties.map(property => property.type), ...(node.index === undefined ? [] : [node.index.type])]
    case 'union':
    case 'intersection':
      return [...node.members]
    default:
      return []
  }
}

/** A copy of `node` whose direct children went through `transform`; `node` itself when none changed. */
export function mapChildTypes(node: TypeNode, transform: (child: TypeNode) => TypeNode): TypeNode {
  switch (node.kind) {
    case 'array': {
      const element = transform(node.element)
      return element === node.element ? node : { kind: 'array', element }
    }
    case 'tuple': {
      const elements = node.elements.map(element => {
        const type = transform(element.type)
        return type === element.type ? element : { ...element, type }
      })
      const rest = node.rest === undefined ? undefined : transform(node.rest)
      if (rest === node.rest && elements.every((element, index) => element === node.elements[index])) return node
      return rest === undefined ? { kind: 'tuple', elements } : { kind: 'tuple', elements, rest }
    }
    case 'object': {
      const properties = node.properties.map(property => {
        const type = transform(property.type)
        return type === property.type ? property : { ...property, type }
      })
      const indexType = node.index === undefined ? undefined : transform(node.index.type)
      const index =
        node.index === undefined || indexType === undefined || indexType === node.index.type
          ? node.index
          : { ...node.index, type: indexType }
      if (index === node.index && properties.every((property, position) => property === node.properties[position]))
        return node
      return index === undefined ? { kind: 'object', properties } : { kind: 'object', properties, index }
    }
    case 'union':
    case 'intersection': {
      const members = node.members.map(transform)
      return members.every((member, position) => member === node.members[position])
        ? node
        : { kind: node.kind, members }
    }
    default:
      return node
  }
}

/** Every reference key inside `node`, in print order, repeats included. */
export function referencedKeys(node: TypeNode): string[] {
  if (node.kind === 'reference') return [node.key]
  return childTypes(node).flatMap(referencedKeys)
}
