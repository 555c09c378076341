/**
 * Finds what a session run keeps and how its text changes, from the top-level statements of the
 * wrapped program (see session-transform.ts). Pure: it reads the parsed program and its text and
 * returns edits on that text; nothing here runs program code.
 */
import type { ClassDeclaration, ExpressionStatement, Pattern, Statement, VariableDeclaration } from 'acorn'
import { SESSION_KEEP_PARAMETER } from './session-keep.js'

/**
 * Replace `[at, end)` of the text by `text` (an insertion when `at === end`). Edits at one offset
 * apply by `rank`, then in the order they were made: the prologue (0), then what ends the text
 * before (1: a `)`, a `;`), then what opens the statement after (2).
 */
export interface TextEdit {
  readonly at: number
  readonly end: number
  readonly text: string
  readonly rank: 0 | 1 | 2
}

export interface SessionEdits {
  readonly edits: readonly TextEdit[]
  /** Text for the wrapper's first line, after its `{`: the prologue, or what opens the first statement. */
  readonly head: string
  readonly keptNames: readonly string[]
  readonly publishedFunctions: readonly string[]
  /** The first kept name that is one of the run's namespaces, where it is declared. */
  readonly namespaceConflict?: { readonly name: string; readonly at: number }
}

/**
 * Names a declaration may bind but the session never keeps: the three the spec names, and those a
 * script-level `let` of the guest could not declare (in sloppy or strict code) or that mean
 * something else inside a function body (`arguments`). Declaring one leaves the whole declaration
 * as it is, local to the run.
 */
const NEVER_KEPT = new Set([
  'undefined',
  'NaN',
  'Infinity',
  'arguments',
  'eval',
  'let',
  'yield',
  'await',
  'static',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
])
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u

/** Where a statement sits: in a list (a body, a block, a `case`), alone (`if (c) var x`), or a `for` head. */
type Place = 'list' | 'single' | 'for-init' | 'for-in' | 'for-of'

function boundNames(pattern: Pattern, into: { name: string; at: number }[]): void {
  switch (pattern.type) {
    case 'Identifier':
      into.push({ name: pattern.name, at: pattern.start })
      return
    case 'ObjectPattern':
      for (const property of pattern.properties)
        boundNames(property.type === 'RestElement' ? property.argument : property.value, into)
      return
    case 'ArrayPattern':
      for (const element of pattern.elements) if (element !== null) boundNames(element, into)
      return
    case 'RestElement':
      boundNames(pattern.argument, into)
      return
    case 'AssignmentPattern':
      boundNames(pattern.left, into)
      return
    default:
      // A member expression binds nothing (it cannot appear in a declaration anyway).
      return
  }
}

class Collector {
  readonly edits: TextEdit[] = []
  readonly kept = new Set<string>()
  readonly published = new Set<string>()
  namespaceConflict: { name: string; at: number } | undefined
  hasReturn = false
  /** What goes on the wrapper's first line before the program (see {@link lead}). */
  headLead = ''

  private readonly text: string
  private readonly namespaces: ReadonlySet<string>

  constructor(text: string, namespaces: ReadonlySet<string>) {
    this.text = text
    this.namespaces = namespaces
  }

  private insert(at: number, text: string): void {
    this.edits.push({ at, end: at, text, rank: 1 })
  }

  /**
   * Puts `text` in front of a top-level statement without moving its columns: at the end of the
   * statement before it (after a `;`, so that statement ends there), or on the wrapper's first
   * line for the first statement. Only comments and white space lie between.
   */
  lead(previous: { end: number } | undefined, text: string): void {
    if (previous === undefined) this.headLead += text
    else this.edits.push({ at: previous.end, end: previous.end, text: `;${text}`, rank: 2 })
  }

  /** Whether every name may be kept; records the kept ones and a namespace they would hide. */
  private keep(names: readonly { name: string; at: number }[]): boolean {
    if (names.some(({ name }) => NEVER_KEPT.has(name) || !IDENTIFIER.test(name))) return false
    for (const { name, at } of names) {
      if (this.namespaceConflict === undefined && this.namespaces.has(name)) this.namespaceConflict = { name, at }
      this.kept.add(name)
    }
    return true
  }

  /** A statement that ended without its `;` gets one, so the expression it becomes cannot run on. */
  private terminate(node: { end: number }, place: Place): void {
    if ((place === 'list' || place === 'single') && this.text.charCodeAt(node.end - 1) !== 59 /* ; */)
      this.insert(node.end, ';')
  }

