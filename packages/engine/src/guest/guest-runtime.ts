/**
 * The in-substrate runtime, shared by every backend that runs programs in a Node process of its
 * own (a worker thread, a child process): it prepares a fresh vm context ahead of the run,
 * compiles and starts the program, bridges binding calls and logs to the host through a
 * {@link GuestChannel}, and reports the outcome. Each backend only adds its transport.
 *
 * A GuestSession is one context: it runs one program, or, for a persistent session (run-starts
 * that carry `session`), one program after another in the same context, each run with its own
 * state (timers, calls, logs, namespaces) and nothing of a settled run reaching a later one.
 */
import vm from 'node:vm'
import { getHeapStatistics } from 'node:v8'
import { types } from 'node:util'
import { safeLosslessJsonText, formatLosslessJsonRefusal, jsonStringByteLength } from '@code-runtime/core/json'
import {
  decodeHostMessage,
  type GuestToHostMessage,
  type NamespaceSpec,
  type RunStartMessage,
} from '../protocol/messages.js'
import { SessionScope } from './session-scope.js'
import type {
  contextBootstrap,
  BootstrapControl,
  BootstrapHost,
  ContextWebGlobals,
  ResourceGuardLimits,
} from './context-bootstrap.js'
import type { installBuiltinGuards, BuiltinGuardHost, BuiltinGuardLimits } from './builtin-guards.js'
import { createWebGlobals } from './context-globals/web-globals.js'
import { compileContextScript } from './context-script.js'
import type { capturePrimordials } from './primordials.js'
import { createWebGlobalsHost } from './web-globals-host.js'
import type { installStackTraceFilter, StackTraceHost } from './context-stack-traces.js'
import { describeCompileError, describeThrown, PROGRAM_FILENAME } from './describe-thrown.js'
import { captureCallSite, describeCallPosition, formatCallSite, type CapturedCallSite } from './call-sites.js'
import { formatArguments, formatTable, inspectValue } from './format-log.js'

/** How the guest talks to its host. `send` must never throw. */
export interface GuestChannel {
  send(message: GuestToHostMessage): void
}

/** How a backend adapts each fresh context. */
export interface GuestSessionOptions {
  /**
   * Runs first in each fresh context, before its globals are built: a backend's own guards
   * (the worker thread's array-buffer budget) replace intrinsics here so that every global built
   * afterwards captures the guarded ones.
   */
  readonly prepareContext?: (context: vm.Context) => void
}

/** V8 aborts the process when a Map or Set grows past 2^24 entries; stay well below. */
const RESOURCE_LIMITS: ResourceGuardLimits = Object.freeze({
  maxCollectionSize: 16_000_000,
})

/**
 * The longest native walk or array a built-in may make in one call: 2^24. Walking that many
 * indexes of a sparse array-like takes about 0.2 to 2 s of uninterruptible native time here (the
 * slowest methods measured ~110 ns per index on a loaded 2-core machine), and an array that long is
 * far below V8's fixed-array maximum (~2^27), past which it aborts the process.
 */
const BUILTIN_GUARD_LIMITS: BuiltinGuardLimits = Object.freeze({ maxArrayLength: 16_777_216 })
/**
 * The most characters of JSON a binding result may have, whole or summed over its parts: what
 * the sandbox's JSON.parse guard allows one text (two characters per array element at least).
 */
const MAX_RESULT_JSON_CHARS = BUILTIN_GUARD_LIMITS.maxArrayLength * 2
const BUILTIN_GUARD_HOST: BuiltinGuardHost = Object.freeze({
  isProxy: (value: unknown): boolean => types.isProxy(value),
})

/**
 * Node's marker for a context whose global is an ordinary object (Node 20.18+): no interceptors
 * between the program and its globals, which is both faster and free of the interceptors' bugs.
 */
const DONT_CONTEXTIFY = (vm.constants as Partial<typeof vm.constants> | undefined)?.DONT_CONTEXTIFY

