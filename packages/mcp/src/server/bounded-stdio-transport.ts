/**
 * The server's MCP transport on stdio, bounded both ways. The SDK's own stdio transport closes
 * itself when one message passes its read buffer and then neither answers nor exits, and it
 * keeps reading requests however much of its output the client has left unread, so a client that
 * stops reading grows the server without bound. This one:
 * - answers a line over `maxRequestBytes` with a JSON-RPC error (its id when the line's ends show
 *   it, else null), skips to the next newline and reads on (see stdio-line-reader.ts);
 * - answers a line that is not JSON, or not JSON-RPC, with an error too, instead of dropping it;
 * - reads the next request only once the answer to the last one is written, and not at all while
 *   more than `maxPendingWriteBytes` of output wait for the client (stdin is paused meanwhile);
 * - ends, with the error, when stdin or stdout fails, so the server can stop and say why.
 */
import type { Readable, Writable } from 'node:stream'
import {
  parseJSONRPCMessage,
  ProtocolErrorCode,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server'
import { StdioLineReader, type StdioFrame } from './stdio-line-reader.js'

/** The largest message read, in bytes: the SDK's own limit (10 MiB). */
export const DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024
/**
 * Longest the client may leave its answers unread (none of the waiting output taken) while
 * reading is paused for them, before the transport ends as failed. Paused, we cannot even see
 * that the client closed its input, so a client that stopped reading for good would otherwise
 * hold the server open forever; an MCP client that is alive reads its answers at once.
 */
export const DEFAULT_MAX_UNREAD_MS = 15_000
/** Output waiting for the client past which no more requests are read, in bytes. */
export const DEFAULT_MAX_PENDING_WRITE_BYTES = 4 * 1024 * 1024

/** Options of {@link BoundedStdioServerTransport}. */
export interface BoundedStdioOptions {
  readonly maxRequestBytes?: number
  readonly maxPendingWriteBytes?: number
  /** See {@link DEFAULT_MAX_UNREAD_MS}. */
  readonly maxUnreadMs?: number
  /** Told, in one line, of each message refused (too large, not JSON-RPC). */
  readonly onRefused?: (line: string) => void
  /** Told each time reading stops because the client has not read `pendingBytes` of answers. */
  readonly onBackpressure?: (pendingBytes: number) => void
}

/** Why the transport ended: the client ended stdin, the server closed it, or a stream failed. */
export type StdioTransportEnd =
  { readonly reason: 'end of input' | 'closed' } | { readonly reason: 'failed'; readonly error: Error }

const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")`
// The SDK writes `id` last; other clients often first. Either way it is a member of the outer
// object only when it ends the line (`,"id":7}`) or opens it (`{"jsonrpc":"2.0","id":7,`).
const TRAILING_ID = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`)
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*[,}]`)

function decodeId(text: string | undefined): RequestId | null {
  if (text === undefined) return null
  if (!text.startsWith('"')) return Number.isSafeInteger(Number(text)) ? Number(text) : null
  try {
    return JSON.parse(text) as string
  } catch {
    return null
  }
}

/** The id of an oversized line, read from its first and last bytes only; null when they do not show it. */
export function readIdOfOversizedLine(head: string, tail: string): RequestId | null {
  return decodeId(TRAILING_ID.exec(tail)?.[1] ?? LEADING_ID.exec(head)?.[1])
}

function idOf(value: unknown): RequestId | null {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null
}

