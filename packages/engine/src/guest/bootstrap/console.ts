/** The program's `console`: every method formats in the substrate's realm and appends one log entry. */
import type { BootstrapKit } from './bootstrap-kit.js'

export function installConsole({ primordials, host, defineGlobal, callHost }: BootstrapKit): void {
  const { emitLog, formatLog, now } = host
  const {
    isArray,
    TypeErrorConstructor,
    MapConstructor,
    mapGet,
    mapSet,
    mapDelete,
    StringConstructor: stringConstructor,
    stringIncludes,
    stringSplit,
    stringSlice,
    arrayJoin,
    mathTrunc,
  } = primordials
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
      if (columns !== undefined && !isArray(columns))
        throw new TypeErrorConstructor('console.table(data, columns): columns must be an array of property names.')
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
      mapSet(
        timers,
        labelOf(label),
        callHost(() => now()),
      )
    },
    timeLog(label?: unknown, ...args: unknown[]): void {
      const key = labelOf(label)
      const line = elapsed(key)
      emit(
        line === undefined
          ? `Warning: No such label '${key}' for console.timeLog()`
          : args.length > 0
            ? `${line} ${format(args, 0)}`
            : line,
      )
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
}
