/**
 * An in-context script: a function of ours, written as ordinary modules and bundled by the build
 * into one self-contained function expression (scripts/bundle-context-scripts.mjs, which also
 * proves it reads no name a fresh context lacks), compiled once per substrate as a `vm.Script`
 * with a filename of its own, then evaluated in each fresh program context, where it builds its
 * part from that context's own intrinsics.
 *
 * The filename (`code-runtime:globals/url`) names the section in every stack V8 records inside
 * the script; the stack-trace filter hides those frames from the program, which sees only its
 * own.
 *
 * A script is compiled when it first runs, not when its module loads, so that a backend can
 * first hand over V8 code caches for these scripts ({@link useContextScriptCodeCaches}): a fresh
 * worker then skips compiling them. The build makes those caches with
 * {@link contextScriptCodeCaches} after preparing one context.
 */
import vm from 'node:vm'
import { contextScriptTexts } from './context-scripts.generated.js'

export interface ContextScript<Script> {
  readonly filename: string
  /** Evaluates the script in `context`: the function, as an object of that context. */
  runIn(context: vm.Context): Script
}

/** Code caches offered to the scripts compiled from now on, by filename. */
let offeredCaches: ReadonlyMap<string, Uint8Array> = new Map()
/** Every script compiled so far, by filename: what {@link contextScriptCodeCaches} reads. */
const compiledScripts = new Map<string, vm.Script>()
/** Scripts whose offered cache V8 refused (another Node, a stale build): compiled plainly. */
const rejectedCaches = new Set<string>()

/**
 * Offers V8 code caches (from {@link contextScriptCodeCaches}, in an earlier process of the same
 * build and Node) to the context scripts that have not compiled yet. V8 checks each against its
 * source, version and flags; one it rejects only means a plain compile.
 */
export function useContextScriptCodeCaches(caches: ReadonlyMap<string, Uint8Array>): void {
  offeredCaches = caches
}

/** The code cache of every context script compiled so far, with the functions run since. */
export function contextScriptCodeCaches(): Map<string, Buffer> {
  return new Map([...compiledScripts].map(([filename, script]) => [filename, script.createCachedData()]))
}

/** The filenames of the scripts compiled so far whose offered code cache V8 rejected. */
export function rejectedContextScriptCodeCaches(): string[] {
  return [...rejectedCaches]
}

/**
 * The in-context script the build made under `filename`; `Script` is the type of the function it
 * evaluates to (`typeof` the entry's export).
 */
export function compileContextScript<Script extends (...args: never[]) => unknown>(
  filename: string,
): ContextScript<Script> {
  const text = contextScriptTexts[filename]
  if (text === undefined)
    throw new Error(`No in-context script is built under ${filename}: add it to scripts/bundle-context-scripts.mjs`)
  return compileContextScriptText<Script>(text, filename)
}

/** Compiles `text`, an expression that evaluates to the script's function, under `filename`. */
export function compileContextScriptText<Script extends (...args: never[]) => unknown>(
  text: string,
  filename: string,
): ContextScript<Script> {
  let compiled: vm.Script | undefined
  const compile = (): vm.Script => {
    const cachedData = offeredCaches.get(filename)
    const fresh = new vm.Script(text, { filename, ...(cachedData === undefined ? {} : { cachedData }) })
    compiledScripts.set(filename, fresh)
    if (cachedData !== undefined && fresh.cachedDataRejected === true) rejectedCaches.add(filename)
    return fresh
  }
  return Object.freeze({
    filename,
    runIn: (context: vm.Context): Script => (compiled ??= compile()).runInContext(context) as Script,
  })
}