// Compiled once per process and run in each fresh context, in this order (the web globals' own
// scripts are compiled by their module).
const stackTracesScript = compileContextScript<typeof installStackTraceFilter>('code-runtime:stack-traces')
const guardsScript = compileContextScript<typeof installBuiltinGuards>('code-runtime:guards')
const primordialsScript = compileContextScript<typeof capturePrimordials>('code-runtime:primordials')
const bootstrapScript = compileContextScript<typeof contextBootstrap>('code-runtime:bootstrap')
const STACK_TRACE_HOST: StackTraceHost = Object.freeze({ isProxy: (value: unknown): boolean => types.isProxy(value) })

type Timer =
  | { readonly kind: 'timeout' | 'interval'; readonly handle: NodeJS.Timeout }
  | { readonly kind: 'immediate'; readonly handle: NodeJS.Immediate }

/** The state of one run; a session's next run starts with a new one. */
class RunState {
  readonly generation: number
  readonly namespaces: readonly NamespaceSpec[]
  readonly memberSets: readonly ReadonlySet<string>[]
  readonly maxOutputBytes: number
  readonly timers = new Map<number, Timer>()
  /** Where the program made each call still in flight, by call id. */
  readonly callSites = new Map<number, CapturedCallSite>()
  /** Where the program made the call {@link GuestSession.requestCall} refused last, until its error is made. */
  refusedCallSite: CapturedCallSite | undefined
  /**
   * Where each failed call's error was made, by the error object: the position the run reports
   * when that error ends it, whatever the program did to the error's own `stack`.
   */
  readonly failedCallPositions = new WeakMap<object, string>()
  /** Call ids below this one belong to earlier runs: their late results are dropped. */
  readonly firstCallId: number
  ended = false
  logBytesSent = 2
  logsSent = 0

  constructor(generation: number, message: RunStartMessage, firstCallId: number) {
    this.generation = generation
    this.namespaces = message.namespaces
    this.memberSets = message.namespaces.map(namespace => new Set(namespace.members))
    this.maxOutputBytes = message.maxOutputBytes
    this.firstCallId = firstCallId
  }
}

/** A prepared context waiting for its program, or, in a session, for its next one. */
export class GuestSession {
  private readonly channel: GuestChannel
  private readonly context: vm.Context
  private readonly control: BootstrapControl
  /** The run in flight or the last one; undefined before the first. */
  private run: RunState | undefined
  private runs = 0
  /** Present once the first run-start said this context is a persistent session's. */
  private scope: SessionScope | undefined
  /** Call ids keep growing over the context's runs, so a late result never matches a later call. */
  private lastCallId = 0

  constructor(channel: GuestChannel, options: GuestSessionOptions = {}) {
    this.channel = channel
    this.context = vm.createContext(DONT_CONTEXTIFY ?? (Object.create(null) as object), {
      name: 'program',
      codeGeneration: { strings: false, wasm: false },
    })
    options.prepareContext?.(this.context)
    // Without DONT_CONTEXTIFY every global goes through Node's interceptors, and redefining one
    // while Object.prototype carries planted descriptor keys (`get`, `value`...) aborts the
    // process in V8. Freezing the set of Object.prototype's keys closes that path there.
    if (DONT_CONTEXTIFY === undefined) vm.runInContext('Object.preventExtensions(Object.prototype)', this.context)
    // First of all: every stack formatted in this context, even one of the globals' own errors,
    // shows only the program's frames.
    stackTracesScript.runIn(this.context)(STACK_TRACE_HOST, PROGRAM_FILENAME, guardsScript.filename)
    // Then the guards, so the primordials (and so the web globals) capture the guarded built-ins.
    guardsScript.runIn(this.context)(BUILTIN_GUARD_HOST, BUILTIN_GUARD_LIMITS)
    // Captured once, before any program code: what every later in-context script works with.
    const primordials = primordialsScript.runIn(this.context)()
    const webGlobals = createWebGlobals(
      this.context,
      primordials,
      createWebGlobalsHost(),
    ) as unknown as ContextWebGlobals
    this.control = bootstrapScript.runIn(this.context)(
      primordials,
      this.createBootstrapHost(),
      webGlobals,
      RESOURCE_LIMITS,
    )
  }

