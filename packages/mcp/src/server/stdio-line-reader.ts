/**
 * The framing of MCP over stdio: bytes in, one JSON-RPC message per line out. A line is held
 * only up to a bound; past it, the rest of the line is skipped as it arrives (nothing more is
 * kept than its first and last bytes), and the reader reports the oversized line in its place,
 * so a client that sends too much gets an answer and the next line is read as usual.
 */

/** What the reader yields, in the order the lines arrived. */
export type StdioFrame =
  | { readonly kind: 'line'; readonly text: string }
  | { readonly kind: 'oversized'; readonly bytes: number; readonly head: string; readonly tail: string }

/** How many bytes of each end of an oversized line are kept, to find its id. */
const KEPT_END_BYTES = 256
const NEWLINE = 0x0a

/** Splits chunks of stdin into lines of at most `maxLineBytes` bytes. */
export class StdioLineReader {
  readonly #maxLineBytes: number
  // Chunks received and not yet read through.
  readonly #queue: Buffer[] = []
  // The line read so far, while it is within the bound.
  #parts: Buffer[] = []
  #partBytes = 0
  // The line being skipped, once it passed the bound.
  #oversized: { bytes: number; head: Buffer; tail: Buffer } | undefined

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes
  }

  /** True while chunks wait to be read through. */
  get hasQueued(): boolean {
    return this.#queue.length > 0
  }

  push(chunk: Buffer): void {
    if (chunk.length > 0) this.#queue.push(chunk)
  }

  /** The next whole line (empty lines skipped), or `undefined` until more bytes arrive. */
  next(): StdioFrame | undefined {
    for (let chunk = this.#queue[0]; chunk !== undefined; chunk = this.#queue[0]) {
      const end = chunk.indexOf(NEWLINE)
      if (end === -1) {
        this.#queue.shift()
        this.#take(chunk)
        continue
      }
      this.#take(chunk.subarray(0, end))
      if (end + 1 < chunk.length) this.#queue[0] = chunk.subarray(end + 1)
      else this.#queue.shift()
      const frame = this.#finishLine()
      if (frame !== undefined) return frame
    }
    return undefined
  }

  /** Adds bytes to the current line; past the bound, keeps only its ends. */
  #take(bytes: Buffer): void {
    if (this.#oversized !== undefined) {
      this.#oversized.bytes += bytes.length
      this.#oversized.tail = Buffer.concat([this.#oversized.tail, bytes]).subarray(-KEPT_END_BYTES)
      return
    }
    if (this.#partBytes + bytes.length <= this.#maxLineBytes) {
      this.#parts.push(bytes)
      this.#partBytes += bytes.length
      return
    }
    const held = Buffer.concat([...this.#parts, bytes])
    this.#oversized = {
      bytes: held.length,
      head: Buffer.from(held.subarray(0, KEPT_END_BYTES)),
      tail: Buffer.from(held.subarray(-KEPT_END_BYTES)),
    }
    this.#parts = []
    this.#partBytes = 0
  }

  #finishLine(): StdioFrame | undefined {
    const oversized = this.#oversized
    if (oversized !== undefined) {
      this.#oversized = undefined
      return {
        kind: 'oversized',
        bytes: oversized.bytes,
        head: oversized.head.toString('utf8'),
        tail: oversized.tail.toString('utf8'),
      }
    }
    const text = Buffer.concat(this.#parts).toString('utf8').replace(/\r$/, '')
    this.#parts = []
    this.#partBytes = 0
    return text.trim() === '' ? undefined : { kind: 'line', text }
  }
}
