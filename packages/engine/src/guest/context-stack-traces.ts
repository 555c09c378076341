/**
 * Code that runs INSIDE the program's vm context, before anything else: it decides what every
 * stack trace of the context shows, so that no frame outside the program (the guest runtime's
 * modules, Node's internals, their host paths) is ever visible to the program or in its logs.
 *
 * Node formats the stack of an error by calling `Error.prepareStackTrace` of the realm the error
 * was created in (read from that realm's global `Error`), with V8's CallSite objects. This module
 * makes that property an accessor that always answers one filter: it keeps the program's own
 * frames (and built-ins the program called directly), and formats them as V8 does. A program
 * that installs its own `prepareStackTrace` gets the filtered frames as plain CallSite-like
 * objects of its own realm: never V8's CallSites (their realm is whoever first read the stack,
 * often the substrate's), never a function or a receiver.
 *
 * Like the context bootstrap, {@link installStackTraceFilter} is evaluated from its source text
 * inside the context: it must be self-contained and capture every intrinsic it uses, because the
 * program may replace any of them later. While V8 formats a stack, no program code runs in the
 * filter except a hook the program installed itself.
 *
 * What stays out of reach of any JavaScript filter: V8 formats a stack by itself, unfiltered,
 * when it is read while another stack is being formatted (inside the program's own hook) or when
 * the thread is about to overflow its stack. The README ("What a program gets") states this gap.
 */

/** What the substrate realm offers the filter. Primitives in, primitives out. */
export interface StackTraceHost {
  /** Whether `value` is a proxy: the filter never touches one, since that would run a trap. */
  isProxy(value: unknown): boolean
}

/**
 * @param wrapperFileName the script of the runtime's own wrappers around built-ins (the built-in
 *   guards): its frames are never shown, and a built-in they call counts as called by their caller.
 */
