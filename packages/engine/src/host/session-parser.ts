/**
 * acorn, parsing as the guest compiles (a sloppy script, Annex B comments included), with one
 * change: acorn keeps each scope's declared names in arrays and searches them on every
 * declaration, which is quadratic (100 000 top-level declarations took 10 s). Here a scope keeps
 * them in sets, so the redeclaration checks stay and a large program parses in linear time. This
 * leans on acorn internals (`enterScope`, `scopeStack`, a scope's `var`/`lexical`/`functions`, read
 * only through `push`, `indexOf` and `[0]`); acorn is pinned to an exact version, and a unit test
 * both times a large program and checks redeclarations are still refused.
 */
import { Parser, type Expression, type Options, type Program, type Token } from 'acorn'

/** The part of an array acorn uses for a scope's names, backed by a set. */
class DeclaredNames {
  /** acorn reads the first name of a simple catch scope (its parameter) by index. */
  0: string | undefined
  private readonly names = new Set<string>()

  push(name: string): number {
    if (this.names.size === 0) this[0] = name
    this.names.add(name)
    return this.names.size
  }

  indexOf(name: string): number {
    return this.names.has(name) ? 0 : -1
  }
}

interface ScopeInternals {
  var: unknown
  lexical: unknown
  functions: unknown
}
interface ParserInternals {
  enterScope(flags: number): void
  readonly scopeStack: ScopeInternals[]
}

function withDeclaredNameSets(Base: typeof Parser): typeof Parser {
  const Extended = class extends Base {}
  const prototype = Extended.prototype as unknown as ParserInternals
  const enterScope = prototype.enterScope
  prototype.enterScope = function (this: ParserInternals, flags: number): void {
    enterScope.call(this, flags)
    const scope = this.scopeStack[this.scopeStack.length - 1]
    if (scope === undefined) return
    scope.var = new DeclaredNames()
    scope.lexical = new DeclaredNames()
    scope.functions = new DeclaredNames()
  }
  return Extended
}

const ScriptParser = Parser.extend(withDeclaredNameSets)

function options(onToken?: (token: Token) => void): Options {
  return onToken === undefined
    ? { ecmaVersion: 'latest', sourceType: 'script' }
    : { ecmaVersion: 'latest', sourceType: 'script', onToken }
}

/** Parses `text` as a sloppy script; `onToken` sees every token. Throws acorn's SyntaxError. */
export function parseScript(text: string, onToken?: (token: Token) => void): Program {
  return ScriptParser.parse(text, options(onToken))
}

/** Parses one expression of `text` from `offset`. */
export function parseScriptExpressionAt(text: string, offset: number): Expression {
  return ScriptParser.parseExpressionAt(text, offset, options())
}
