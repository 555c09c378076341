/**
 * Turns whatever the program threw into the text a model reads: `Name: message` followed only by
 * the stack frames inside the program (`program.ts:LINE:COL` in the model's own numbering). Host
 * paths and frames of the sandbox itself never appear.
 *
 * Everything read from the thrown value may run program code (getters) or throw; every read is
 * guarded, and values are formatted with the sandbox's safe inspector.
 */
import { types } from 'node:util'

/** The file name programs are compiled under; frames are kept only when they point into it. */
export const PROGRAM_FILENAME = 'program.ts'

const PROGRAM_FRAME = /^\s+at .*\bprogram\.ts:\d+:\d+\)?$/
const MAX_FRAMES = 10

function readProperty(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

function readText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** Frames of `stack` that point into the program, in order, at most {@link MAX_FRAMES}. */
export function programFrames(stack: string): string[] {
  const frames: string[] = []
  for (const line of stack.split('\n')) {
    if (!PROGRAM_FRAME.test(line)) continue
    frames.push(`    ${line.trim()}`)
    if (frames.length === MAX_FRAMES) break
  }
  return frames
}

/**
 * Describes a thrown value. A primitive reads as `String(value)`; `formatValue` renders other
 * non-error values inspect-style. `knownPosition`, the position the runtime itself recorded for
 * the value (a failed binding call's call site), ends its one line instead of any frame its
 * `stack` lists.
 * @example describeThrown(new TypeError('x is not a function')) // 'TypeError: x is not a function\n    at program.ts:2:3'
 * @example describeThrown('plain failure') // 'plain failure'
 */
export function describeThrown(
  thrown: unknown,
  formatValue: (value: unknown) => string,
  knownPosition?: string,
): string {
  // A thrown primitive is its own message (`throw 'x'` → `x`), as in the reference runtime: the
  // model reads exactly what it threw, and the output cap counts exactly that.
  if ((typeof thrown !== 'object' && typeof thrown !== 'function') || thrown === null) return String(thrown)
  const isError = types.isNativeError(thrown)
  const name = readText(readProperty(thrown, 'name'))
  const message = readText(readProperty(thrown, 'message'))
  if (!isError && name === undefined && message === undefined) return `Uncaught ${formatValue(thrown)}`
  const label = name ?? 'Error'
  const header = message === undefined || message === '' ? label : `${label}: ${message}`
  if (knownPosition !== undefined && knownPosition !== '') return `${header} ${knownPosition}`
  const stack = readText(readProperty(thrown, 'stack'))
  const frames = stack === undefined ? [] : programFrames(stack)
  return frames.length === 0 ? header : `${header}\n${frames.join('\n')}`
}

/**
 * Describes a compile-time SyntaxError of the program: V8 puts `program.ts:LINE` on the first
 * line of such an error's stack.
 */
export function describeCompileError(error: unknown): string {
  const message = typeof error === 'object' && error !== null ? readText(readProperty(error, 'message')) : undefined
  const stack = typeof error === 'object' && error !== null ? readText(readProperty(error, 'stack')) : undefined
  const line = stack === undefined ? undefined : /^program\.ts:(\d+)/.exec(stack)?.[1]
  const text = `SyntaxError: ${message ?? 'the program could not be compiled'}`
  return line === undefined ? text : `Line ${line}: ${text}`
}
