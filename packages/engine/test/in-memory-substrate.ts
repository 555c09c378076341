/**
 * Test support: substrates that live in the test's own thread, so the engine's host half can be
 * driven without a worker or a child process.
 *
 * - {@link GuestSubstrate} runs a real {@link GuestSession} from the guest half; messages cross
 *   as structured clones on a later macrotask, as they would through a port.
 * - {@link ScriptedSubstrate} has no guest: the test says what the "guest" sends, including what
 *   no honest guest would (forged or malformed messages, an early death, silence).
 *
 * Busy time is whatever the test sets in `busy`: a same-thread guest cannot be measured apart
 * from the test, and a compute budget is easier to drive by hand.
 */
import type {
  HostToGuestMessage,
  SpawnOptions,
  Substrate,
  SubstrateExit,
  SubstrateFactory,
  SubstrateListener,
} from '../src/index.js'
import { GuestSession } from '../src/guest/index.js'
import type { BridgeReply } from '../src/host/binding-bridge.js'
import type { CallResultMessage } from '../src/protocol/messages.js'

/** A bridge reply that must be a call result: a bridge without `resultPartChars` sends no parts. */
export function resultOnly(message: BridgeReply): CallResultMessage {
  if (message.kind !== 'call-result') throw new Error(`expected a call-result, not a ${message.kind}`)
  return message
}

/** Small limits for engines on in-memory substrates: no spawn ahead, budgets a test can reach. */
export const TEST_LIMITS = {
  spawnAhead: 0,
  budgets: { computeMs: 2_000, maxWallMs: 10_000 },
  maxOutputBytes: 4_096,
  maxLogEntries: 100,
  maxPendingCallBytes: 1_000_000,
  maxOldGenerationSizeMb: 64,
} as const

/** A promise with its settle functions, for steering the order of events from a test. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(reason: unknown): void
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve
    reject = onReject
  })
  return { promise, resolve, reject }
}

/** Lets pending immediates (message deliveries) and their continuations run. */
export async function drain(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise(resolve => setImmediate(resolve))
}

/** What every in-memory substrate shares: the listener, busy time, termination and exit. */
abstract class InMemorySubstrate implements Substrate {
  readonly exited: Promise<void>
  /** Every message the host sent, in order. */
  readonly sent: HostToGuestMessage[] = []
  /** Milliseconds `busyMs()` answers; a test raises it to spend compute budget. */
  busy = 0
  /** How often `terminate()` was called (it must be idempotent, but a kill is a kill). */
  terminations = 0
  recycles = 0
  protected listener: SubstrateListener | undefined
  private resolveExited!: () => void
  private hasExited = false

  constructor() {
    this.exited = new Promise(resolve => {
      this.resolveExited = resolve
    })
  }

  get alive(): boolean {
    return !this.hasExited
  }

  get attached(): boolean {
    return this.listener !== undefined
  }

  send(message: HostToGuestMessage): void {
    this.sent.push(message)
    if (this.hasExited) return
    this.deliverToGuest(structuredClone(message))
  }

  attach(listener: SubstrateListener): void {
    this.listener = listener
  }

  resetBusyTime(): void {
    this.busy = 0
  }

  busyMs(): number {
    return this.busy
  }

  /** Like a worker's: the exit is observed a little later, and not reported to the listener. */
  terminate(): void {
    this.terminations++
    if (this.hasExited) return
    this.hasExited = true
    setImmediate(() => this.resolveExited())
  }

  /** The substrate dies on its own: the listener hears why, and `exited` resolves. */
  die(reason: SubstrateExit): void {
    if (this.hasExited) return
    this.hasExited = true
    this.listener?.exit(reason)
    this.resolveExited()
  }

  protected abstract deliverToGuest(message: HostToGuestMessage): void
}

/** A substrate whose guest is a real {@link GuestSession}, run in this thread. */
export class GuestSubstrate extends InMemorySubstrate {
  private session: GuestSession

  constructor() {
    super()
    this.session = this.newSession()
  }

  /** Reuse, as the worker entry does it: a fresh session, then `guest-ready`. */
  recycle(): Promise<void> {
    this.recycles++
    this.listener = undefined
    if (!this.alive) return Promise.reject(new Error('the substrate exited before it was recycled'))
    this.session = this.newSession()
    return Promise.resolve()
  }

  protected deliverToGuest(message: HostToGuestMessage): void {
    setImmediate(() => {
      if (this.alive) this.session.receive(message)
    })
  }

  private newSession(): GuestSession {
    return new GuestSession({
      send: message => {
        const copy = structuredClone(message)
        setImmediate(() => {
          if (this.alive) this.listener?.message(copy)
        })
      },
    })
  }
}

/** How a scripted substrate answers each message the host sends. */
export type GuestScript = (message: HostToGuestMessage, substrate: ScriptedSubstrate) => void

/** A substrate without a guest: it says what its script or the test makes it say. */
export class ScriptedSubstrate extends InMemorySubstrate {
  private readonly script: GuestScript

  constructor(script: GuestScript = () => {}) {
    super()
    this.script = script
  }

  /** The guest sends `raw`, whatever it is, at once. */
  emit(raw: unknown): void {
    if (this.alive) this.listener?.message(raw)
  }

  protected deliverToGuest(message: HostToGuestMessage): void {
    this.script(message, this)
  }
}

/** A scripted substrate that can be recycled (`recycle` resolves unless told otherwise). */
export class RecyclableSubstrate extends ScriptedSubstrate {
  recycleResult: () => Promise<void> = () => Promise.resolve()

  recycle(): Promise<void> {
    this.recycles++
    this.listener = undefined
    return this.recycleResult()
  }
}

/** A factory that records what it spawned; `make` decides each spawn's fate. */
export class InMemoryFactory<S extends Substrate> implements SubstrateFactory {
  readonly spawned: S[] = []
  /** What each spawn was asked for, in call order. */
  readonly spawnOptions: SpawnOptions[] = []
  spawnCalls = 0
  private readonly make: (index: number) => S | Promise<S>

  constructor(make: (index: number) => S | Promise<S>) {
    this.make = make
  }

  async spawn(options: SpawnOptions = {}): Promise<S> {
    this.spawnOptions.push(options)
    const index = this.spawnCalls++
    const substrate = await this.make(index)
    this.spawned.push(substrate)
    return substrate
  }
}

/** A scripted guest that ends every run at once with `value`. */
export function answerRunStart(valueJson: string | null): GuestScript {
  return (message, substrate) => {
    if (message.kind === 'run-start')
      setImmediate(() => substrate.emit({ kind: 'run-end', outcome: 'value', valueJson }))
  }
}
