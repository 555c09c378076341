/**
 * What the CLI writes for people: colour only on a terminal and never under NO_COLOR
 * (https://no-color.org), a live progress line on stderr only when stderr is a terminal, and
 * errors as one `code-runtime: ...` line.
 */

/** Ways to mark up text; identity functions when colour is off. */
export interface TerminalStyle {
  readonly red: (text: string) => string
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
}

/** The subset of a stream this module needs; `process.stderr` fits. */
export interface TerminalStream {
  readonly isTTY?: boolean
  write(text: string): boolean
}

function wrap(open: number, close: number): (text: string) => string {
  return text => `\u001b[${open}m${text}\u001b[${close}m`
}

const PLAIN: TerminalStyle = { red: text => text, dim: text => text, bold: text => text }
const COLOURED: TerminalStyle = { red: wrap(31, 39), dim: wrap(2, 22), bold: wrap(1, 22) }

/** True when `stream` is a terminal and NO_COLOR is unset or empty. */
export function usesColour(stream: TerminalStream, environment: NodeJS.ProcessEnv = process.env): boolean {
  const noColor = environment.NO_COLOR
  return stream.isTTY === true && (noColor === undefined || noColor === '')
}

/** Colour when {@link usesColour}. */
export function styleFor(stream: TerminalStream, environment: NodeJS.ProcessEnv = process.env): TerminalStyle {
  return usesColour(stream, environment) ? COLOURED : PLAIN
}

/** Writes `code-runtime: <message>` on one line. */
export function writeErrorLine(stream: TerminalStream, message: string): void {
  const style = styleFor(stream)
  stream.write(`${style.red('code-runtime:')} ${message.replace(/\s*\n\s*/g, ' ')}\n`)
}

/** How often the progress line is redrawn, in milliseconds. */
const PROGRESS_INTERVAL_MS = 100

/**
 * Shows `⠿ 2.4 s · 3 tool calls` on `stream`, redrawn in place, when it is a terminal; does
 * nothing otherwise. `stop()` erases the line.
 */
export function startProgress(stream: TerminalStream, readCalls: () => number): { stop(): void; clear(): void } {
  if (stream.isTTY !== true) return { stop: () => undefined, clear: () => undefined }
  const style = styleFor(stream)
  const startedAt = performance.now()
  const draw = (): void => {
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1)
    const calls = readCalls()
    stream.write(`\r\u001b[2K${style.dim(`running ${seconds} s · ${calls} tool call${calls === 1 ? '' : 's'}`)}`)
  }
  const timer = setInterval(draw, PROGRESS_INTERVAL_MS)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      stream.write('\r\u001b[2K')
    },
    // Erases the progress line so a log line printed now starts clean; the next tick redraws it.
    clear() {
      stream.write('\r\u001b[2K')
    },
  }
}