  private declaration(node: VariableDeclaration, place: Place, topLevel: boolean): void {
    if (node.kind !== 'var' && !(topLevel && (node.kind === 'let' || node.kind === 'const'))) return
    // An escaped keyword never reaches here (acorn refuses it); checked anyway, since the keyword is blanked by length.
    if (this.text.slice(node.start, node.start + node.kind.length) !== node.kind) return
    const inHead = place === 'for-in' || place === 'for-of'
    // `for (var x = 0 in o)` (Annex B) has no assignment form; `for (async of xs)` is not allowed.
    if (
      inHead &&
      node.declarations.some(
        d => d.init != null || (place === 'for-of' && d.id.type === 'Identifier' && d.id.name === 'async'),
      )
    )
      return
    const names: { name: string; at: number }[] = []
    for (const declarator of node.declarations) boundNames(declarator.id, names)
    if (!this.keep(names)) return

    const first = node.declarations[0]
    const wrapsFirst = !inHead && first !== undefined && first.id.type !== 'Identifier'
    // A statement that now opens with `(` would continue the line before it: it gets a `;` first.
    const lead = wrapsFirst && place === 'list' ? ';' : ''
    const keywordEnd = node.start + node.kind.length
    let firstParenPlaced = false
    if (wrapsFirst && /^ +$/.test(this.text.slice(keywordEnd, first.id.start))) {
      // `const {a} = o` → `;    ({a} = o)`: the `(` takes the place of the space before the pattern.
      this.edits.push({
        at: node.start,
        end: first.id.start,
        text: lead.padEnd(first.id.start - node.start - 1) + '(',
        rank: 1,
      })
      firstParenPlaced = true
    } else {
      this.edits.push({ at: node.start, end: keywordEnd, text: lead.padEnd(node.kind.length), rank: 1 })
    }
    for (const declarator of node.declarations) {
      if (inHead) continue
      if (declarator.id.type !== 'Identifier') {
        if (!(firstParenPlaced && declarator === first)) this.insert(declarator.id.start, '(')
        this.insert(declarator.end, ')')
      } else if (declarator.init == null && node.kind !== 'var') {
        this.insert(declarator.end, ' = undefined')
      }
    }
    this.terminate(node, place)
  }

  /** `class C {}` → `C = class C {};`, the `C = ` led in (see {@link lead}). */
  classDeclaration(node: ClassDeclaration, previous: Statement | undefined): void {
    const id = node.id
    if (id == null || !this.keep([{ name: id.name, at: id.start }])) return
    this.lead(previous, `${this.text.slice(id.start, id.end)} = `)
    this.insert(node.end, ';')
  }

  /** Visits a statement outside nested functions; `topLevel` when it is the program's own. */
  statement(node: Statement, place: Place, topLevel: boolean): void {
    switch (node.type) {
      case 'VariableDeclaration':
        this.declaration(node, place, topLevel)
        return
      case 'FunctionDeclaration':
        if (topLevel && this.keep([{ name: node.id.name, at: node.id.start }])) this.published.add(node.id.name)
        return
      case 'ClassDeclaration':
        // A top-level class is the caller's: it knows the statement before it.
        return
      case 'ReturnStatement':
        this.hasReturn = true
        return
      case 'BlockStatement':
        for (const child of node.body) this.statement(child, 'list', false)
        return
      case 'IfStatement':
        this.statement(node.consequent, 'single', false)
        if (node.alternate != null) this.statement(node.alternate, 'single', false)
        return
      case 'ForStatement':
        if (node.init?.type === 'VariableDeclaration') this.declaration(node.init, 'for-init', false)
        this.statement(node.body, 'single', false)
        return
      case 'ForInStatement':
      case 'ForOfStatement':
        if (node.left.type === 'VariableDeclaration')
          this.declaration(node.left, node.type === 'ForInStatement' ? 'for-in' : 'for-of', false)
        this.statement(node.body, 'single', false)
        return
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'LabeledStatement':
      case 'WithStatement':
        this.statement(node.body, 'single', false)
        return
      case 'TryStatement':
        this.statement(node.block, 'single', false)
        if (node.handler != null) this.statement(node.handler.body, 'single', false)
        if (node.finalizer != null) this.statement(node.finalizer, 'single', false)
        return
      case 'SwitchStatement':
        for (const switchCase of node.cases)
          for (const child of switchCase.consequent) this.statement(child, 'list', false)
        return
      default:
        // Expressions hold no declaration of this scope: only nested functions, which keep theirs.
        return
    }
  }

  /** `x + 1` as the last statement → `return (x + 1)`, as a REPL prints it; `return (` led in. */
  completion(node: ExpressionStatement, previous: Statement | undefined): void {
    const end = this.text.charCodeAt(node.end - 1) === 59 /* ; */ ? node.end - 1 : node.end
    this.lead(previous, 'return (')
    this.insert(end, ')')
  }
}

/** The edits, kept names and published functions of a program's top-level `statements`. */
export function collectSessionEdits(
  text: string,
  statements: readonly Statement[],
  namespaces: ReadonlySet<string>,
): SessionEdits {
  const collector = new Collector(text, namespaces)
  // acorn marks the directive prologue (`'use strict'` and the like) on its statements.
  const directives = statements.findIndex(
    statement => !(statement.type === 'ExpressionStatement' && typeof statement.directive === 'string'),
  )
  const lastDirective = directives === -1 ? statements.at(-1) : statements[directives - 1]
  for (const [index, statement] of statements.entries()) {
    if (statement.type === 'ClassDeclaration') collector.classDeclaration(statement, statements[index - 1])
    else collector.statement(statement, 'list', true)
  }
  const last = statements.at(-1)
  if (!collector.hasReturn && last?.type === 'ExpressionStatement' && typeof last.directive !== 'string') {
    collector.completion(last, statements.at(-2))
  }

  const published = [...collector.published]
  const prologue = published.length === 0 ? '' : `${SESSION_KEEP_PARAMETER}(${published.join(', ')});`
  const edits = [...collector.edits]
  let head = prologue + collector.headLead
  if (prologue !== '' && lastDirective !== undefined) {
    // Before the directives it would end them (`'use strict'` would no longer apply): after them.
    const semicolon = text.charCodeAt(lastDirective.end - 1) === 59 /* ; */ ? '' : ';'
    edits.push({ at: lastDirective.end, end: lastDirective.end, text: semicolon + prologue, rank: 0 })
    head = collector.headLead
  }
  return {
    edits,
    head,
    keptNames: [...collector.kept],
    publishedFunctions: published,
    ...(collector.namespaceConflict === undefined ? {} : { namespaceConflict: collector.namespaceConflict }),
  }
}