  /** Handles one raw message from the host. Never throws. */
  receive(raw: unknown): void {
    const decoded = decodeHostMessage(raw)
    if (!decoded.ok) return
    const message = decoded.value
    switch (message.kind) {
      case 'run-start':
        this.start(message)
        return
      case 'recycle':
        // Handled by the substrate's entry module, which replaces this session.
        return
      case 'run-stop':
        // Whether or not the run is still in flight (its end may be on its way), the host hears
        // this answer after anything of the run: nothing of it follows.
        this.finishRun()
        this.channel.send({ kind: 'run-stopped' })
        return
      case 'call-part': {
        const run = this.run
        if (run === undefined || run.ended || message.id < run.firstCallId) return
        try {
          this.control.receivePart(message.id, message.json, MAX_RESULT_JSON_CHARS)
        } catch {
          this.end({
            kind: 'run-end',
            outcome: 'exception',
            message: 'The sandbox failed while delivering a tool result.',
          })
        }
        return
      }
      case 'call-result': {
        const run = this.run
        if (run === undefined || run.ended || message.id < run.firstCallId) return
        try {
          if (message.ok)
            this.control.settleCall(message.id, true, message.valueJson, message.parts ?? 0, MAX_RESULT_JSON_CHARS)
          else this.control.settleCall(message.id, false, message.message, 0, MAX_RESULT_JSON_CHARS)
        } catch {
          // The program's own code cannot run here; a failure means the context is unusable.
          this.end({
            kind: 'run-end',
            outcome: 'exception',
            message: 'The sandbox failed while delivering a tool result.',
          })
        } finally {
          run.callSites.delete(message.id)
        }
        return
      }
    }
  }

  private start(message: RunStartMessage): void {
    // One program per context, or, in a session, one at a time and only session runs.
    if (this.run !== undefined && (!this.run.ended || this.scope === undefined || message.session === undefined)) return
    if (this.runs === 0 && message.session !== undefined) this.scope = new SessionScope(this.context)
    this.runs++
    this.run = new RunState(this.runs, message, this.lastCallId + 1)
    // A refused run changes nothing: the program is compiled and the kept names are checked
    // before the session declares any of them.
    let script: vm.Script
    try {
      script = new vm.Script(message.source, { filename: PROGRAM_FILENAME, lineOffset: -1 })
    } catch (error) {
      this.end({ kind: 'run-end', outcome: 'exception', message: describeCompileError(error) })
      return
    }
    let keep: unknown
    if (this.scope !== undefined && message.session !== undefined) {
      const { keptNames, publishedFunctions, maxKeptNames } = message.session
      const names = [...keptNames, ...publishedFunctions]
      const problem =
        this.hiddenNamespace(this.scope, names, message.namespaces) ?? this.scope.declare(names, maxKeptNames)
      if (problem !== undefined) {
        this.end({ kind: 'run-end', outcome: 'exception', message: problem })
        return
      }
      keep = this.scope.keepFunction(publishedFunctions)
    }
    let main: unknown
    try {
      main = script.runInContext(this.context, { displayErrors: false })
    } catch (error) {
      this.end({ kind: 'run-end', outcome: 'exception', message: describeCompileError(error) })
      return
    }
    try {
      this.control.installNamespaces(JSON.stringify(message.namespaces), this.run.generation)
      this.control.runProgram(main, keep)
    } catch (thrown) {
      this.fail(thrown)
    }
  }

