/**
 * The SDK as the checker reads it. The model's SDK declares `declare const tools: { ... }`, an
 * anonymous object type that TypeScript prints in full (cut at 160 characters) in every message
 * about it. Rewritten as `declare namespace tools { function ... }`, the same members type-check
 * the same way and messages say `type 'typeof tools'`, which a model can read.
 */
import type ts from 'typescript'
import type { TypeScript } from './typescript-loader.js'

function isPlainFunctionName(typescript: TypeScript, name: ts.PropertyName): name is ts.Identifier {
  if (!typescript.isIdentifier(name)) return false
  const keyword = typescript.identifierToKeywordKind(name)
  const { FirstReservedWord, LastReservedWord, FirstFutureReservedWord, LastFutureReservedWord } = typescript.SyntaxKind
  // Reserved and strict-mode words cannot name a function; contextual keywords (`get`, `type`) can.
  return (
    keyword === undefined ||
    !(
      (keyword >= FirstReservedWord && keyword <= LastReservedWord) ||
      (keyword >= FirstFutureReservedWord && keyword <= LastFutureReservedWord)
    )
  )
}

/**
 * `declarations` with its namespace constant rewritten as a namespace of functions, or unchanged
 * when the constant is not the plain shape the emitter writes (then messages name the object type).
 */
export function sdkForChecking(typescript: TypeScript, declarations: string, namespace: string): string {
  const source = typescript.createSourceFile('sdk.d.ts', declarations, typescript.ScriptTarget.ES2022, true)
  const statement = source.statements.find(
    (candidate): candidate is ts.VariableStatement =>
      typescript.isVariableStatement(candidate) &&
      candidate.declarationList.declarations.some(
        declaration => typescript.isIdentifier(declaration.name) && declaration.name.text === namespace,
      ),
  )
  const declaration = statement?.declarationList.declarations[0]
  const type = declaration?.type
  if (
    statement === undefined ||
    statement.declarationList.declarations.length !== 1 ||
    type === undefined ||
    !typescript.isTypeLiteralNode(type)
  )
    return declarations
  const members = type.members.filter(
    (member): member is ts.MethodSignature =>
      typescript.isMethodSignature(member) &&
      member.questionToken === undefined &&
      isPlainFunctionName(typescript, member.name),
  )
  if (members.length !== type.members.length) return declarations
  const functions = members.map(member => {
    const leading = declarations.slice(member.getFullStart(), member.name.getStart(source))
    return `${leading}function ${declarations.slice(member.name.getStart(source), member.getEnd())}`
  })
  const head = declarations.slice(0, statement.getStart(source))
  const tail = declarations.slice(statement.getEnd())
  return `${head}declare namespace ${namespace} {${functions.join('')}\n}${tail}`
}
