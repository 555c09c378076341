/**
 * The in-substrate runtime, shared by every backend that runs programs in a Node process of its
 * own (a worker thread, a child process): it prepares a fresh vm context ahead of the run,
 * compiles and starts the program, bridges binding calls and logs to the host through a
 * {@link GuestChannel}, and reports the outcome. Each backend only adds its transport.
 *
 * One GuestSession runs at most one program.
 */
import vm from 'node:vm'
import { getHeapStatistics } from 'node:v8'
import { types } from 'node:util'
import { safeLosslessJsonText, formatLosslessJsonRefusal, jsonStringByteLength } from '@code-runtime/core/json'
import { decodeHostMessage, type GuestToHostMessage, type NamespaceSpec, type RunStartMessage } from '../protocol/messages.js'
import { contextBootstrap, type BootstrapControl, type BootstrapHost, type ContextWebGlobals, type ResourceGuardLimits } from './context-bootstrap.js'
import { installBuiltinGuards, type BuiltinGuardHost, type BuiltinGuardLimits } from './builtin-guards.js'
import { createWebGlobals } from './context-globals/web-globals.js'
import { compileContextScript } from './context-script.js'
import { capturePrimordials } from './primordials.js'
import { createWebGlobalsHost } from './web-globals-host.js'
import { installStackTraceFilter, type StackTraceHost } from './context-stack-traces.js'
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
const BUILTIN_GUARD_HOST: BuiltinGuardHost = Object.freeze({ isProxy: (value: unknown): boolean => types.isProxy(value) })

/**
 * Node's marker for a context whose global is an ordinary object (Node 20.18+): no interceptors
 * between the program and its globals, which is both faster and free of the interceptors' bugs.
 */
const DONT_CONTEXTIFY = (vm.constants as Partial<typeof vm.constants> | undefined)?.DONT_CONTEXTIFY

// Compiled once per process and run in each fresh context, in this order (the web globals' own
// scripts are compiled by their module).
const stackTracesScript = compileContextScript(installStackTraceFilter, 'code-runtime:stack-traces')
const guardsScript = compileContextScript(installBuiltinGuards, 'code-runtime:guards')
const primordialsScript = compileContextScript(capturePrimordials, 'code-runtime:primordials')
const bootstrapScript = compileContextScript(contextBootstrap, 'code-runtime:bootstrap')
const STACK_TRACE_HOST: StackTraceHost = Object.freeze({ isProxy: (value: unknown): boolean => types.isProxy(value) })

type Timer = { readonly kind: 'timeout' | 'interval'; readonly handle: NodeJS.Timeout } | { readonly kind: 'immediate'; readonly handle: NodeJS.Immediate }

/** A prepared context waiting for its one program. */
export class GuestSession {
  private readonly channel: GuestChannel
  private readonly context: vm.Context
  private readonly control: BootstrapControl
  private readonly timers = new Map<number, Timer>()
  private namespaces: readonly NamespaceSpec[] = []
  private memberSets: ReadonlySet<string>[] = []
  private lastCallId = 0
  /** Where the program made each call still in flight, by call id. */
  private readonly callSites = new Map<number, CapturedCallSite>()
  /** Where the program made the call {@link requestCall} refused last, until its error is made. */
  private refusedCallSite: CapturedCallSite | undefined
  /**
   * Where each failed call's error was made, by the error object: the position the run reports
   * when that error ends it, whatever the program did to the error's own `stack`.
   */
  private readonly failedCallPositions = new WeakMap<object, string>()
  private started = false
  private ended = false
  private logBytesSent = 2
  private logsSent = 0
  private maxOutputBytes = Number.MAX_SAFE_INTEGER

