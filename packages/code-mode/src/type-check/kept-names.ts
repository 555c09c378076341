/**
 * What the type check knows of a session: the top-level names earlier runs kept, each with the
 * type the checker inferred for it, so a later program that uses them is neither refused nor
 * hinted "Cannot find name", and gets their real types. The checker reads them as ambient
 * declarations (`declare let rows: { id: number }[];`) in a file of their own: the program is
 * wrapped in a function, so its own declaration of a kept name shadows the ambient one, as the
 * session's REPL rules let it.
 */
import type ts from 'typescript'
import type { TypeScript } from './typescript-loader.js'

/** A printed type longer than this is declared `any`: a model gains nothing from a page of type. */
export const MAX_KEPT_TYPE_CHARS = 2_000

/** The type of a name whose type could not be printed, or whose printed type does not resolve. */
export const UNKNOWN_KEPT_TYPE = 'any'

/** Names a session never keeps (CONTRACT: declaring them stays local to the run). */
const NEVER_KEPT: ReadonlySet<string> = new Set(['undefined', 'NaN', 'Infinity'])

/** The names a session kept, with their types: the state of one session's check. */
export class KeptNames {
  private readonly types = new Map<string, string>()
  private declarationsText: string | undefined

  /** Adds (or, for a name declared again, replaces) the names one run kept. */
  merge(kept: ReadonlyMap<string, string>): void {
    for (const [name, type] of kept) {
      // A re-declared name moves to the end, where its newest type is read.
      this.types.delete(name)
      this.types.set(name, type)
    }
    if (kept.size > 0) this.declarationsText = undefined
  }

  /** Forgets every name: the session ended or was reset. */
  clear(): void {
    this.types.clear()
    this.declarationsText = undefined
  }

  get size(): number {
    return this.types.size
  }

  /** The kept names. */
  names(): Set<string> {
    return new Set(this.types.keys())
  }

  /** The names and types, in the order they were kept. */
  entries(): readonly (readonly [name: string, type: string])[] {
    return [...this.types]
  }

  /** One ambient declaration per line, in the order of {@link entries}. */
  declarations(): string {
    this.declarationsText ??= keptDeclarationsText(this.entries())
    return this.declarationsText
  }
}

/** The ambient file for `entries`: line `i` declares entry `i`, so a diagnostic's line names its entry. */
export function keptDeclarationsText(entries: readonly (readonly [name: string, type: string])[]): string {
  return entries.map(([name, type]) => `declare let ${name}: ${type};`).join('\n')
}

/** The names a binding pattern or identifier declares. */
function boundNames(typescript: TypeScript, name: ts.BindingName): ts.Identifier[] {
  if (typescript.isIdentifier(name)) return [name]
  const names: ts.Identifier[] = []
  for (const element of name.elements) {
    if (!typescript.isOmittedExpression(element)) names.push(...boundNames(typescript, element.name))
  }
  return names
}

/**
 * The identifiers a session keeps from a program: its top-level `const`, `let`, `var`, `function`
 * and `class` declarations, and every `var` outside nested functions, in source order.
 * `body` is the program's statements (inside the checker's wrapper function).
 */
export function keptIdentifiers(typescript: TypeScript, body: readonly ts.Statement[]): ts.Identifier[] {
  const found: ts.Identifier[] = []
  const visitVars = (node: ts.Node): void => {
    if (typescript.isFunctionLike(node) || typescript.isClassLike(node)) return
    if (typescript.isVariableDeclarationList(node) && (node.flags & typescript.NodeFlags.BlockScoped) === 0) {
      for (const declaration of node.declarations) found.push(...boundNames(typescript, declaration.name))
    }
    typescript.forEachChild(node, visitVars)
  }
  for (const statement of body) {
    if (typescript.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) found.push(...boundNames(typescript, declaration.name))
    } else if ((typescript.isFunctionDeclaration(statement) || typescript.isClassDeclaration(statement)) && statement.name !== undefined) {
      found.push(statement.name)
    } else {
      // A `var` in a block, a loop head or a `try` is the function's, so the session's.
      typescript.forEachChild(statement, visitVars)
    }
  }
  return found
}

const PRINT_FLAGS_OF = (typescript: TypeScript): ts.TypeFormatFlags =>
  typescript.TypeFormatFlags.NoTruncation | typescript.TypeFormatFlags.UseFullyQualifiedType | typescript.TypeFormatFlags.WriteArrowStyleSignature

/**
 * The type of a kept name as a declaration can carry it: literal types widened (a later run may
 * assign another value), a function as its signature (TypeScript prints a function declaration's
 * type as `typeof f`, which names a declaration the next program no longer sees), `any` for a
 * class (its constructor type is `typeof C`, same problem) and for anything too long.
 */
