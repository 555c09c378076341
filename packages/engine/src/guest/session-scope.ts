/**
 * The kept names of a persistent session's context. A session program's top-level declarations
 * arrive rewritten as assignments (the host's session transform); this module declares each name
 * once per session as a script-level `let` of the context, so every later run's references reach
 * the same binding, and builds the context-realm keep function that hands the run's top-level
 * functions to their bindings. Nothing of the substrate's realm is ever given to the program.
 */
import vm from 'node:vm'

/** A name the guest compiles into a script: identifier characters only, nothing else. */
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u

/** Filenames of the scripts compiled here: never `program.ts`, so no program frame names them. */
const DECLARATIONS_FILENAME = 'code-runtime:session-declarations'
const KEEP_FILENAME = 'code-runtime:session-keep'

/** The parameter of the keep function: the transform refuses programs that use this name. */
const KEEP_ARGUMENTS = '__codeRuntimeKeep'

/** Names a sloppy function body cannot assign as a kept binding: they mean something else there. */
const NEVER_KEPT = new Set([KEEP_ARGUMENTS, 'arguments', 'eval'])

/** Why a run that would keep too many names is refused, and the two ways on. */
function keptNamesLimitMessage(fresh: number, kept: number, maxKeptNames: number): string {
  const left = Math.max(0, maxKeptNames - kept)
  return (
    `This run would keep ${fresh} new top-level ${fresh === 1 ? 'name' : 'names'}, but the session keeps at most ${maxKeptNames} (maxKeptNames) and already keeps ${kept}, so ${left} ${left === 1 ? 'is' : 'are'} left; nothing of this run was kept. ` +
    'Assign to the variables the session has (or wrap the code in a block, whose declarations are not kept), or start over in a new session: its variables are forgotten.'
  )
}

export class SessionScope {
  private readonly context: vm.Context
  /** The context's global object, taken before any program ran. */
  private readonly contextGlobal: object
  private readonly declared = new Set<string>()

  constructor(context: vm.Context) {
    this.context = context
    this.contextGlobal = vm.runInContext('globalThis', context) as object
  }

  /** True when `name` is a kept name of this session. */
  keeps(name: string): boolean {
    return this.declared.has(name)
  }

  /**
   * Declares the names not declared yet; returns why it cannot, or undefined. Either every new
   * name is declared or none is (one script declares them all), and none is when the session
   * would then keep more than `maxKeptNames`.
   */
  declare(names: readonly string[], maxKeptNames: number): string | undefined {
    const fresh = [...new Set(names)].filter(name => !this.declared.has(name))
    if (fresh.length === 0) return undefined
    if (this.declared.size + fresh.length > maxKeptNames)
      return keptNamesLimitMessage(fresh.length, this.declared.size, maxKeptNames)
    for (const name of fresh) {
      if (!IDENTIFIER.test(name) || NEVER_KEPT.has(name))
        return `The session cannot keep a variable named ${JSON.stringify(name)}.`
      // Read without running any getter: a descriptor of the global's own property.
      const descriptor = Object.getOwnPropertyDescriptor(this.contextGlobal, name)
      if (descriptor !== undefined && descriptor.configurable === false) {
        return `The session cannot keep a variable named ${name}: the runtime's global ${name} cannot be hidden. Rename the variable.`
      }
    }
    try {
      new vm.Script(`let ${fresh.join(', ')};`, { filename: DECLARATIONS_FILENAME }).runInContext(this.context, {
        displayErrors: false,
      })
    } catch {
      // The error is the context's own object; nothing of it is read.
      return `The session cannot keep the variables ${fresh.join(', ')}: one of them is a reserved word or a name the runtime cannot hide. Rename it.`
    }
    for (const name of fresh) this.declared.add(name)
    return undefined
  }

  /**
   * The keep function of a run, compiled in the context: it assigns its arguments, in order, to
   * the kept bindings of `published` (declared already by {@link declare}).
   */
  keepFunction(published: readonly string[]): unknown {
    for (const name of published) {
      if (!this.declared.has(name)) throw new Error(`${name} is not a kept name of this session`)
    }
    const assignments = published.map((name, index) => `${name} = ${KEEP_ARGUMENTS}[${index}];`).join(' ')
    // Sloppy mode: a function with a rest parameter cannot say 'use strict'. Every name assigned
    // is declared, so no assignment creates a global.
    const source = `(function (...${KEEP_ARGUMENTS}) { ${assignments} })`
    return new vm.Script(source, { filename: KEEP_FILENAME }).runInContext(this.context, { displayErrors: false })
  }
}
