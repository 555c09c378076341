/**
 * The program as the checker sees it: wrapped as the body of an async function, as the runtime
 * runs it, so top-level `await` and `return` type-check. Positions map back to the model's text:
 * the wrapper adds one line before the program and one after it.
 */
export const PROGRAM_WRAPPER_HEAD = 'async function __program() {\n'
const PROGRAM_WRAPPER_TAIL = '\n}\n'

/** The text the checker reads for `code`. */
export function wrapProgram(code: string): string {
  return PROGRAM_WRAPPER_HEAD + code + PROGRAM_WRAPPER_TAIL
}

/** Longest offending text shown with a diagnostic. */
const MAX_TEXT_CHARS = 80

/** Locates positions of the wrapped text in the model's program. */
export interface ProgramLocator {
  /** 1-based line and column in the program of an offset into the wrapped text. */
  locate(wrappedOffset: number): { line: number; column: number }
  /** The program's text of a span of the wrapped text, whitespace runs collapsed, cut to ~80 characters. */
  excerpt(wrappedStart: number, length: number): string
}

export function createProgramLocator(code: string): ProgramLocator {
  const lineStarts = [0]
  for (let index = 0; index < code.length; index++) {
    if (code.charCodeAt(index) === 10) lineStarts.push(index + 1)
  }
  const offsetInCode = (wrappedOffset: number): number =>
    Math.min(Math.max(wrappedOffset - PROGRAM_WRAPPER_HEAD.length, 0), code.length)
  return {
    locate(wrappedOffset) {
      // A span in the wrapper's tail (an unclosed brace reported at the end) points at the
      // program's last line, never one past it.
      const offset = offsetInCode(wrappedOffset)
      let low = 0
      let high = lineStarts.length - 1
      while (low < high) {
        const middle = (low + high + 1) >> 1
        if ((lineStarts[middle] as number) <= offset) low = middle
        else high = middle - 1
      }
      return { line: low + 1, column: offset - (lineStarts[low] as number) + 1 }
    },
    excerpt(wrappedStart, length) {
      const start = offsetInCode(wrappedStart)
      const text = code
        .slice(start, offsetInCode(wrappedStart + length))
        .replace(/\s+/g, ' ')
        .trim()
      return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS - 3)}...`
    },
  }
}
