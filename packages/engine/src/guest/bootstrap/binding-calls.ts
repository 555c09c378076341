/**
 * The binding namespaces of a run: each member a function that asks the host to make the call
 * and returns a promise of the context's realm, settled when the host sends the result (in parts
 * for a large one, parsed here out of the program's sight) or the failure.
 */
import type { BootstrapControl } from '../context-bootstrap.js'
import type { BootstrapKit } from './bootstrap-kit.js'

export interface BindingCalls extends Pick<BootstrapControl, 'installNamespaces' | 'receivePart' | 'settleCall'> {
  /** Forgets every call still pending of the run that ended. */
  forgetCalls(): void
}

export function createBindingCalls({ primordials, host, defineGlobal }: BootstrapKit): BindingCalls {
  const { requestCall, callErrorFrames } = host
  const {
    contextGlobal: global,
    defineProperty,
    getOwnPropertyDescriptor,
    hasOwn,
    deleteProperty,
    freeze,
    create,
    isArray,
    jsonParse: parseJson,
    PromiseConstructor,
    ErrorConstructor,
    RangeErrorConstructor,
    MapConstructor,
    mapGet,
    mapSet,
    mapHas,
    mapDelete,
    mapForEach,
    defineData,
    setPrototypeOf,
    ArrayPrototype,
  } = primordials
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
    const specs = parseJson(specJson) as {
      global: string
      members: string[]
      errorClass: { name: string; memberNameProperty: string } | null
    }[]
    const previous = installedGlobals
    installedGlobals = new MapConstructor<string, unknown>()
    const install = (name: string, value: unknown): void => {
      defineGlobal(name, value)
      mapSet(installedGlobals, name, value)
    }
    for (let namespaceIndex = 0; namespaceIndex < specs.length; namespaceIndex++) {
      const spec = specs[namespaceIndex] as (typeof specs)[number]
      const ErrorClass =
        spec.errorClass === null
          ? undefined
          : createErrorClass(spec.errorClass.name, spec.errorClass.memberNameProperty)
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
            defineData(
              error as object,
              'stack',
              `${message === '' ? errorName : `${errorName}: ${message}`}\n${frames}`,
              false,
            )
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
              mapSet(pendingCalls, id, {
                resolve,
                reject,
                fail,
                received: undefined,
                partCount: 0,
                partChars: 0,
                voided: undefined,
              })
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
      if (descriptor !== undefined && hasOwn(descriptor, 'value') && descriptor.value === value)
        deleteProperty(global, name as string)
    })
  }

  function forgetCalls(): void {
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

  return freeze({ installNamespaces, receivePart, settleCall, forgetCalls })
}
