/**
 * Type nodes → TypeScript type text: compact where nothing needs explaining (`{ path: string }`),
 * one member per line with its JSDoc where something does. References print as their key, which
 * the SDK has already replaced by the type's final name.
 */
import { isBarePropertyName } from './identifier-text.js'
import { docCommentLines, inlineComment } from './jsdoc-text.js'
import type { NamedType } from './type-declarations.js'
import { referencedKeys, type PropertyNode, type TupleElementNode, type TypeDoc, type TypeNode } from './type-node.js'

/** An object stays on one line, comments and all, up to this many characters. */
const MAX_ONE_LINE_OBJECT_CHARS = 80
const INDENT_STEP = '  '

function needsParenthesesInArray(node: TypeNode): boolean {
  return node.kind === 'union' || node.kind === 'intersection' || (node.kind === 'unknown' && node.reason !== undefined)
}

/** `T[]`, with parentheses where `[]` would bind to the last member only. */
function printArrayOf(element: TypeNode, indent: string): string {
  const text = printType(element, indent)
  return needsParenthesesInArray(element) ? `(${text})[]` : `${text}[]`
}

function printTupleElement(element: TupleElementNode, indent: string): string {
  const text = printType(element.type, indent)
  if (!element.isOptional) return text
  return needsParenthesesInArray(element.type) ? `(${text})?` : `${text}?`
}

function printTuple(node: Extract<TypeNode, { kind: 'tuple' }>, indent: string): string {
  if (node.elements.length === 0) return node.rest === undefined ? '[]' : printArrayOf(node.rest, indent)
  const parts = node.elements.map(element => printTupleElement(element, indent))
  if (node.rest !== undefined) parts.push(`...${printArrayOf(node.rest, indent)}`)
  return `[${parts.join(', ')}]`
}

export function printPropertyName(name: string): string {
  return isBarePropertyName(name) ? name : JSON.stringify(name)
}

interface MemberText {
  readonly doc: TypeDoc | undefined
  readonly text: string
}

function printPropertyMember(property: PropertyNode, indent: string): MemberText {
  const text = `${printPropertyName(property.name)}${property.isOptional ? '?' : ''}: ${printType(property.type, indent)}`
  return { doc: property.doc, text }
}

/** `{ a: string; /** Why *\/ b?: number }` when every member and comment fits on one line. */
function printOneLine(members: readonly MemberText[]): string | undefined {
  const parts: string[] = []
  for (const member of members) {
    const comment = docCommentLines(member.doc)
    if (comment.length > 1 || member.text.includes('\n')) return undefined
    parts.push(comment.length === 0 ? member.text : `${comment[0] as string} ${member.text}`)
  }
  return `{ ${parts.join('; ')} }`
}

/** Members inside braces, one per line with their comments, at `indent` plus one step. */
export function printMembersBlock(members: readonly MemberText[], indent: string): string {
  const inner = indent + INDENT_STEP
  const lines = members.flatMap(member => [
    ...docCommentLines(member.doc).map(line => inner + line),
    inner + member.text,
  ])
  return ['{', ...lines, `${indent}}`].join('\n')
}

function printObject(node: Extract<TypeNode, { kind: 'object' }>, indent: string): string {
  const { properties, index } = node
  if (properties.length === 0 && index === undefined) return '{}'
  // `Record` is shorter, but a type alias may not refer to itself through it.
  if (
    properties.length === 0 &&
    index !== undefined &&
    index.doc === undefined &&
    referencedKeys(index.type).length === 0
  ) {
    return `Record<string, ${printType(index.type, indent)}>`
  }
  const inner = indent + INDENT_STEP
  const members = properties.map(property => printPropertyMember(property, inner))
  if (index !== undefined) members.push({ doc: index.doc, text: `[key: string]: ${printType(index.type, inner)}` })
  const oneLine = printOneLine(members)
  if (oneLine !== undefined && oneLine.length <= MAX_ONE_LINE_OBJECT_CHARS) return oneLine
  return printMembersBlock(members, indent)
}

function printLiteral(value: string | number | boolean): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/**
 * The TypeScript text of `node`. Lines after the first are indented for a type that starts at
 * `indent`; the first line is not.
 */
export function printType(node: TypeNode, indent = ''): string {
  switch (node.kind) {
    case 'keyword':
      return node.name
    case 'unknown':
      return node.reason === undefined ? 'unknown' : `unknown ${inlineComment(node.reason)}`
    case 'literal':
      return printLiteral(node.value)
    case 'reference':
      return node.key
    case 'array':
      return printArrayOf(node.element, indent)
    case 'tuple':
      return printTuple(node, indent)
    case 'object':
      return printObject(node, indent)
    case 'union':
      return node.members.map(member => printType(member, indent)).join(' | ')
    case 'intersection':
      return node.members
        .map(member => (member.kind === 'union' ? `(${printType(member, indent)})` : printType(member, indent)))
        .join(' & ')
  }
}

/** `type Name = ...`, after the type's JSDoc when it has one. */
export function printTypeDeclaration(declaration: NamedType): string {
  return [...docCommentLines(declaration.doc), `type ${declaration.name} = ${printType(declaration.body)}`].join('\n')
}
