/**
 * The child's end of the wire: frames over file descriptor 3, a pipe the host created when it
 * spawned this process. It decodes the host's frames into plain values for a receiver and sends
 * the guest's messages as frames, keeping every frame under the host's size cap. When the host
 * goes away (the pipe closes) or sends bytes that are not frames, the process exits.
 *
 * Only types come from the substrate kit: at run time the child loads nothing but the guest kit.
 */
import net from 'node:net'
import type { GuestToHostMessage, HostToGuestMessage } from '@code-runtime/worker-thread/substrate-kit'
import { encodeFrame, FrameDecoder } from '../wire-framing.js'

/** The wire's file descriptor in the child. */
const WIRE_FD = 3

/** What the channel delivers parsed frames to; it checks their shape itself. Must never throw. */
export interface ChildChannelReceiver {
  receive(raw: unknown): void
}

/** Reads the frame cap the host passed as the first argument after the entry module. */
export function readMaxMessageBytes(argv: readonly string[]): number {
  const value = Number(argv[2])
  if (!Number.isSafeInteger(value) || value < 1) process.exit(2)
  return value
}

function oversizeText(what: string, byteLength: number, maxMessageBytes: number): string {
  return `${what} of ${byteLength} bytes is over the sandbox's message limit (maxMessageBytes: ${maxMessageBytes} bytes).`
}

/** The guest's side of the wire. */
export class ChildChannel {
  private readonly socket: net.Socket
  private readonly maxMessageBytes: number
  private receiver: ChildChannelReceiver | undefined
  private closed = false

  constructor(maxMessageBytes: number) {
    this.maxMessageBytes = maxMessageBytes
    this.socket = new net.Socket({ fd: WIRE_FD, readable: true, writable: true })
    const decoder = new FrameDecoder(maxMessageBytes)
    this.socket.on('data', (chunk: Buffer) => {
      const decoded = decoder.push(chunk)
      if (!decoded.ok) process.exit(3)
      for (const raw of decoded.messages) this.receiver?.receive(raw)
    })
    // The host is gone or closed the wire: nobody will ever read our answer.
    const hostGone = (): void => process.exit(0)
    this.socket.on('end', hostGone)
    this.socket.on('close', hostGone)
    this.socket.on('error', hostGone)
  }

  /** Routes the host's messages to `receiver`. */
  attach(receiver: ChildChannelReceiver): void {
    this.receiver = receiver
  }

  /**
   * Sends one message. A message too large for the wire is answered here instead of being sent:
   * an oversize call fails inside the program, an oversize log entry or value ends the run with
   * an exception that names the limit.
   */
  send(message: GuestToHostMessage): void {
    if (this.closed) return
    const encoded = encodeFrame(message, this.maxMessageBytes)
    if (encoded.ok) {
      this.socket.write(encoded.frame)
      return
    }
    switch (message.kind) {
      case 'call-request': {
        const failure: HostToGuestMessage = {
          kind: 'call-result',
          id: message.id,
          ok: false,
          message: `${oversizeText('The call\'s arguments', encoded.byteLength, this.maxMessageBytes)} Pass less data per call.`,
        }
        // Later, as a real answer would be: the program registers the call after this returns.
        setImmediate(() => this.receiver?.receive(failure))
        return
      }
      case 'log-line':
        this.endWith(`${oversizeText('A log entry', encoded.byteLength, this.maxMessageBytes)} Print less at once.`)
        return
      case 'run-end':
        this.endWith(`${oversizeText('The return value', encoded.byteLength, this.maxMessageBytes)} Return less data.`)
        return
      case 'guest-ready':
        return
    }
  }

  private endWith(text: string): void {
    const encoded = encodeFrame({ kind: 'run-end', outcome: 'exception', message: text } satisfies GuestToHostMessage, this.maxMessageBytes)
    if (encoded.ok) this.socket.write(encoded.frame)
    this.closed = true
  }
}
