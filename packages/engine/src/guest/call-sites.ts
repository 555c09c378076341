/**
 * Where the program made each binding call. The guest runtime captures the call site in the
 * substrate's realm, while the program's call into the runtime is still on the stack: that realm's
 * `Error` is out of the program's reach, so no `Error.stackTraceLimit`, `captureStackTrace` or
 * `prepareStackTrace` the program sets in its own context changes what is captured or how it
 * reads. Capturing formats nothing (V8 keeps the frames until the stack is read): every call pays
 * for the capture alone (about 2 µs on a loaded 2-core machine, some 10% of the CPU of a run of
 * 10 000 trivial calls), and only a call that fails pays for the formatting.
 *
 * The frames are formatted from V8's structured call sites (script, line, column), never parsed
 * out of stack text, so a program cannot plant a position: a function name is shown only when it
 * is a plain identifier.
 */
import { PROGRAM_FILENAME } from './describe-thrown.js'

/**
 * Frames captured per call: the runtime's binding function and the program's frames below it.
 * Each one costs a little on every call; ten is what a thrown error's report shows, too.
 */
const CAPTURED_FRAMES = 10

/** A function name worth showing: an identifier of reasonable length, nothing that reads as a position. */
const SHOWN_NAME = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]{0,63}$/u

/** A call site as captured: opaque until {@link formatCallSite} reads it. */
export type CapturedCallSite = object

/** Where a call was made, read from its captured site. */
export interface CallSiteReport {
  /** The program's frames, innermost (the call itself) first, as stack lines (`    at f (program.ts:5:17)`). */
  readonly frames: string
  /** The call's own line and column in the program, 1-based. */
  readonly line: number
  readonly column: number
}

/** The parts of V8's CallSite this module reads; none of them runs program code. */
interface V8CallSite {
  getFileName(): unknown
  getLineNumber(): unknown
  getColumnNumber(): unknown
  getFunctionName(): unknown
  isAsync(): unknown
  isConstructor(): unknown
}

/**
 * Captures the current stack below `boundary` (the runtime's entry point for a binding call,
 * which is left out with everything above it). Returns undefined when V8 cannot capture (the
 * program called from the brink of a stack overflow): the call then simply has no location.
 */
export function captureCallSite(boundary: (...args: never[]) => unknown): CapturedCallSite | undefined {
  const holder = {}
  // Node's default is the limit wanted here: most calls write nothing (each write costs time).
  const limit = Error.stackTraceLimit
  const adjust = limit !== CAPTURED_FRAMES
  try {
    if (adjust) Error.stackTraceLimit = CAPTURED_FRAMES
    Error.captureStackTrace(holder, boundary)
    return holder
  } catch {
    return undefined
  } finally {
    if (adjust) Error.stackTraceLimit = limit
  }
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

interface ProgramFrame {
  readonly text: string
  readonly line: number
  readonly column: number
}

function describeFrame(site: V8CallSite): ProgramFrame | undefined {
  if (site.getFileName() !== PROGRAM_FILENAME) return undefined
  const line = site.getLineNumber()
  const column = site.getColumnNumber()
  if (!isPosition(line) || !isPosition(column)) return undefined
  const position = `${PROGRAM_FILENAME}:${line}:${column}`
  const prefix = site.isAsync() === true ? 'async ' : ''
  const name = site.getFunctionName()
  const text =
    typeof name !== 'string' || !SHOWN_NAME.test(name)
      ? `    at ${prefix}${position}`
      : `    at ${prefix}${site.isConstructor() === true ? 'new ' : ''}${name} (${position})`
  return { text, line, column }
}

/** Reads the structured frames of a captured site: the one moment this realm's prepareStackTrace is replaced. */
function callSitesOf(site: CapturedCallSite): unknown {
  const previous = Error.prepareStackTrace
  try {
    Error.prepareStackTrace = (_error, callSites) => callSites
    return (site as { stack?: unknown }).stack
  } catch {
    return undefined
  } finally {
    Error.prepareStackTrace = previous
  }
}

/**
 * Reads a captured call site; undefined when none of its frames is in the program. Read it once
 * per site: V8 formats a stack only the first time.
 */
export function formatCallSite(site: CapturedCallSite): CallSiteReport | undefined {
  const callSites = callSitesOf(site)
  if (!Array.isArray(callSites)) return undefined
  const frames: ProgramFrame[] = []
  for (const callSite of callSites as V8CallSite[]) {
    try {
      const frame = describeFrame(callSite)
      if (frame !== undefined) frames.push(frame)
    } catch {
      // A frame V8 cannot describe is left out.
    }
  }
  const call = frames[0]
  if (call === undefined) return undefined
  return { frames: frames.map(frame => frame.text).join('\n'), line: call.line, column: call.column }
}

/** How a run's failure message names a call's position: one clause at the end of its line. */
export function describeCallPosition(report: Pick<CallSiteReport, 'line' | 'column'>): string {
  return `(at line ${report.line}, column ${report.column})`
}