function printKeptType(typescript: TypeScript, checker: ts.TypeChecker, identifier: ts.Identifier): string {
  const symbol = checker.getSymbolAtLocation(identifier)
  if (symbol === undefined) return UNKNOWN_KEPT_TYPE
  if ((symbol.flags & typescript.SymbolFlags.Class) !== 0) return UNKNOWN_KEPT_TYPE
  const type = checker.getBaseTypeOfLiteralType(checker.getTypeOfSymbolAtLocation(symbol, identifier))
  const flags = PRINT_FLAGS_OF(typescript)
  let text: string
  if ((symbol.flags & typescript.SymbolFlags.Function) !== 0) {
    const signatures = type.getCallSignatures()
    if (signatures.length !== 1) return UNKNOWN_KEPT_TYPE
    text = checker.signatureToString(signatures[0] as ts.Signature, undefined, flags, typescript.SignatureKind.Call)
  } else {
    text = checker.typeToString(type, undefined, flags)
  }
  const oneLine = text.replace(/\s*\n\s*/g, ' ')
  // `typeof x` names a declaration of the program, which later programs do not see.
  if (oneLine.length > MAX_KEPT_TYPE_CHARS || /\btypeof\b/.test(oneLine)) return UNKNOWN_KEPT_TYPE
  return oneLine
}

/**
 * True when `identifier` is declared `const` (or `using`): the only kept names whose value no
 * run can change without assigning them by name, which {@link writtenNames} sees.
 */
function isConstant(typescript: TypeScript, identifier: ts.Identifier): boolean {
  let node: ts.Node = identifier
  while (!typescript.isVariableDeclarationList(node)) {
    if (typescript.isFunctionLike(node) || typescript.isClassLike(node) || typescript.isSourceFile(node)) return false
    node = node.parent
  }
  return (node.flags & typescript.NodeFlags.Constant) !== 0
}

/**
 * Name → printed type of every name the program keeps, from the checker of the program it just
 * checked. Names the session never keeps, and the namespace of the tools, are left out.
 *
 * Only a `const` keeps its type. A `let`, `var`, function or class name can be given another
 * value by this run after its declaration, by a closure a later run calls, or by code the
 * program builds at run time: its declared type could refuse a program that runs, so it is `any`.
 */
export function keptTypes(typescript: TypeScript, checker: ts.TypeChecker, body: readonly ts.Statement[], namespace: string): Map<string, string> {
  const kept = new Map<string, string>()
  for (const identifier of keptIdentifiers(typescript, body)) {
    const name = identifier.text
    if (NEVER_KEPT.has(name) || name === namespace) continue
    let type: string
    try {
      type = isConstant(typescript, identifier) ? printKeptType(typescript, checker, identifier) : UNKNOWN_KEPT_TYPE
    } catch {
      type = UNKNOWN_KEPT_TYPE
    }
    kept.delete(name)
    kept.set(name, type)
  }
  return kept
}

/** Names that run code built from text, which may assign any kept name. */
const DYNAMIC_CODE_NAMES: ReadonlySet<string> = new Set(['eval', 'Function'])

/**
 * The names among `candidates` that `body` may assign anywhere (nested functions too: a later
 * run may call them): as the target of `=`, a compound assignment, `++`/`--`, a destructuring
 * assignment or a `for...in`/`for...of` head. Matched by name, shadowing ignored: a name counted
 * once too often only loses its type. A program that names `eval` or `Function` may assign any
 * of them, in text no check reads.
 */
export function writtenNames(typescript: TypeScript, body: ts.Node, candidates: ReadonlySet<string>): Set<string> {
  const { SyntaxKind } = typescript
  const written = new Set<string>()
  let isDynamic = false
  const target = (node: ts.Node): void => {
    if (typescript.isParenthesizedExpression(node) || typescript.isNonNullExpression(node) || typescript.isAsExpression(node) || typescript.isSatisfiesExpression(node) || typescript.isTypeAssertionExpression(node)) {
      target(node.expression)
    } else if (typescript.isIdentifier(node)) {
      written.add(node.text)
    } else if (typescript.isArrayLiteralExpression(node)) {
      node.elements.forEach(target)
    } else if (typescript.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        if (typescript.isShorthandPropertyAssignment(property)) written.add(property.name.text)
        else if (typescript.isPropertyAssignment(property)) target(property.initializer)
        else if (typescript.isSpreadAssignment(property)) target(property.expression)
      }
    } else if (typescript.isSpreadElement(node)) {
      target(node.expression)
    } else if (typescript.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.EqualsToken) {
      // A default inside a pattern: `[a = 1] = list`.
      target(node.left)
    }
  }
  const visit = (node: ts.Node): void => {
    if (typescript.isIdentifier(node)) {
      if (DYNAMIC_CODE_NAMES.has(node.text)) isDynamic = true
    } else if (typescript.isBinaryExpression(node) && node.operatorToken.kind >= SyntaxKind.FirstAssignment && node.operatorToken.kind <= SyntaxKind.LastAssignment) {
      target(node.left)
    } else if ((typescript.isPrefixUnaryExpression(node) || typescript.isPostfixUnaryExpression(node)) && (node.operator === SyntaxKind.PlusPlusToken || node.operator === SyntaxKind.MinusMinusToken)) {
      target(node.operand)
    } else if ((typescript.isForInStatement(node) || typescript.isForOfStatement(node)) && !typescript.isVariableDeclarationList(node.initializer)) {
      target(node.initializer)
    }
    typescript.forEachChild(node, visit)
  }
  visit(body)
  if (isDynamic) return new Set(candidates)
  return new Set([...written].filter((name) => candidates.has(name)))
}