/** An MCP server transport on stdin and stdout that bounds what it reads and what it queues. */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Settles once, when the transport ends, saying why. */
  readonly ended: Promise<StdioTransportEnd>

  readonly #input: Readable
  readonly #output: Writable
  readonly #maxRequestBytes: number
  readonly #maxPendingWriteBytes: number
  readonly #maxUnreadMs: number
  #unreadTimer: ReturnType<typeof setInterval> | undefined
  readonly #onRefused: ((line: string) => void) | undefined
  readonly #onBackpressure: ((pendingBytes: number) => void) | undefined
  readonly #reader: StdioLineReader
  #settleEnded!: (end: StdioTransportEnd) => void
  #isStarted = false
  #isEnded = false
  #isPumpScheduled = false
  #isWaitingForDrain = false
  #isInputEnded = false

  constructor(input: Readable = process.stdin, output: Writable = process.stdout, options: BoundedStdioOptions = {}) {
    this.#input = input
    this.#output = output
    this.#maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES
    // Below the stream's high-water mark, 'drain' would never be due when we wait for it.
    this.#maxPendingWriteBytes = Math.max(
      options.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES,
      output.writableHighWaterMark,
    )
    this.#maxUnreadMs = options.maxUnreadMs ?? DEFAULT_MAX_UNREAD_MS
    this.#onRefused = options.onRefused
    this.#onBackpressure = options.onBackpressure
    this.#reader = new StdioLineReader(this.#maxRequestBytes)
    this.ended = new Promise(resolve => {
      this.#settleEnded = resolve
    })
  }

  async start(): Promise<void> {
    if (this.#isStarted) throw new Error('BoundedStdioServerTransport already started')
    this.#isStarted = true
    this.#input.on('data', this.#onData)
    this.#input.on('end', this.#onEnd)
    this.#input.on('close', this.#onEnd)
    this.#input.on('error', this.#onFailure)
    this.#output.on('error', this.#onFailure)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#isEnded) throw new Error('the stdio transport has ended')
    // Queued, not awaited: reading waits for the queue instead (see #pump).
    this.#output.write(`${JSON.stringify(message)}\n`)
  }

  async close(): Promise<void> {
    this.#end({ reason: 'closed' })
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    // Read on only as the lines of this chunk are dispatched.
    this.#input.pause()
    this.#schedulePump()
  }

  // The lines that came before the end are still answered; then the transport ends.
  readonly #onEnd = (): void => {
    this.#isInputEnded = true
    this.#schedulePump()
  }

  readonly #onFailure = (error: Error): void => {
    this.onerror?.(error)
    this.#end({ reason: 'failed', error })
  }

  #end(end: StdioTransportEnd): void {
    if (this.#isEnded) return
    this.#isEnded = true
    clearInterval(this.#unreadTimer)
    this.#input.off('data', this.#onData)
    this.#input.off('end', this.#onEnd)
    this.#input.off('close', this.#onEnd)
    this.#input.pause()
    // The listeners stay: a stream that fails later must not throw into the process.
    this.#settleEnded(end)
    this.onclose?.()
  }

  #schedulePump(): void {
    if (this.#isPumpScheduled || this.#isEnded) return
    this.#isPumpScheduled = true
    // A later turn of the event loop: the answer to the line just dispatched (when it needs no
    // waiting) has been written by then, and counts against the bound.
    setImmediate(() => {
      this.#isPumpScheduled = false
      this.#pump()
    })
  }

  /** Dispatches the next line, unless too much output waits; resumes stdin when none is left. */
  #pump(): void {
    if (this.#isEnded || this.#isWaitingForDrain) return
    if (this.#output.writableLength > this.#maxPendingWriteBytes) {
      this.#isWaitingForDrain = true
      this.#onBackpressure?.(this.#output.writableLength)
      this.#watchUnread()
      this.#output.once('drain', () => {
        this.#isWaitingForDrain = false
        clearInterval(this.#unreadTimer)
        this.#unreadTimer = undefined
        this.#schedulePump()
      })
      return
    }
    const frame = this.#reader.next()
    if (frame === undefined) {
      if (this.#isInputEnded) this.#end({ reason: 'end of input' })
      else this.#input.resume()
      return
    }
    this.#dispatch(frame)
    this.#schedulePump()
  }

  /** While reading waits for the client to read: ends the transport when the client takes nothing for maxUnreadMs. */
  #watchUnread(): void {
    let pending = this.#output.writableLength
    let lastProgress = performance.now()
    this.#unreadTimer = setInterval(
      () => {
        const now = this.#output.writableLength
        if (now < pending) lastProgress = performance.now()
        pending = now
        if (performance.now() - lastProgress <= this.#maxUnreadMs) return
        this.#onFailure(
          new Error(`the client read none of its ${pending} bytes of waiting answers for ${this.#maxUnreadMs} ms`),
        )
      },
      Math.min(1_000, this.#maxUnreadMs),
    )
  }

  #dispatch(frame: StdioFrame): void {
    if (frame.kind === 'oversized') {
      const id = readIdOfOversizedLine(frame.head, frame.tail)
      this.#refuse(
        id,
        ProtocolErrorCode.InvalidRequest,
        `Request too large: ${frame.bytes} bytes, over the limit of ${this.#maxRequestBytes} bytes for one message; send less in one request (a shorter program, smaller arguments).`,
      )
      return
    }
    let value: unknown
    try {
      value = JSON.parse(frame.text)
    } catch {
      this.#refuse(
        null,
        ProtocolErrorCode.ParseError,
        'Parse error: a line of input is not JSON; send one JSON-RPC message per line.',
      )
      return
    }
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(value)
    } catch {
      this.#refuse(
        idOf(value),
        ProtocolErrorCode.InvalidRequest,
        'Invalid request: a line of input is JSON but not a JSON-RPC 2.0 message.',
      )
      return
    }
    this.onmessage?.(message)
  }

  #refuse(id: RequestId | null, code: number, message: string): void {
    this.#onRefused?.(`refused a message${id === null ? '' : ` (id ${JSON.stringify(id)})`}: ${message}`)
    if (this.#isEnded) return
    // JSON-RPC answers a request whose id cannot be read with id null; the SDK's types cannot say so.
    this.#output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`)
  }
}
