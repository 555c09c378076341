/**
 * The program's tasks: `queueMicrotask` on the context's own promise queue, and timers the host
 * schedules and fires back by id. An ended run's timers are forgotten so none runs into the next.
 */
import type { BootstrapKit } from './bootstrap-kit.js'

export interface ProgramTasks {
  /** Calls a program's callback; what it throws is reported as uncaught, never raised here. */
  runCallback(callback: unknown, args: readonly unknown[]): void
  /** Runs timer `id`'s callback, if the timer is still set. */
  fireTimer(id: number): void
  /** Forgets every timer of the run that ended. */
  forgetTimers(): void
}

export function installTasks({
  primordials,
  host,
  defineGlobal,
  callHost,
  resolvedPromise,
}: BootstrapKit): ProgramTasks {
  const { reportUncaught, scheduleTimer, cancelTimer } = host
  const {
    apply,
    promiseThen,
    TypeErrorConstructor,
    MapConstructor,
    mapGet,
    mapSet,
    mapHas,
    mapDelete,
    NumberConstructor: numberConstructor,
    mathTrunc,
    freeze,
  } = primordials
  function runCallback(callback: unknown, args: readonly unknown[]): void {
    try {
      apply(callback as (...a: unknown[]) => unknown, undefined, args)
    } catch (thrown) {
      callHost(() => reportUncaught(thrown))
    }
  }
  defineGlobal('queueMicrotask', function queueMicrotask(callback: unknown): void {
    if (typeof callback !== 'function')
      throw new TypeErrorConstructor('The "callback" argument must be of type function')
    void promiseThen(resolvedPromise, () => runCallback(callback, []))
  })

  interface TimerEntry {
    readonly callback: unknown
    readonly args: readonly unknown[]
    readonly repeat: boolean
  }
  let timerEntries = new MapConstructor<number, TimerEntry>()
  let lastTimerId = 0
  function toDelay(delay: unknown): number {
    const ms = numberConstructor(delay)
    // As in Node: anything not in [1, 2^31 - 1] becomes 1.
    return ms >= 1 && ms <= 2147483647 ? mathTrunc(ms) : 1
  }
  function addTimer(callback: unknown, delayMs: number, repeat: boolean, args: unknown[]): number {
    if (typeof callback !== 'function')
      throw new TypeErrorConstructor('The "callback" argument must be of type function')
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

  function fireTimer(id: number): void {
    const entry = mapGet(timerEntries, id) as TimerEntry | undefined
    if (entry === undefined) return
    if (!entry.repeat) mapDelete(timerEntries, id)
    runCallback(entry.callback, entry.args)
  }
  function forgetTimers(): void {
    timerEntries = new MapConstructor<number, TimerEntry>()
  }
  return freeze({ runCallback, fireTimer, forgetTimers })
}