  constructor(channel: GuestChannel, options: GuestSessionOptions = {}) {
    this.channel = channel
    this.context = vm.createContext(DONT_CONTEXTIFY ?? Object.create(null) as object, {
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
    const webGlobals = createWebGlobals(this.context, primordials, createWebGlobalsHost()) as unknown as ContextWebGlobals
    this.control = bootstrapScript.runIn(this.context)(primordials, this.createBootstrapHost(), webGlobals, RESOURCE_LIMITS)
  }

  /** Handles one raw message from the host. Never throws. */
  receive(raw: unknown): void {
    const decoded = decodeHostMessage(raw)
    if (!decoded.ok) return
    const message = decoded.message
    switch (message.kind) {
      case 'run-start':
        this.start(message)
        return
      case 'recycle':
        // Handled by the substrate's entry module, which replaces this session.
        return
      case 'call-part':
        if (this.ended) return
        try {
          this.control.receivePart(message.id, message.json, MAX_RESULT_JSON_CHARS)
        } catch {
          this.end({ kind: 'run-end', outcome: 'exception', message: 'The sandbox failed while delivering a tool result.' })
        }
        return
      case 'call-result':
        if (this.ended) return
        try {
          if (message.ok) this.control.settleCall(message.id, true, message.valueJson, message.parts ?? 0, MAX_RESULT_JSON_CHARS)
          else this.control.settleCall(message.id, false, message.message, 0, MAX_RESULT_JSON_CHARS)
        } catch {
          // The program's own code cannot run here; a failure means the context is unusable.
          this.end({ kind: 'run-end', outcome: 'exception', message: 'The sandbox failed while delivering a tool result.' })
        } finally {
          this.callSites.delete(message.id)
        }
        return
    }
  }

  private start(message: RunStartMessage): void {
    if (this.started) return
    this.started = true
    this.namespaces = message.namespaces
    this.memberSets = message.namespaces.map((namespace) => new Set(namespace.members))
    this.maxOutputBytes = message.maxOutputBytes
    let main: unknown
    try {
      const script = new vm.Script(message.source, { filename: PROGRAM_FILENAME, lineOffset: -1 })
      main = script.runInContext(this.context, { displayErrors: false })
    } catch (error) {
      this.end({ kind: 'run-end', outcome: 'exception', message: describeCompileError(error) })
      return
    }
    try {
      this.control.installNamespaces(JSON.stringify(message.namespaces))
      this.control.runProgram(main)
    } catch (thrown) {
      this.fail(thrown)
    }
  }

  private end(message: GuestToHostMessage & { kind: 'run-end' }): void {
    if (this.ended) return
    this.ended = true
    for (const timer of this.timers.values()) this.clear(timer)
    this.timers.clear()
    this.channel.send({ ...message, heapBytes: getHeapStatistics().total_heap_size })
  }

  private fail(thrown: unknown): void {
    if (this.ended) return
    const position = typeof thrown === 'object' && thrown !== null ? this.failedCallPositions.get(thrown) : undefined
    this.end({ kind: 'run-end', outcome: 'exception', message: describeThrown(thrown, inspectValue, position) })
  }

  private complete(value: unknown): void {
    if (this.ended) return
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
      this.end({ kind: 'run-end', outcome: 'invalid-output', message: 'The return value is too large to send; return less data.' })
      return
    }
    if (!text.ok) {
      this.end({ kind: 'run-end', outcome: 'invalid-output', message: formatLosslessJsonRefusal(text.refusal) })
      return
    }
    this.end({ kind: 'run-end', outcome: 'value', valueJson: text.text })
  }

  /** Starts a call the program made; `site` is where in the program it made it. */
  private requestCall(namespaceIndex: number, member: string, args: unknown, site: CapturedCallSite | undefined): number | string {
    // Recorded once the call is sent or refused: reading the arguments may run program code
    // that makes calls of its own.
    const ticket = this.sendCall(namespaceIndex, member, args)
    if (typeof ticket === 'string') this.refusedCallSite = site
    else if (site !== undefined) this.callSites.set(ticket, site)
    return ticket
  }

  /** Sends a call's request; returns its id, or why it is refused. */
  private sendCall(namespaceIndex: number, member: string, args: unknown): number | string {
    const namespace = this.namespaces[namespaceIndex]
    const members = this.memberSets[namespaceIndex]
    if (namespace === undefined || members === undefined || !members.has(member)) return `${String(member)} is not a tool.`
    if (this.ended) return `${namespace.global}.${member}: the run has already ended.`
    let text: ReturnType<typeof safeLosslessJsonText>
    try {
      text = safeLosslessJsonText(args, { rootLabel: 'args' })
    } catch {
      return `${namespace.global}.${member}: the arguments are too large to send; pass less data per call.`
    }
    if (!text.ok) return `${namespace.global}.${member}: ${formatLosslessJsonRefusal(text.refusal)}`
    const argsJson = text.text
    const id = ++this.lastCallId
    this.channel.send({ kind: 'call-request', id, namespace: namespaceIndex, member, argsJson })
    return id
  }

  private emitLog(text: string): void {
    if (this.ended || this.logBytesSent > this.maxOutputBytes) return
    // The host keeps the authoritative ledger; this count only stops a flood at the source. It
    // must match the host's count exactly (brackets, one comma between entries): stopping one
    // line early would leave the host waiting for the line that crosses the cap.
    this.logBytesSent += jsonStringByteLength(text) + (this.logsSent > 0 ? 1 : 0)
    this.logsSent++
    this.channel.send({ kind: 'log-line', text })
  }

  private clear(timer: Timer): void {
    if (timer.kind === 'immediate') clearImmediate(timer.handle)
    else if (timer.kind === 'interval') clearInterval(timer.handle)
    else clearTimeout(timer.handle)
  }

  private fire(id: number): void {
    if (this.ended) return
    const timer = this.timers.get(id)
    if (timer !== undefined && timer.kind !== 'interval') this.timers.delete(id)
    try {
      this.control.fireTimer(id)
    } catch (thrown) {
      this.fail(thrown)
    }
  }

  /** The program frames of failed call `id` (0: the call refused last), remembered for `error`. */
  private callErrorFrames(id: number, error: unknown): string {
    const site = id === 0 ? this.refusedCallSite : this.callSites.get(id)
    if (id === 0) this.refusedCallSite = undefined
    else this.callSites.delete(id)
    const report = site === undefined ? undefined : formatCallSite(site)
    if (report === undefined) return ''
    if (typeof error === 'object' && error !== null) this.failedCallPositions.set(error, describeCallPosition(report))
    return report.frames
  }

  private createBootstrapHost(): BootstrapHost {
    // The program's call into the runtime: the call site is captured below it, in this realm.
    const requestCall = (namespace: number, member: string, args: unknown): number | string =>
      this.requestCall(namespace, member, args, captureCallSite(requestCall))
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
        if (this.ended) return
        const callback = (): void => this.fire(id)
        const timer: Timer = delayMs < 0
          ? { kind: 'immediate', handle: setImmediate(callback) }
          : repeat
            ? { kind: 'interval', handle: setInterval(callback, delayMs) }
            : { kind: 'timeout', handle: setTimeout(callback, delayMs) }
        this.timers.set(id, timer)
      },
      cancelTimer: (id: number): void => {
        const timer = this.timers.get(id)
        if (timer === undefined) return
        this.timers.delete(id)
        this.clear(timer)
      },
      now: (): number => performance.now(),
    })
  }
}