export function installStackTraceFilter(host: StackTraceHost, programFileName: string, wrapperFileName?: string): void {
  'use strict'
  const { isProxy } = host
  const ErrorConstructor = Error
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, create, freeze } = Object
  const { apply } = Reflect
  const stringConstructor = String
  const hasOwn = Object.hasOwn
  const isArray = Array.isArray

  /** A property descriptor that inherits nothing (the program may plant `get`/`value` on Object.prototype). */
  function dataDescriptor(
    value: unknown,
    writable: boolean,
    enumerable: boolean,
    configurable: boolean,
  ): PropertyDescriptor {
    const descriptor = create(null) as PropertyDescriptor
    descriptor.value = value
    descriptor.writable = writable
    descriptor.enumerable = enumerable
    descriptor.configurable = configurable
    return descriptor
  }
  function accessorDescriptor(get: () => unknown, set: (value: unknown) => void): PropertyDescriptor {
    const descriptor = create(null) as PropertyDescriptor
    descriptor.get = get
    descriptor.set = set
    descriptor.enumerable = false
    descriptor.configurable = false
    return descriptor
  }
  function append<Item>(list: Item[], item: Item): void {
    defineProperty(list, list.length, dataDescriptor(item, true, true, true))
  }

  /**
   * Reads a data property along the prototype chain without running any program code: getters
   * and proxies count as absent. V8's own formatter would call them, but a getter running while a
   * stack is formatted would read other stacks through V8's unfiltered fallback.
   */
  function readDataProperty(target: object, key: string): unknown {
    let current: object | null = target
    for (let depth = 0; current !== null && depth < 100; depth++) {
      if (isProxy(current)) return undefined
      const descriptor = getOwnPropertyDescriptor(current, key)
      if (descriptor !== undefined) return hasOwn(descriptor, 'value') ? descriptor.value : undefined
      current = getPrototypeOf(current) as object | null
    }
    return undefined
  }
  function textOf(value: unknown, fallback: string): string {
    if (value === undefined) return fallback
    return typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol'
      ? fallback
      : stringConstructor(value)
  }
  /** The first line of a stack, as `Error.prototype.toString` gives it. */
  function headerOf(error: unknown): string {
    if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return 'Error'
    const name = textOf(readDataProperty(error, 'name'), 'Error')
    const message = textOf(readDataProperty(error, 'message'), '')
    if (name === '') return message
    return message === '' ? name : `${name}: ${message}`
  }

  // --- CallSite snapshots ---------------------------------------------------------------------
  /** What the program may learn of a kept frame: the primitives V8 reports, nothing else. */
  interface FrameRecord {
    readonly [method: string]: unknown
  }
  const SNAPSHOT_METHODS: readonly string[] = freeze([
    'getTypeName',
    'getFunctionName',
    'getMethodName',
    'getFileName',
    'getLineNumber',
    'getColumnNumber',
    'getEvalOrigin',
    'isToplevel',
    'isEval',
    'isNative',
    'isConstructor',
    'isAsync',
    'isPromiseAll',
    'getPromiseIndex',
    'getScriptNameOrSourceURL',
    'getScriptHash',
    'getEnclosingLineNumber',
    'getEnclosingColumnNumber',
    'getPosition',
    'toString',
  ])
  function snapshot(site: unknown): FrameRecord {
    const record = create(null) as Record<string, unknown>
    for (let index = 0; index < SNAPSHOT_METHODS.length; index++) {
      const method = SNAPSHOT_METHODS[index] as string
      let value: unknown
      try {
        const read = (site as Record<string, unknown>)[method]
        value = typeof read === 'function' ? apply(read as () => unknown, site, []) : undefined
      } catch {
        value = undefined
      }
      record[method] =
        typeof value === 'object' || typeof value === 'function' ? (value === null ? null : undefined) : value
    }
    return record
  }

  /** A frame as the program's own `prepareStackTrace` sees it: V8's CallSite API over a snapshot. */
  class CallSite {
    readonly #record: FrameRecord
    constructor(record: FrameRecord) {
      this.#record = record
    }
    getThis(): undefined {
      return undefined
    }
    getFunction(): undefined {
      return undefined
    }
    getTypeName(): unknown {
      return this.#record.getTypeName
    }
    getFunctionName(): unknown {
      return this.#record.getFunctionName
    }
    getMethodName(): unknown {
      return this.#record.getMethodName
    }
    getFileName(): unknown {
      return this.#record.getFileName
    }
    getLineNumber(): unknown {
      return this.#record.getLineNumber
    }
    getColumnNumber(): unknown {
      return this.#record.getColumnNumber
    }
    getEvalOrigin(): unknown {
      return this.#record.getEvalOrigin
    }
    isToplevel(): unknown {
      return this.#record.isToplevel
    }
    isEval(): unknown {
      return this.#record.isEval
    }
    isNative(): unknown {
      return this.#record.isNative
    }
    isConstructor(): unknown {
      return this.#record.isConstructor
    }
    isAsync(): unknown {
      return this.#record.isAsync
    }
    isPromiseAll(): unknown {
      return this.#record.isPromiseAll
    }
    getPromiseIndex(): unknown {
      return this.#record.getPromiseIndex
    }
    getScriptNameOrSourceURL(): unknown {
      return this.#record.getScriptNameOrSourceURL
    }
    getScriptHash(): unknown {
      return this.#record.getScriptHash
    }
    getEnclosingLineNumber(): unknown {
      return this.#record.getEnclosingLineNumber
    }
    getEnclosingColumnNumber(): unknown {
      return this.#record.getEnclosingColumnNumber
    }
    getPosition(): unknown {
      return this.#record.getPosition
    }
    toString(): string {
      return textOf(this.#record.toString, '<anonymous>')
    }
  }

  // --- The filter -----------------------------------------------------------------------------
  /** The script a frame belongs to; only this is read of frames that are not kept. */
  function fileOf(site: unknown): unknown {
    try {
      const read = (site as { getFileName?: unknown }).getFileName
      return typeof read === 'function' ? apply(read as () => unknown, site, []) : undefined
    } catch {
      return undefined
    }
  }
  /**
   * The frames of `trace` the program may see, innermost first: its own (its script is the
   * program), and built-ins (no script at all, such as `Array.map`) only where the program called them.
   */
  function visibleFrames(trace: unknown): FrameRecord[] {
    const records: FrameRecord[] = []
    if (!isArray(trace)) return records
    const sites = trace as unknown[]
    const length = sites.length
    let callerIsProgram = false
    const kept: boolean[] = []
    // Outermost first, so each frame knows whether its caller is the program's.
    for (let index = length - 1; index >= 0; index--) {
      const file = fileOf(sites[index])
      if (wrapperFileName !== undefined && file === wrapperFileName) {
        // A guard stands in for the built-in it wraps: hidden, and transparent to the frame below.
        defineProperty(kept, index, dataDescriptor(false, true, true, true))
        continue
      }
      const isProgram = file === programFileName
      defineProperty(
        kept,
        index,
        dataDescriptor(isProgram || ((file === undefined || file === null) && callerIsProgram), true, true, true),
      )
      callerIsProgram = isProgram
    }
    for (let index = 0; index < length; index++) {
      if (kept[index] === true) append(records, snapshot(sites[index]))
    }
    return records
  }
  function formatDefault(error: unknown, frames: readonly FrameRecord[]): string {
    let text = headerOf(error)
    for (let index = 0; index < frames.length; index++) {
      text = `${text}\n    at ${textOf((frames[index] as FrameRecord).toString, '<anonymous>')}`
    }
    return text
  }

  let programHook: unknown
  let inProgramHook = false
  const prepareStackTrace = function prepareStackTrace(error: unknown, trace: unknown): unknown {
    const frames = visibleFrames(trace)
    // Called again from inside the program's own hook (a hook that delegates to the value it
    // found here): format, do not loop.
    if (typeof programHook !== 'function' || inProgramHook) return formatDefault(error, frames)
    const sites: CallSite[] = []
    for (let index = 0; index < frames.length; index++) append(sites, new CallSite(frames[index] as FrameRecord))
    inProgramHook = true
    try {
      return apply(programHook as (error: unknown, sites: CallSite[]) => unknown, ErrorConstructor, [error, sites])
    } finally {
      inProgramHook = false
    }
  }
  // The accessor cannot be removed or redefined, so the filter stays in front of any hook the
  // program sets; assigning the filter itself back (the usual save-and-restore) removes the hook.
  defineProperty(
    ErrorConstructor,
    'prepareStackTrace',
    accessorDescriptor(
      () => prepareStackTrace,
      (value: unknown) => {
        programHook = value === prepareStackTrace ? undefined : value
      },
    ),
  )
  // Node reads `Error` from the context's global: it must stay this realm's Error.
  defineProperty(globalThis, 'Error', dataDescriptor(ErrorConstructor, false, false, false))
}
