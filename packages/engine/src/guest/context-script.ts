/**
 * An in-context script: a function of ours whose source text (`Function.prototype.toString`) is
 * compiled once per substrate as a `vm.Script` with a filename of its own, then evaluated in each
 * fresh program context, where it builds its part from that context's own intrinsics.
 *
 * The filename (`code-runtime:globals/url`) names the section in every stack V8 records inside
 * the script; the stack-trace filter hides those frames from the program, which sees only its
 * own.
 */
import vm from 'node:vm'

export interface ContextScript<Script> {
  readonly filename: string
  /** Evaluates the script in `context`: the function, as an object of that context. */
  runIn(context: vm.Context): Script
}

/** Compiles `script` (a self-contained function, see the module comment) under `filename`. */
export function compileContextScript<Script extends (...args: never[]) => unknown>(script: Script, filename: string): ContextScript<Script> {
  const compiled = new vm.Script(`(${script.toString()})`, { filename })
  return Object.freeze({
    filename,
    runIn: (context: vm.Context): Script => compiled.runInContext(context) as Script,
  })
}
