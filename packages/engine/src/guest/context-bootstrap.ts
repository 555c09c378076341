/**
 * Code that runs INSIDE the program's vm context, before the program: it builds every global the
 * program gets (console, timers, the `process` shim, binding namespaces, error classes) out of
 * the context's own intrinsics, so no object of the substrate's realm is ever reachable from the
 * program.
 *
 * {@link contextBootstrap} is not called as an import: the guest runtime evaluates its source
 * text (`Function.prototype.toString`) inside the context. It must therefore be self-contained:
 * no imports, no module-level names, no Node globals. Every intrinsic it uses comes from the
 * context's {@link Primordials}, captured before the program runs, because the program may
 * replace any global or prototype method later.
 *
 * The host functions it receives are substrate-realm functions. They stay in local constants, are
 * only ever called directly with primitives or program values, return primitives, and every call
 * sits in a try/catch that throws a fresh context-realm error instead of the caught value.
 */

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

export function contextBootstrap(primordials: Primordials, host: BootstrapHost, webGlobals: ContextWebGlobals, limits: ResourceGuardLimits): BootstrapControl {
  'use strict'
  const { emitLog, formatLog, requestCall, callErrorFrames, completeRun, failRun, reportUncaught, scheduleTimer, cancelTimer, now } = host
  const {
    contextGlobal: global, defineProperty, getOwnPropertyDescriptor, hasOwn, deleteProperty, freeze, create, objectKeys, apply, isArray, jsonParse: parseJson, PromiseConstructor, promiseThen, ErrorConstructor,
    TypeErrorConstructor, RangeErrorConstructor, MapConstructor, mapGet, mapSet, mapHas, mapDelete, mapSize, SetConstructor, setHas, setSize, StringConstructor: stringConstructor,
    NumberConstructor: numberConstructor, mapForEach, stringIncludes, stringSplit, stringSlice, arrayJoin, mathTrunc,
    // Defines with a descriptor that inherits nothing: by the time a call fails, the program may
    // have planted `get` or `value` on Object.prototype.
    defineData, setPrototypeOf, ArrayPrototype,
  } = primordials
  const resolvedPromise = PromiseConstructor.resolve()

  /** Calls a host function; a failure becomes a fresh context-realm error, never the caught value. */
  function callHost<Result>(run: () => Result): Result {
    try {
      return run()
    } catch {
      throw new ErrorConstructor('The sandbox could not complete this operation.')
    }
  }

  function defineGlobal(name: string, value: unknown): void {
    defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false })
  }

  // --- Resource guards -------------------------------------------------------------------------
  // Some allocations abort the whole process in V8 instead of throwing. Refusing them here turns
  // a host crash into an ordinary RangeError the program can see.
  function guardMethod(owner: object, name: string, check: (receiver: unknown, args: unknown[]) => void): void {
    const original = (owner as Record<string, (...args: unknown[]) => unknown>)[name] as (...args: unknown[]) => unknown
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        check(this, args)
        return apply(original, this, args)
      },
    }[name] as (...args: unknown[]) => unknown
    // The native `length` (2 for Map.prototype.set, 1 for Set.prototype.add), not the rest parameter's 0.
    defineProperty(guarded, 'length', { value: original.length, configurable: true })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  guardMethod(MapConstructor.prototype, 'set', (receiver, args) => {
    const size = mapSize(receiver)
    if (size >= limits.maxCollectionSize && !mapHas(receiver as Map<unknown, unknown>, args[0])) {
      throw new RangeErrorConstructor(`Map maximum size exceeded (${limits.maxCollectionSize} entries in this sandbox)`)
    }
  })
  guardMethod(SetConstructor.prototype, 'add', (receiver, args) => {
    const size = setSize(receiver)
    if (size >= limits.maxCollectionSize && !setHas(receiver, args[0])) {
      throw new RangeErrorConstructor(`Set maximum size exceeded (${limits.maxCollectionSize} entries in this sandbox)`)
    }
  })
  // Array and string built-ins are guarded by builtin-guards.ts, installed before this bootstrap.
  // WebAssembly compilation is disabled in this context; remove the namespace so nothing pretends otherwise.
  delete (global as Record<string, unknown>).WebAssembly

  // --- Console ---------------------------------------------------------------------------------
  let groupIndent = ''
  function emit(text: string): void {
    let entry = text
    if (groupIndent !== '') {
      entry = arrayJoin(stringSplit(text, '\n'), `\n${groupIndent}`)
      entry = groupIndent + entry
    }
    callHost(() => emitLog(entry))
  }
  function format(args: unknown[], mode: number): string {
    return callHost(() => formatLog(args, mode))
  }
  const counts = new MapConstructor<string, number>()
  const timers = new MapConstructor<string, number>()
  function labelOf(label: unknown): string {
    return label === undefined ? 'default' : stringConstructor(label)
  }
  function elapsed(label: string): string | undefined {
    const start = mapGet(timers, label) as number | undefined
    if (start === undefined) return undefined
    const ms = callHost(() => now()) - start
    return `${label}: ${mathTrunc(ms * 1000) / 1000}ms`
  }
  // Strings and numbers, with no format directive in the first, print exactly as the formatter
  // would print them: the common case skips the call into the sandbox's realm.
  function formatSimple(args: readonly unknown[]): string | undefined {
    let text = ''
    for (let index = 0; index < args.length; index++) {
      const arg = args[index]
      let part: string
      if (typeof arg === 'string') {
        if (index === 0 && stringIncludes(arg, '%')) return undefined
        part = arg
      } else if (typeof arg === 'number') {
        part = arg === 0 && 1 / arg < 0 ? '-0' : stringConstructor(arg)
      } else {
        return undefined
      }
      text = index === 0 ? part : `${text} ${part}`
    }
    return text
  }
  const plain = (...args: unknown[]): void => emit(formatSimple(args) ?? format(args, 0))
  const consoleObject = {
    log: plain,
    info: plain,
    debug: plain,
    warn: plain,
    error: plain,
    trace(...args: unknown[]): void {
      emit(args.length > 0 ? `Trace: ${format(args, 0)}` : 'Trace')
    },
    dir(value?: unknown): void {
      emit(format([value], 1))
    },
    dirxml: plain,
    table(data?: unknown, columns?: unknown): void {
      // As Node: a `columns` that is not an array is the caller's error, whatever the data.
      if (columns !== undefined && !isArray(columns)) throw new TypeErrorConstructor('console.table(data, columns): columns must be an array of property names.')
      emit(typeof data === 'object' && data !== null ? format([data, columns], 2) : format([data], 0))
    },
    assert(condition?: unknown, ...args: unknown[]): void {
      if (condition) return
      emit(args.length > 0 ? `Assertion failed: ${format(args, 0)}` : 'Assertion failed')
    },
    count(label?: unknown): void {
      const key = labelOf(label)
      const next = ((mapGet(counts, key) as number | undefined) ?? 0) + 1
      mapSet(counts, key, next)
      emit(`${key}: ${next}`)
    },
    countReset(label?: unknown): void {
      mapSet(counts, labelOf(label), 0)
    },
    time(label?: unknown): void {
      mapSet(timers, labelOf(label), callHost(() => now()))
    },
    timeLog(label?: unknown, ...args: unknown[]): void {
      const key = labelOf(label)
      const line = elapsed(key)
      emit(line === undefined ? `Warning: No such label '${key}' for console.timeLog()` : args.length > 0 ? `${line} ${format(args, 0)}` : line)
    },
    timeEnd(label?: unknown): void {
      const key = labelOf(label)
      const line = elapsed(key)
      mapDelete(timers, key)
      emit(line ?? `Warning: No such label '${key}' for console.timeEnd()`)
    },
    group(...labels: unknown[]): void {
      if (labels.length > 0) emit(format(labels, 0))
      groupIndent += '  '
    },
    groupCollapsed(...labels: unknown[]): void {
      if (labels.length > 0) emit(format(labels, 0))
      groupIndent += '  '
    },
    groupEnd(): void {
      groupIndent = stringSlice(groupIndent, 0, -2)
    },
    clear(): void {},
  }
  defineGlobal('console', consoleObject)

  // --- Tasks: microtasks and timers ------------------------------------------------------------
  function runCallback(callback: unknown, args: readonly unknown[]): void {
    try {
      apply(callback as (...a: unknown[]) => unknown, undefined, args)
    } catch (thrown) {
      callHost(() => reportUncaught(thrown))
    }
  }
  defineGlobal('queueMicrotask', function queueMicrotask(callback: unknown): void {
    if (typeof callback !== 'function') throw new TypeErrorConstructor('The "callback" argument must be of type function')
    void promiseThen(resolvedPromise, () => runCallback(callback, []))
  })

  interface TimerEntry { readonly callback: unknown; readonly args: readonly unknown[]; readonly repeat: boolean }
  let timerEntries = new MapConstructor<number, TimerEntry>()
  let lastTimerId = 0
  function toDelay(delay: unknown): number {
    const ms = numberConstructor(delay)
    // As in Node: anything not in [1, 2^31 - 1] becomes 1.
    // MAX_TIMER_MS as a literal: this function is compiled from its own source inside the context.
    return ms >= 1 && ms <= 2147483647 ? mathTrunc(ms) : 1
  }
  function addTimer(callback: unknown, delayMs: number, repeat: boolean, args: unknown[]): number {
    if (typeof callback !== 'function') throw new TypeErrorConstructor('The "callback" argument must be of type function')
    const id = ++lastTimerId
    mapSet(timerEntries, id, { callback, args, repeat })
    callHost(() => scheduleTimer(id, delayMs, repeat))
    return id
  }
  function clearTimer(id: unknown): void {
    if (typeof id !== 'number' || !mapHas(timerEntries, id)) return
    mapDelete(timerEntries, id)
    callHost(() => cancelTimer(id))
  }
  defineGlobal('setTimeout', function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
    return addTimer(callback, toDelay(delay), false, args)
  })
  defineGlobal('setInterval', function setInterval(callback: unknown, delay?: unknown, ...args: unknown[]): number {
    return addTimer(callback, toDelay(delay), true, args)
  })
  defineGlobal('setImmediate', function setImmediate(callback: unknown, ...args: unknown[]): number {
    return addTimer(callback, -1, false, args)
  })
  defineGlobal('clearTimeout', function clearTimeout(id?: unknown): void {
    clearTimer(id)
  })
  defineGlobal('clearInterval', function clearInterval(id?: unknown): void {
    clearTimer(id)
  })
  defineGlobal('clearImmediate', function clearImmediate(id?: unknown): void {
    clearTimer(id)
  })

  // --- Web globals -----------------------------------------------------------------------------
  for (const name of objectKeys(webGlobals)) defineGlobal(name, webGlobals[name])
  const TextDecoderConstructor = webGlobals.TextDecoder as (new () => { decode(input: unknown): string }) | undefined

  // --- The minimal `process` shim --------------------------------------------------------------
  function createStream(): object {
    return freeze({
      write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
        let text: string
        if (typeof chunk === 'string') text = chunk
        else if (TextDecoderConstructor !== undefined && typeof chunk === 'object' && chunk !== null) {
          text = new TextDecoderConstructor().decode(chunk)
        } else {
          throw new TypeErrorConstructor('The "chunk" argument must be of type string or Uint8Array')
        }
        callHost(() => emitLog(text))
        const done = typeof encoding === 'function' ? encoding : callback
        if (typeof done === 'function') void promiseThen(resolvedPromise, () => runCallback(done, []))
        return true
      },
    })
  }
  defineGlobal('process', freeze({ stdout: createStream(), stderr: createStream(), env: freeze(create(null) as object) }))

  // --- Binding namespaces ----------------------------------------------------------------------
  interface PendingCall {
    readonly resolve: (value: unknown) => void
    readonly reject: (reason: unknown) => void
    /** The error call `id` rejects with. */
    readonly fail: (message: string, id: number) => unknown
    /** The elements of the parts received so far, in one array; undefined before the first. */
    received: unknown[] | undefined
    /** Parts received, and their characters: checked when the call settles. */
    partCount: number
    partChars: number
    /** Why a part could not be taken (past the size budget, not an array); the call fails when it settles. */
    voided: 'too-large' | 'malformed' | undefined
  }
  let pendingCalls = new MapConstructor<number, PendingCall>()
  /** The namespace globals (and error classes) installed last, with the value each was given. */
  let installedGlobals = new MapConstructor<string, unknown>()

  function createErrorClass(name: string, memberNameProperty: string): new (message: string, member: string) => Error {
    const ErrorClass = class extends ErrorConstructor {
      constructor(message?: string, member?: string) {
        super(message)
        defineData(this, memberNameProperty, member, true)
      }
    }
    defineProperty(ErrorClass, 'name', { value: name })
    defineProperty(ErrorClass.prototype, 'name', { value: name, writable: true, enumerable: false, configurable: true })
    return ErrorClass as new (message: string, member: string) => Error
  }

  function installNamespaces(specJson: string, generation: number): void {
    const specs = parseJson(specJson) as { global: string; members: string[]; errorClass: { name: string; memberNameProperty: string } | null }[]
    const previous = installedGlobals
    installedGlobals = new MapConstructor<string, unknown>()
    const install = (name: string, value: unknown): void => {
      defineGlobal(name, value)
      mapSet(installedGlobals, name, value)
    }
    for (let namespaceIndex = 0; namespaceIndex < specs.length; namespaceIndex++) {
      const spec = specs[namespaceIndex] as (typeof specs)[number]
      const ErrorClass = spec.errorClass === null ? undefined : createErrorClass(spec.errorClass.name, spec.errorClass.memberNameProperty)
      const namespace = create(null) as Record<string, unknown>
      const globalName = spec.global
      for (let memberIndex = 0; memberIndex < spec.members.length; memberIndex++) {
        const member = spec.members[memberIndex] as string
        const errorName = spec.errorClass === null ? 'Error' : spec.errorClass.name
        const fail = (message: string, id: number): unknown => {
          const error = ErrorClass === undefined ? new ErrorConstructor(message) : new ErrorClass(message, member)
          // The stack starts where the program made the call, not where its result arrived.
          let frames = ''
          try {
            frames = callErrorFrames(id, error)
          } catch {
            frames = ''
          }
          if (typeof frames === 'string' && frames !== '') {
            defineData(error as object, 'stack', `${message === '' ? errorName : `${errorName}: ${message}`}\n${frames}`, false)
          }
          return error
        }
        const binding = {
          [member](args?: unknown): Promise<unknown> {
            // `tools.list()` means "no arguments": the host still receives exactly one, `{}`.
            const given = arguments.length === 0 ? {} : args
            let ticket: number | string
            try {
              ticket = requestCall(generation, namespaceIndex, member, given)
            } catch {
              ticket = `${globalName}.${member}: the call could not be sent.`
            }
            if (typeof ticket === 'string') {
              const message = ticket
              return new PromiseConstructor((_resolve, reject) => reject(fail(message, 0)))
            }
            const id = ticket
            return new PromiseConstructor((resolve, reject) => {
              mapSet(pendingCalls, id, { resolve, reject, fail, received: undefined, partCount: 0, partChars: 0, voided: undefined })
            })
          },
        }[member] as (args?: unknown) => Promise<unknown>
        defineProperty(namespace, member, { value: binding, writable: true, enumerable: true, configurable: true })
      }
      install(globalName, namespace)
      if (ErrorClass !== undefined && spec.errorClass !== null) install(spec.errorClass.name, ErrorClass)
    }
    // A global the last run was given and this one is not: gone, unless the program put a value
    // of its own there (that value is the session's state).
    mapForEach(previous, (value, name) => {
      if (mapHas(installedGlobals, name)) return
      const descriptor = getOwnPropertyDescriptor(global, name as string)
      if (descriptor !== undefined && hasOwn(descriptor, 'value') && descriptor.value === value) deleteProperty(global, name as string)
    })
  }

  function endRun(): void {
    timerEntries = new MapConstructor<number, TimerEntry>()
    pendingCalls = new MapConstructor<number, PendingCall>()
  }

  /**
   * Appends `items` to `target`, an array kept without a prototype while it is built: the program
   * may have put setters on Array.prototype's indexes, which an assignment past the end would run
   * (defining each index instead cost ~20 ms on 33 000 elements, this ~0.3 ms).
   */
  function appendElements(target: unknown[], items: unknown[]): void {
    let length = target.length
    for (let index = 0; index < items.length; index++) target[length++] = items[index]
  }

  function receivePart(id: number, json: string, maxChars: number): void {
    const pending = mapGet(pendingCalls, id) as PendingCall | undefined
    if (pending === undefined) return
    pending.partCount++
    pending.partChars += json.length
    if (pending.voided !== undefined) return
    let items: unknown
    try {
      // Checked first: the sandbox's own JSON.parse guard would only see this one part.
      if (pending.partChars > maxChars) throw new RangeErrorConstructor('too large')
      items = parseJson(json)
    } catch {
      pending.voided = 'too-large'
    }
    if (pending.voided === undefined && !isArray(items)) pending.voided = 'malformed'
    if (pending.voided !== undefined) pending.received = undefined
    else if (pending.received === undefined) pending.received = setPrototypeOf(items, null) as unknown[]
    else appendElements(pending.received, items as unknown[])
  }

  // Only a host that broke the protocol sends parts that do not add up.
  const INCOMPLETE_RESULT = 'The tool result arrived incomplete; the call failed.'

  function tooLargeMessage(chars: number): string {
    return `The tool result (${chars} characters of JSON) is too large to read in the sandbox; ask the tool for less data.`
  }

  function settleCall(id: number, ok: boolean, payload: string, parts: number, maxChars: number): void {
    const pending = mapGet(pendingCalls, id) as PendingCall | undefined
    if (pending === undefined) return
    mapDelete(pendingCalls, id)
    if (!ok) {
      pending.reject(pending.fail(payload, id))
      return
    }
    if (parts !== pending.partCount || pending.voided === 'malformed') {
      pending.reject(pending.fail(INCOMPLETE_RESULT, id))
      return
    }
    const chars = pending.partChars + payload.length
    if (pending.voided === 'too-large' || chars > maxChars) {
      pending.reject(pending.fail(tooLargeMessage(chars), id))
      return
    }
    let value: unknown
    try {
      value = parseJson(payload)
    } catch {
      // The host sent lossless JSON, so the one way to get here is the sandbox's own JSON.parse
      // size guard refusing a huge result: say how big it was and what to do.
      pending.reject(pending.fail(tooLargeMessage(chars), id))
      return
    }
    if (pending.received !== undefined) {
      if (!isArray(value)) {
        pending.reject(pending.fail(INCOMPLETE_RESULT, id))
        return
      }
      appendElements(pending.received, value)
      value = setPrototypeOf(pending.received, ArrayPrototype)
    }
    pending.resolve(value)
  }

  function fireTimer(id: number): void {
    const entry = mapGet(timerEntries, id) as TimerEntry | undefined
    if (entry === undefined) return
    if (!entry.repeat) mapDelete(timerEntries, id)
    runCallback(entry.callback, entry.args)
  }

  function runProgram(main: unknown, keep?: unknown): void {
    let completion: unknown
    try {
      completion = apply(main as () => unknown, undefined, keep === undefined ? [] : [keep])
    } catch (thrown) {
      callHost(() => failRun(thrown))
      return
    }
    // The original `then`, applied directly: a program that replaced Promise.prototype.then
    // before its first await must not see (or break) how its completion is collected.
    const onValue = (value: unknown): void => { callHost(() => completeRun(value)) }
    const onError = (thrown: unknown): void => { callHost(() => failRun(thrown)) }
    try {
      void promiseThen(completion as Promise<unknown>, onValue, onError)
      return
    } catch {
      // Not a native promise (the source closed the wrapper early): resolve it as a value below.
    }
    const settled = new PromiseConstructor((resolve) => resolve(completion))
    void promiseThen(settled, onValue, onError)
  }

  return freeze({ installNamespaces, runProgram, receivePart, settleCall, fireTimer, endRun })
}
