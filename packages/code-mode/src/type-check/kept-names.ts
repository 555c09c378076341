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

/**
 * Names per declarations file. The checker's language service parses and binds a file again only
 * when its text changes, so a run that keeps a new name costs one small file, not every name the
 * session kept before it (with one file for all, each run re-read them all: 30 ms a run grew to
 * 90 ms over 1 500 runs).
 */
export const KEPT_NAMES_PER_FILE = 64

/**
 * The most characters of printed types one session's check keeps, over all its names: past it a
 * newly kept name is declared `any`. With {@link MAX_KEPT_TYPE_CHARS} per name, this bounds what
 * the checker holds and re-reads for a session however many names it keeps.
 */
export const MAX_SESSION_TYPE_CHARS = 200_000

/** One declarations file: its names with their types, and its text, written once per change. */
interface KeptFile {
  readonly types: Map<string, string>
  text: string | undefined
}

/** The names a session kept, with their types: the state of one session's check. */
export class KeptNames {
  /** The file each name is declared in; a name declared again stays in its file. */
  private readonly fileOf = new Map<string, KeptFile>()
  private readonly files: KeptFile[] = []
  private typeChars = 0
  private changes = 0

  /** Adds (or, for a name declared again, replaces) the names one run kept. */
  merge(kept: ReadonlyMap<string, string>): void {
    for (const [name, type] of kept) {
      let file = this.fileOf.get(name)
      if (file === undefined) {
        file = this.files.at(-1)
        if (file === undefined || file.types.size >= KEPT_NAMES_PER_FILE) {
          file = { types: new Map(), text: undefined }
          this.files.push(file)
        }
        this.fileOf.set(name, file)
      } else {
        this.typeChars -= (file.types.get(name) ?? '').length
      }
      const bounded = this.typeChars + type.length > MAX_SESSION_TYPE_CHARS ? UNKNOWN_KEPT_TYPE : type
      this.typeChars += bounded.length
      file.types.set(name, bounded)
      file.text = undefined
    }
    if (kept.size > 0) this.changes++
  }

  /** Forgets every name: the session ended or was reset. */
  clear(): void {
    this.fileOf.clear()
    this.files.length = 0
    this.typeChars = 0
    this.changes++
  }

  get size(): number {
    return this.fileOf.size
  }

  /** Moves on every change of the names or their types: a check of the same program and revision is the same check. */
  get revision(): number {
    return this.changes
  }

  /** True when `name` is kept. */
  has(name: string): boolean {
    return this.fileOf.has(name)
  }

  /** The kept names. */
  names(): Set<string> {
    return new Set(this.fileOf.keys())
  }

  /** The names and types, file by file, each in the order it was first kept. */
  entries(): readonly (readonly [name: string, type: string])[] {
    return this.files.flatMap(file => [...file.types])
  }

  /** The names and types of declarations file `index`, in its line order. */
  fileEntries(index: number): readonly (readonly [name: string, type: string])[] {
    return [...(this.files[index]?.types ?? [])]
  }

  /**
   * The declarations files, one ambient declaration per line, each line of file `i` declaring
   * entry `i` of {@link fileEntries}. A file no merge touched is the same string as before.
   */
  declarationFiles(): readonly string[] {
    return this.files.map(file => {
      file.text ??= keptDeclarationsText([...file.types])
      return file.text
    })
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
      for (const declaration of statement.declarationList.declarations)
        found.push(...boundNames(typescript, declaration.name))
    } else if (
      (typescript.isFunctionDeclaration(statement) || typescript.isClassDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      found.push(statement.name)
    } else {
      // A `var` in a block, a loop head or a `try` is the function's, so the session's.
      typescript.forEachChild(statement, visitVars)
    }
  }
  return found
}

const PRINT_FLAGS_OF = (typescript: TypeScript): ts.TypeFormatFlags =>
  typescript.TypeFormatFlags.NoTruncation |
  typescript.TypeFormatFlags.UseFullyQualifiedType |
  typescript.TypeFormatFlags.WriteArrowStyleSignature

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
export function keptTypes(
  typescript: TypeScript,
  checker: ts.TypeChecker,
  body: readonly ts.Statement[],
  namespace: string,
): Map<string, string> {
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

/** What {@link writtenNames} says of a program that may assign every candidate. */
export const EVERY_NAME = 'every name'

/** Names that run code built from text, which may assign any kept name. */
const DYNAMIC_CODE_NAMES: ReadonlySet<string> = new Set(['eval', 'Function'])

/**
 * The names among `candidates` that `body` may assign anywhere (nested functions too: a later
 * run may call them): as the target of `=`, a compound assignment, `++`/`--`, a destructuring
 * assignment or a `for...in`/`for...of` head. Matched by name, shadowing ignored: a name counted
 * once too often only loses its type. A program that names `eval` or `Function` may assign any
 * of them, in text no check reads: then the answer is {@link EVERY_NAME}.
 */
export function writtenNames(
  typescript: TypeScript,
  body: ts.Node,
  isCandidate: (name: string) => boolean,
): Set<string> | typeof EVERY_NAME {
  const { SyntaxKind } = typescript
  const written = new Set<string>()
  let isDynamic = false
  const target = (node: ts.Node): void => {
    if (
      typescript.isParenthesizedExpression(node) ||
      typescript.isNonNullExpression(node) ||
      typescript.isAsExpression(node) ||
      typescript.isSatisfiesExpression(node) ||
      typescript.isTypeAssertionExpression(node)
    ) {
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
    } else if (
      typescript.isBinaryExpression(node) &&
      node.operatorToken.kind >= SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= SyntaxKind.LastAssignment
    ) {
      target(node.left)
    } else if (
      (typescript.isPrefixUnaryExpression(node) || typescript.isPostfixUnaryExpression(node)) &&
      (node.operator === SyntaxKind.PlusPlusToken || node.operator === SyntaxKind.MinusMinusToken)
    ) {
      target(node.operand)
    } else if (
      (typescript.isForInStatement(node) || typescript.isForOfStatement(node)) &&
      !typescript.isVariableDeclarationList(node.initializer)
    ) {
      target(node.initializer)
    }
    typescript.forEachChild(node, visit)
  }
  visit(body)
  if (isDynamic) return EVERY_NAME
  return new Set([...written].filter(isCandidate))
}
