/**
 * What JSON a program's value certainly is, read from its TypeScript type: the kinds it may take
 * and, for literal types, the exact values. "Not known" (undefined) whenever the type is or holds
 * `any` or `unknown` (its real value could be anything), or is something that does not cross as
 * plain JSON (class instances, functions, `undefined`), whose failure would be another one.
 */
import type ts from 'typescript'
import type { JsonKind } from './schema-rules.js'
import type { TypeScript } from './typescript-loader.js'

/** A value's possible kinds, and its possible values when every one is a literal. */
export interface ValueKinds {
  readonly kinds: ReadonlySet<JsonKind>
  readonly literals?: readonly (string | number | boolean | null)[]
}

/** How deep into element and property types the search for `any` goes before it gives up. */
const MAX_DEPTH = 4

export function createValueKinds(typescript: TypeScript, checker: ts.TypeChecker) {
  const { TypeFlags, ObjectFlags } = typescript

  function holdsAnyOrUnknown(type: ts.Type, depth: number): boolean {
    if (depth > MAX_DEPTH) return true
    if (
      (type.flags &
        (TypeFlags.Any |
          TypeFlags.Unknown |
          TypeFlags.TypeParameter |
          TypeFlags.Index |
          TypeFlags.IndexedAccess |
          TypeFlags.Conditional |
          TypeFlags.Substitution)) !==
      0
    )
      return true
    if (type.isUnionOrIntersection()) return type.types.some(member => holdsAnyOrUnknown(member, depth + 1))
    if ((type.flags & TypeFlags.Object) === 0) return false
    const object = type as ts.ObjectType
    if ((object.objectFlags & ObjectFlags.Reference) !== 0) {
      if (checker.getTypeArguments(type as ts.TypeReference).some(argument => holdsAnyOrUnknown(argument, depth + 1)))
        return true
    }
    if (checker.isArrayType(type) || checker.isTupleType(type)) return false
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0]
      const propertyType =
        declaration === undefined
          ? checker.getTypeOfSymbol(property)
          : checker.getTypeOfSymbolAtLocation(property, declaration)
      if (holdsAnyOrUnknown(propertyType, depth + 1)) return true
    }
    return checker.getIndexInfosOfType(type).some(info => holdsAnyOrUnknown(info.type, depth + 1))
  }

  /** The kind of one non-union type, or undefined when it is not plain JSON or not known. */
  function kindOf(type: ts.Type): { kind: JsonKind; literal?: string | number | boolean | null } | undefined {
    const flags = type.flags
    if ((flags & TypeFlags.StringLiteral) !== 0)
      return { kind: 'string', literal: (type as ts.StringLiteralType).value }
    if ((flags & TypeFlags.NumberLiteral) !== 0)
      return { kind: 'number', literal: (type as ts.NumberLiteralType).value }
    if ((flags & TypeFlags.BooleanLiteral) !== 0) return { kind: 'boolean', literal: type === checker.getTrueType() }
    if ((flags & TypeFlags.Null) !== 0) return { kind: 'null', literal: null }
    if ((flags & (TypeFlags.String | TypeFlags.TemplateLiteral | TypeFlags.StringMapping)) !== 0)
      return { kind: 'string' }
    if ((flags & TypeFlags.Number) !== 0) return { kind: 'number' }
    if ((flags & TypeFlags.Boolean) !== 0) return { kind: 'boolean' }
    if ((flags & TypeFlags.Object) === 0) return undefined
    if (checker.isArrayType(type) || checker.isTupleType(type)) return { kind: 'array' }
    // Only an object literal's own type is certainly a plain object; a class instance, a Date or
    // a function is refused by the boundary before the schema is ever read.
    const objectFlags = (type as ts.ObjectType).objectFlags
    const plain =
      (objectFlags & ObjectFlags.ObjectLiteral) !== 0 &&
      type.getCallSignatures().length === 0 &&
      type.getConstructSignatures().length === 0
    return plain ? { kind: 'object' } : undefined
  }

  /** The kinds (and literal values) `type` certainly takes, or undefined when that is not known. */
  return function valueKinds(type: ts.Type): ValueKinds | undefined {
    if (holdsAnyOrUnknown(type, 0)) return undefined
    // `boolean` is the union true | false: read it whole, not as two literals.
    const members = type.isUnion() && (type.flags & TypeFlags.Boolean) === 0 ? type.types : [type]
    const kinds = new Set<JsonKind>()
    const literals: (string | number | boolean | null)[] = []
    let allLiterals = true
    for (const member of members) {
      const kind = kindOf(member)
      if (kind === undefined) return undefined
      kinds.add(kind.kind)
      if ('literal' in kind && kind.literal !== undefined) literals.push(kind.literal)
      else allLiterals = false
    }
    return allLiterals ? { kinds, literals } : { kinds }
  }
}
