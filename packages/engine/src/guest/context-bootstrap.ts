/**
 * Code that runs INSIDE the program's vm context, before the program: it builds every global the
 * program gets (console, timers, the `process` shim, binding namespaces, error classes) out of
 * the context's own intrinsics, so no object of the substrate's realm is ever reachable from the
 * program.
 *
 * {@link contextBootstrap} is not called as an import: the build bundles it and its parts in
 * `bootstrap/` (one module per global family) into one script the guest runtime evaluates inside
 * the context. Every intrinsic they use comes from the context's {@link Primordials}, captured
 * before the program runs, because the program may replace any global or prototype method later.
 *
 * The host functions it receives are substrate-realm functions. They stay in local constants, are
 * only ever called directly with primitives or program values, return primitives, and every call
 * sits in a try/catch that throws a fresh context-realm error instead of the caught value.
 */
import { createBindingCalls } from './bootstrap/binding-calls.js'
import { createBootstrapKit } from './bootstrap/bootstrap-kit.js'
import { installCollectionGuards } from './bootstrap/collection-guards.js'
import { installConsole } from './bootstrap/console.js'
import { createProgramRunner } from './bootstrap/program-run.js'
import { installProcessShim } from './bootstrap/process-shim.js'
import { installTasks } from './bootstrap/tasks.js'
import type { Primordials } from './primordials.js'

/** What the guest runtime (substrate realm) offers the context. Primitives in, primitives out. */
export interface BootstrapHost {
  /** Appends one log entry. */
  emitLog(text: string): void
  /** Formats console arguments inspect-style: mode 0 as `console.log`, 1 as `console.dir`, 2 as `console.table`. */
  formatLog(args: readonly unknown[], mode: number): string
  /**
   * Starts a binding call of the namespaces installed as `generation`; returns the call id, or a
   * message when the call is refused (a namespace of an earlier run of a session, say).
   */
  requestCall(generation: number, namespace: number, member: string, args: unknown): number | string
  /**
   * The stack lines of the program frames where failed call `id` was made (0: the call refused
   * last), '' when unknown; the runtime remembers them as `error`'s location.
   */
  callErrorFrames(id: number, error: unknown): string
  /** The program's completion value. */
  completeRun(value: unknown): void
  /** The program's rejection. */
  failRun(thrown: unknown): void
  /** An exception thrown from a timer or microtask callback. */
  reportUncaught(thrown: unknown): void
  /** Schedules timer `id`; a negative delay means "next turn" (setImmediate). */
  scheduleTimer(id: number, delayMs: number, repeat: boolean): void
  cancelTimer(id: number): void
  /** Milliseconds from a monotonic clock. */
  now(): number
}

/** What the context offers the guest runtime. */
export interface BootstrapControl {
  /**
   * Installs the binding namespaces from a JSON array of {@link NamespaceSpec}-shaped entries, as
   * `generation` (one per run). In a session the previous run's namespace globals this run lacks
   * are removed, unless the program replaced them with values of its own.
   */
  installNamespaces(specJson: string, generation: number): void
  /** Calls the program's main function (with `keep`, a session's keep function, when given) and reports its outcome to the host. */
  runProgram(main: unknown, keep?: unknown): void
  /** Forgets the ended run's timers and pending calls: nothing of it may run into a later run. */
  endRun(): void
  /**
   * Takes one part of call `id`'s value (the JSON text of an array of its next elements) and
   * parses it now, out of the program's sight. Parts past `maxChars` characters in all are
   * dropped, and the call fails as too large when it settles.
   */
  receivePart(id: number, json: string, maxChars: number): void
  /**
   * Settles binding call `id`: `ok` with a JSON payload (after `parts` parts, whose elements come
   * first; at most `maxChars` characters in all), or a rejection with a message.
   */
  settleCall(id: number, ok: boolean, payload: string, parts: number, maxChars: number): void
  /** Runs timer `id`'s callback. */
  fireTimer(id: number): void
}

/** The web globals built by the web-globals bootstrap, installed as they are. */
export type ContextWebGlobals = Readonly<Record<string, unknown>>

/** Guards against allocations that are fatal to the whole process in V8 despite the heap cap. */
export interface ResourceGuardLimits {
  /** Largest `Map`/`Set` size allowed; V8 aborts the process a little above 2^24 entries. */
  readonly maxCollectionSize: number
}

export function contextBootstrap(
  primordials: Primordials,
  host: BootstrapHost,
  webGlobals: ContextWebGlobals,
  limits: ResourceGuardLimits,
): BootstrapControl {
  const { contextGlobal: global, objectKeys, freeze } = primordials
  const kit = createBootstrapKit(primordials, host)
  installCollectionGuards(kit, limits)
  // Array and string built-ins are guarded by builtin-guards.ts, installed before this bootstrap.
  // WebAssembly compilation is disabled in this context; remove the namespace so nothing pretends otherwise.
  delete (global as Record<string, unknown>).WebAssembly
  installConsole(kit)
  const tasks = installTasks(kit)
  for (const name of objectKeys(webGlobals)) kit.defineGlobal(name, webGlobals[name])
  installProcessShim(kit, webGlobals, tasks)
  const calls = createBindingCalls(kit)
  const runProgram = createProgramRunner(kit)

  function endRun(): void {
    tasks.forgetTimers()
    calls.forgetCalls()
  }
  return freeze({
    installNamespaces: calls.installNamespaces,
    runProgram,
    receivePart: calls.receivePart,
    settleCall: calls.settleCall,
    fireTimer: tasks.fireTimer,
    endRun,
  })
}