  /** A namespace (or error class) of this run whose name the session keeps, or this run would keep. */
  private hiddenNamespace(
    scope: SessionScope,
    keeping: readonly string[],
    namespaces: readonly NamespaceSpec[],
  ): string | undefined {
    for (const namespace of namespaces) {
      for (const name of [namespace.global, namespace.errorClass?.name]) {
        if (name === undefined) continue
        if (scope.keeps(name)) {
          return `${name} is a variable of this session, so this run's binding of that name would be hidden. Give the binding another name, or open a new session.`
        }
        if (keeping.includes(name)) {
          return `${name} is a binding of this run; a session cannot keep a top-level declaration of that name, it would hide the binding in later runs: rename the declaration.`
        }
      }
    }
    return undefined
  }

  /** Marks the run ended and cancels what it left behind: its timers, its pending calls. */
  private finishRun(): boolean {
    const run = this.run
    if (run === undefined || run.ended) return false
    run.ended = true
    for (const timer of run.timers.values()) this.clear(timer)
    run.timers.clear()
    try {
      this.control.endRun()
    } catch {
      // Built before any program ran and touching nothing of the program's: it does not throw.
    }
    return true
  }

  private end(message: GuestToHostMessage & { kind: 'run-end' }): void {
    if (!this.finishRun()) return
    const heap = getHeapStatistics()
    this.channel.send({ ...message, heapBytes: heap.total_heap_size, usedHeapBytes: heap.used_heap_size })
  }

  private fail(thrown: unknown): void {
    const run = this.run
    if (run === undefined || run.ended) return
    const position = typeof thrown === 'object' && thrown !== null ? run.failedCallPositions.get(thrown) : undefined
    this.end({ kind: 'run-end', outcome: 'exception', message: describeThrown(thrown, inspectValue, position) })
  }

  private complete(value: unknown): void {
    if (this.run === undefined || this.run.ended) return
    if (value === undefined) {
      this.end({ kind: 'run-end', outcome: 'value', valueJson: null })
      return
    }
    // The check and the text in one walk: a large returned array is never held as a whole copy.
    let text: ReturnType<typeof safeLosslessJsonText>
    try {
      text = safeLosslessJsonText(value, { rootLabel: 'The return value' })
    } catch {
      // Only a text too long for a string lands here; the run must still end now, not at maxWallMs.
      this.end({
        kind: 'run-end',
        outcome: 'invalid-output',
        message: 'The return value is too large to send; return less data.',
      })
      return
    }
    if (!text.ok) {
      this.end({ kind: 'run-end', outcome: 'invalid-output', message: formatLosslessJsonRefusal(text.error) })
      return
    }
    this.end({ kind: 'run-end', outcome: 'value', valueJson: text.value })
  }

  /** Starts a call the program made; `site` is where in the program it made it. */
  private requestCall(
    generation: number,
    namespaceIndex: number,
    member: string,
    args: unknown,
    site: CapturedCallSite | undefined,
  ): number | string {
    const run = this.run
    if (run === undefined) return `${String(member)} is not a tool.`
    // Recorded once the call is sent or refused: reading the arguments may run program code
    // that makes calls of its own.
    const ticket = this.sendCall(run, generation, namespaceIndex, member, args)
    if (typeof ticket === 'string') run.refusedCallSite = site
    else if (site !== undefined) run.callSites.set(ticket, site)
    return ticket
  }

  /** Sends a call's request; returns its id, or why it is refused. */
  private sendCall(
    run: RunState,
    generation: number,
    namespaceIndex: number,
    member: string,
    args: unknown,
  ): number | string {
    if (generation !== run.generation) {
      return `${String(member)}: this function belongs to the bindings of an earlier run of the session; call it through this run's namespace.`
    }
    const namespace = run.namespaces[namespaceIndex]
    const members = run.memberSets[namespaceIndex]
    if (namespace === undefined || members === undefined || !members.has(member))
      return `${String(member)} is not a tool.`
    if (run.ended) return `${namespace.global}.${member}: the run has already ended.`
    let text: ReturnType<typeof safeLosslessJsonText>
    try {
      text = safeLosslessJsonText(args, { rootLabel: 'args' })
    } catch {
      return `${namespace.global}.${member}: the arguments are too large to send; pass less data per call.`
    }
    if (!text.ok) return `${namespace.global}.${member}: ${formatLosslessJsonRefusal(text.error)}`
    const argsJson = text.value
    const id = ++this.lastCallId
    this.channel.send({ kind: 'call-request', id, namespace: namespaceIndex, member, argsJson })
    return id
  }

