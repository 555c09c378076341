/**
 * The named types of an SDK: definitions from every schema merged when they are the same type,
 * given unique names, and kept legal for TypeScript (no alias that is itself, directly or
 * through a chain of aliases and unions).
 */
import type { SchemaDefinition } from './schema-reader.js'
import {
  intersectionOf,
  mapChildTypes,
  referencedKeys,
  unionOf,
  unknownType,
  type TypeDoc,
  type TypeNode,
} from './type-node.js'

/** One `type Name = ...` declaration. */
export interface NamedType {
  readonly name: string
  readonly body: TypeNode
  readonly doc?: TypeDoc
}

export interface DeclaredTypes {
  /** The declarations, in the order their definitions were first seen. */
  readonly declarations: readonly NamedType[]
  /** `node` with each definition key replaced by the name of its declaration. */
  readonly nameReferences: (node: TypeNode) => TypeNode
}

/** A copy of `node` whose references went through `rename`. */
export function renameReferences(node: TypeNode, rename: (key: string) => string): TypeNode {
  if (node.kind === 'reference') {
    const key = rename(node.key)
    return key === node.key ? node : { kind: 'reference', key }
  }
  return mapChildTypes(node, child => renameReferences(child, rename))
}

/** `preferred`, or `preferred2`, `preferred3`... whichever is not taken first. */
export function findUniqueName(preferred: string, taken: ReadonlySet<string>): string {
  let name = preferred
  for (let suffix = 2; taken.has(name); suffix++) name = `${preferred}${suffix}`
  return name
}

/** {@link findUniqueName}, and marks the name taken. */
export function takeUniqueName(preferred: string, taken: Set<string>): string {
  const name = findUniqueName(preferred, taken)
  taken.add(name)
  return name
}

/**
 * Groups definitions that are the same type: same preferred name, same shape, and references to
 * types that are the same in turn. Refines until stable, so recursive types compare correctly.
 * @returns a group number per definition key, numbered in order of first appearance.
 */
function groupEquivalentDefinitions(definitions: readonly SchemaDefinition[]): Map<string, number> {
  const shapeOf = (definition: SchemaDefinition): string =>
    JSON.stringify([definition.preferredName, definition.doc ?? null, renameReferences(definition.body, () => '')])
  let groups = new Map<string, number>()
  let groupCount = 0
  let signatureOf = shapeOf
  for (;;) {
    const numbers = new Map<string, number>()
    const next = new Map<string, number>()
    for (const definition of definitions) {
      const signature = signatureOf(definition)
      const number = numbers.get(signature) ?? numbers.size
      numbers.set(signature, number)
      next.set(definition.key, number)
    }
    if (numbers.size === groupCount) return next
    groups = next
    groupCount = numbers.size
    const current = groups
    signatureOf = definition =>
      [current.get(definition.key), ...referencedKeys(definition.body).map(key => current.get(key) ?? -1)].join(',')
  }
}

/** References outside any object, array or tuple: the ones TypeScript resolves eagerly. */
function eagerReferences(node: TypeNode): string[] {
  if (node.kind === 'reference') return [node.key]
  if (node.kind === 'union' || node.kind === 'intersection') return node.members.flatMap(eagerReferences)
  return []
}

function replaceEagerReferences(node: TypeNode, isCircular: (key: string) => boolean): TypeNode {
  if (node.kind === 'reference') return isCircular(node.key) ? unknownType(`circular reference to ${node.key}`) : node
  if (node.kind === 'union') return unionOf(node.members.map(member => replaceEagerReferences(member, isCircular)))
  if (node.kind === 'intersection')
    return intersectionOf(node.members.map(member => replaceEagerReferences(member, isCircular)))
  return node
}

/**
 * `type A = A | string` and `type A = B; type B = A` are errors in TypeScript. Such a reference
 * says nothing a program could use, so it becomes `unknown`, first in the earliest declaration.
 */
function breakEagerCycles(declarations: readonly NamedType[]): NamedType[] {
  const byName = new Map(declarations.map(declaration => [declaration.name, declaration]))
  const reaches = (from: string, target: string): boolean => {
    const seen = new Set<string>()
    const pending = [from]
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      for (const next of eagerReferences(byName.get(name)?.body ?? { kind: 'unknown' })) {
        if (next === target) return true
        if (!seen.has(next)) {
          seen.add(next)
          pending.push(next)
        }
      }
    }
    return false
  }
  for (const declaration of declarations) {
    const current = byName.get(declaration.name) as NamedType
    if (!reaches(current.name, current.name)) continue
    const body = replaceEagerReferences(current.body, key => key === current.name || reaches(key, current.name))
    byName.set(current.name, { ...current, body })
  }
  return declarations.map(declaration => byName.get(declaration.name) as NamedType)
}

/**
 * Turns the definitions read from every schema into declarations with unique names.
 * @param takenNames names no declaration may take (globals of the SDK and of TypeScript's lib);
 *   the names given out are added to it.
 */
export function declareTypes(definitions: readonly SchemaDefinition[], takenNames: Set<string>): DeclaredTypes {
  const groups = groupEquivalentDefinitions(definitions)
  const nameOfGroup = new Map<number, string>()
  const firstOfGroup: SchemaDefinition[] = []
  for (const definition of definitions) {
    const group = groups.get(definition.key) as number
    if (nameOfGroup.has(group)) continue
    nameOfGroup.set(group, takeUniqueName(definition.preferredName, takenNames))
    firstOfGroup.push(definition)
  }
  const nameOfKey = (key: string): string => {
    const group = groups.get(key)
    return group === undefined ? key : (nameOfGroup.get(group) ?? key)
  }
  const nameReferences = (node: TypeNode): TypeNode => renameReferences(node, nameOfKey)
  const declarations = firstOfGroup.map(definition => {
    const declaration = { name: nameOfKey(definition.key), body: nameReferences(definition.body) }
    return definition.doc === undefined ? declaration : { ...declaration, doc: definition.doc }
  })
  return { declarations: breakEagerCycles(declarations), nameReferences }
}
