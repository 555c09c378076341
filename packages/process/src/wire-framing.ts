/**
 * Framing of the wire between the host and a child process: each frame is a 4-byte big-endian
 * length followed by that many bytes of UTF-8 JSON. Bytes become frames here, and frames become
 * plain values here (the only `JSON.parse` of the wire); the shape of a message is checked after,
 * by the protocol's decoders.
 *
 * The decoder is fed bytes from the other side, which may be hostile: it refuses a frame over
 * the size cap before buffering it, refuses bytes that are not UTF-8 JSON, and never throws.
 */

import { stringifyJsonValue, type CodeJsonValue } from '@code-runtime/core/json'

/** Bytes of the length prefix. */
export const FRAME_HEADER_BYTES = 4

/** The result of encoding one message. */
export type EncodedFrame =
  | { readonly ok: true; readonly frame: Buffer }
  | { readonly ok: false; readonly byteLength: number }

/**
 * Encodes `message`, a plain JSON value, as one frame, or reports its byte length when its JSON
 * is over `maxFrameBytes` (or too long for a string at all, reported as `Infinity`). Any depth
 * encodes: nesting past the native serializer's stack is written iteratively.
 */
export function encodeFrame(message: unknown, maxFrameBytes: number): EncodedFrame {
  let json: string
  try {
    json = stringifyJsonValue(message as CodeJsonValue)
  } catch {
    return { ok: false, byteLength: Number.POSITIVE_INFINITY }
  }
  // Every UTF-16 unit takes at most 3 bytes, so short texts skip the exact count.
  const byteLength = json.length * 3 <= maxFrameBytes ? undefined : Buffer.byteLength(json, 'utf8')
  if (byteLength !== undefined && byteLength > maxFrameBytes) return { ok: false, byteLength }
  const body = Buffer.from(json, 'utf8')
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length)
  frame.writeUInt32BE(body.length, 0)
  body.copy(frame, FRAME_HEADER_BYTES)
  return { ok: true, frame }
}

/** What the decoder found in the bytes pushed so far. */
export type DecodedFrames =
  | { readonly ok: true; readonly messages: readonly unknown[] }
  | { readonly ok: false; readonly problem: string }

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Turns a stream of bytes into parsed messages. After the first refusal it stays broken: the
 * stream has lost its frame boundaries and the peer is to be stopped.
 */
export class FrameDecoder {
  private readonly maxFrameBytes: number
  private chunks: Buffer[] = []
  private buffered = 0
  private broken: string | undefined

  constructor(maxFrameBytes: number) {
    this.maxFrameBytes = maxFrameBytes
  }

  /** Adds bytes and returns every message completed by them, or why the stream is refused. */
  push(chunk: Buffer): DecodedFrames {
    if (this.broken !== undefined) return { ok: false, problem: this.broken }
    if (chunk.length > 0) {
      this.chunks.push(chunk)
      this.buffered += chunk.length
    }
    const messages: unknown[] = []
    while (this.buffered >= FRAME_HEADER_BYTES) {
      const head = this.peekHeader()
      if (head > this.maxFrameBytes) return this.refuse(`a message of ${head} bytes, over the limit of ${this.maxFrameBytes}`)
      if (this.buffered < FRAME_HEADER_BYTES + head) break
      const body = this.take(FRAME_HEADER_BYTES + head).subarray(FRAME_HEADER_BYTES)
      let text: string
      try {
        text = utf8.decode(body)
      } catch {
        return this.refuse('a message that is not UTF-8')
      }
      try {
        messages.push(JSON.parse(text))
      } catch {
        return this.refuse('a message that is not JSON')
      }
    }
    return { ok: true, messages }
  }

  /** Bytes received but not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.buffered
  }

  private refuse(problem: string): DecodedFrames {
    this.broken = problem
    this.chunks = []
    this.buffered = 0
    return { ok: false, problem }
  }

  private peekHeader(): number {
    const first = this.chunks[0]
    if (first !== undefined && first.length >= FRAME_HEADER_BYTES) return first.readUInt32BE(0)
    const joined = Buffer.concat(this.chunks)
    this.chunks = [joined]
    return joined.readUInt32BE(0)
  }

  private take(byteCount: number): Buffer {
    const first = this.chunks[0]
    if (first !== undefined && first.length >= byteCount) {
      if (first.length === byteCount) this.chunks.shift()
      else this.chunks[0] = first.subarray(byteCount)
      this.buffered -= byteCount
      return first.subarray(0, byteCount)
    }
    const joined = Buffer.concat(this.chunks)
    const taken = joined.subarray(0, byteCount)
    const rest = joined.subarray(byteCount)
    this.chunks = rest.length > 0 ? [rest] : []
    this.buffered -= byteCount
    return taken
  }
}