  private emitLog(text: string): void {
    const run = this.run
    if (run === undefined || run.ended || run.logBytesSent > run.maxOutputBytes) return
    // The host keeps the authoritative ledger; this count only stops a flood at the source. It
    // must match the host's count exactly (brackets, one comma between entries): stopping one
    // line early would leave the host waiting for the line that crosses the cap.
    run.logBytesSent += jsonStringByteLength(text) + (run.logsSent > 0 ? 1 : 0)
    run.logsSent++
    this.channel.send({ kind: 'log-line', text })
  }

  private clear(timer: Timer): void {
    if (timer.kind === 'immediate') clearImmediate(timer.handle)
    else if (timer.kind === 'interval') clearInterval(timer.handle)
    else clearTimeout(timer.handle)
  }

  private fire(run: RunState, id: number): void {
    if (run.ended || run !== this.run) return
    const timer = run.timers.get(id)
    if (timer !== undefined && timer.kind !== 'interval') run.timers.delete(id)
    try {
      this.control.fireTimer(id)
    } catch (thrown) {
      this.fail(thrown)
    }
  }

  /** The program frames of failed call `id` (0: the call refused last), remembered for `error`. */
  private callErrorFrames(id: number, error: unknown): string {
    const run = this.run
    if (run === undefined) return ''
    const site = id === 0 ? run.refusedCallSite : run.callSites.get(id)
    if (id === 0) run.refusedCallSite = undefined
    else run.callSites.delete(id)
    const report = site === undefined ? undefined : formatCallSite(site)
    if (report === undefined) return ''
    if (typeof error === 'object' && error !== null) run.failedCallPositions.set(error, describeCallPosition(report))
    return report.frames
  }

  private createBootstrapHost(): BootstrapHost {
    // The program's call into the runtime: the call site is captured below it, in this realm.
    const requestCall = (generation: number, namespace: number, member: string, args: unknown): number | string =>
      this.requestCall(generation, namespace, member, args, captureCallSite(requestCall))
    // Each member is a strict-mode arrow over this session; none returns an object.
    return Object.freeze({
      emitLog: (text: string): void => this.emitLog(String(text)),
      formatLog: (args: readonly unknown[], mode: number): string =>
        mode === 1 ? inspectValue(args[0]) : mode === 2 ? formatTable(args[0], args[1]) : formatArguments(args),
      requestCall,
      callErrorFrames: (id: number, error: unknown): string => this.callErrorFrames(id, error),
      completeRun: (value: unknown): void => this.complete(value),
      failRun: (thrown: unknown): void => this.fail(thrown),
      reportUncaught: (thrown: unknown): void => this.fail(thrown),
      scheduleTimer: (id: number, delayMs: number, repeat: boolean): void => {
        const run = this.run
        if (run === undefined || run.ended) return
        const callback = (): void => this.fire(run, id)
        const timer: Timer =
          delayMs < 0
            ? { kind: 'immediate', handle: setImmediate(callback) }
            : repeat
              ? { kind: 'interval', handle: setInterval(callback, delayMs) }
              : { kind: 'timeout', handle: setTimeout(callback, delayMs) }
        run.timers.set(id, timer)
      },
      cancelTimer: (id: number): void => {
        const timers = this.run?.timers
        const timer = timers?.get(id)
        if (timers === undefined || timer === undefined) return
        timers.delete(id)
        this.clear(timer)
      },
      now: (): number => performance.now(),
    })
  }
}
