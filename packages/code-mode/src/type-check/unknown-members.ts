/**
 * Calls of namespace members that do not exist (`tools.nmae(...)`): the namespace object has only
 * the bound members, so such a call throws a TypeError when it is reached. A name the program
 * also reads without calling it (`if (tools.nmae)`, `'nmae' in tools`, an assignment) is being
 * tested or provided, so its calls are not counted: the program may never make them. Nor is any
 * call counted once the namespace object escapes to other code, which may add members to it.
 */
import type ts from 'typescript'
import type { TypeScript } from './typescript-loader.js'

export interface UnknownMemberContext {
  readonly typescript: TypeScript
  readonly checker: ts.TypeChecker
  readonly source: ts.SourceFile
  isNamespace(node: ts.Expression): boolean
}

/**
 * Names of the namespace the program uses other than by a plain call, or undefined when the
 * namespace object itself escapes (`Object.assign(tools, ...)`, `const t = tools`): the program
 * may give it any member then.
 */
function testedNames(context: UnknownMemberContext): ReadonlySet<string> | undefined {
  const { typescript, source, isNamespace } = context
  const names = new Set<string>()
  let escaped = false
  function visit(node: ts.Node): void {
    if (typescript.isIdentifier(node) && isNamespace(node)) {
      const parent = node.parent
      const isRead =
        (typescript.isPropertyAccessExpression(parent) || typescript.isElementAccessExpression(parent)) &&
        parent.expression === node
      const isTested =
        typescript.isBinaryExpression(parent) &&
        parent.right === node &&
        parent.operatorToken.kind === typescript.SyntaxKind.InKeyword
      if (!isRead && !isTested && !typescript.isTypeQueryNode(parent)) escaped = true
    } else if (typescript.isPropertyAccessExpression(node) && isNamespace(node.expression)) {
      const call = node.parent
      const plainCall =
        typescript.isCallExpression(call) &&
        call.expression === node &&
        node.questionDotToken === undefined &&
        call.questionDotToken === undefined
      if (!plainCall) names.add(node.name.text)
    } else if (
      typescript.isElementAccessExpression(node) &&
      isNamespace(node.expression) &&
      typescript.isStringLiteralLike(node.argumentExpression)
    ) {
      names.add(node.argumentExpression.text)
    } else if (
      typescript.isBinaryExpression(node) &&
      node.operatorToken.kind === typescript.SyntaxKind.InKeyword &&
      typescript.isStringLiteralLike(node.left) &&
      isNamespace(node.right)
    ) {
      names.add(node.left.text)
    }
    typescript.forEachChild(node, visit)
  }
  visit(source)
  return escaped ? undefined : names
}

/** A test of whether `node` (where a diagnostic starts) names a member whose call certainly fails. */
export function createUnknownMemberTest(context: UnknownMemberContext): (node: ts.Node) => boolean {
  const { typescript, checker, isNamespace } = context
  let tested: { names: ReadonlySet<string> | undefined } | undefined
  return node => {
    const access = node.parent
    if (
      !typescript.isIdentifier(node) ||
      access === undefined ||
      !typescript.isPropertyAccessExpression(access) ||
      access.name !== node
    )
      return false
    if (!isNamespace(access.expression)) return false
    const call = access.parent
    if (
      !typescript.isCallExpression(call) ||
      call.expression !== access ||
      access.questionDotToken !== undefined ||
      call.questionDotToken !== undefined
    )
      return false
    if (checker.getTypeAtLocation(access.expression).getProperty(node.text) !== undefined) return false
    tested ??= { names: testedNames(context) }
    return tested.names !== undefined && !tested.names.has(node.text)
  }
}
