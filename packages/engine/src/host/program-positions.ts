/**
 * Positions in the program's own numbering. The program is wrapped before it is parsed (its line
 * 1 is the wrapped text's line 2), and a parser's position must be told as the program's.
 */

/** The 1-based line and column of `index` in `source`. */
export function positionOf(source: string, index: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let cursor = 0; cursor < index; cursor++) {
    if (source.charCodeAt(cursor) === 10) {
      line++
      lineStart = cursor + 1
    }
  }
  return { line, column: index - lineStart + 1 }
}

/** Where the program ends: just after its last character that is not white space. */
function endOf(program: string): { line: number; column: number } {
  return positionOf(program, program.trimEnd().length)
}

/**
 * The position of a transform error in the program's own numbering. A program that ends too
 * early (an unclosed `{`, an unfinished expression) fails in the wrapper's closing line, past
 * the program: such an error points at the end of the program instead, and says so.
 */
export function locate(
  program: string,
  wrappedLine: number | undefined,
  wrappedColumn: number | undefined,
): { where: string; pastTheEnd: boolean } {
  // Lines are 1-based in the wrapped text (the program starts on line 2); columns are 0-based.
  if (wrappedLine === undefined) return { where: '', pastTheEnd: false }
  const line = Math.max(1, wrappedLine - 1)
  const column = wrappedColumn === undefined ? undefined : wrappedColumn + 1
  const end = endOf(program)
  if (line > end.line || (line === end.line && column !== undefined && column > end.column)) {
    return { where: `Line ${end.line}, col ${end.column}: `, pastTheEnd: true }
  }
  return { where: column === undefined ? `Line ${line}: ` : `Line ${line}, col ${column}: `, pastTheEnd: false }
}

/**
 * A syntax error found in the wrapped text (1-based line, 0-based column, both in the wrapped
 * numbering), told in the program's own positions.
 */
export function describeSyntaxError(
  program: string,
  wrappedLine: number | undefined,
  wrappedColumn: number | undefined,
  text: string,
): string {
  const { where, pastTheEnd } = locate(program, wrappedLine, wrappedColumn)
  if (pastTheEnd)
    return `${where}SyntaxError: ${text}. The program ends here: is a bracket, string, comment or expression left open?`
  return `${where}SyntaxError: ${text}`
}
