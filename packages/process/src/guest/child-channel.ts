/**
 * The child's end of the wire: frames over file descriptor 3, a pipe the host created when it
 * spawned this process. It decodes the host's frames into plain values for a receiver and sends
 * the guest's messages as frames, keeping every frame under the host's size cap. When the host
 * goes away (the pipe closes) or sends bytes that are not frames, the process exits.
 *
 * Before the wire opens, every descriptor the child inherited from the host but stdio and the
 * wire is closed: the host names them (see `inherited-descriptors.ts`), and no program may read
 * a host file or socket through them.
 *
 * Only types come from the substrate kit: at run time the child loads nothing but the guest kit.
 */
import { closeSync } from 'node:fs'
import net from 'node:net'
import type { GuestToHostMessage, HostToGuestMessage } from '@code-runtime/engine'
import { parseDescriptorList } from '../inherited-descriptors.js'
import { encodeFrame, FrameDecoder } from '../wire-framing.js'

/** The wire's file descriptor in the child. */
const WIRE_FD = 3

/** What the channel delivers parsed frames to; it checks their shape itself. Must never throw. */
export interface ChildChannelReceiver {
  receive(raw: unknown): void
}

/** What the host passes after the entry module (see `buildNodeArgs`). */
export interface ChildArguments {
  /** The frame cap both sides honour. */
  readonly maxMessageBytes: number
  /** Descriptors the child inherited from the host without being given them. */
  readonly inheritedDescriptors: readonly number[]
}

/** Reads the child's arguments; a child started without valid ones exits at once. */
export function readChildArguments(argv: readonly string[]): ChildArguments {
  const maxMessageBytes = Number(argv[2])
  const inheritedDescriptors = parseDescriptorList(argv[3] ?? '')
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1 || inheritedDescriptors === undefined)
    process.exit(2)
  return { maxMessageBytes, inheritedDescriptors }
}

/**
 * Closes the inherited descriptors, then opens the wire. Only stdio and the wire stay: the
 * host's numbers are closed whatever they are, and nothing else was open when the child started.
 */
export function openChildChannel(argv: readonly string[]): ChildChannel {
  const { maxMessageBytes, inheritedDescriptors } = readChildArguments(argv)
  for (const fd of inheritedDescriptors) {
    if (fd <= WIRE_FD) continue
    try {
      closeSync(fd)
    } catch {
      // Already closed: nothing to hide.
    }
  }
  return new ChildChannel(maxMessageBytes)
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
      for (const raw of decoded.value) this.receiver?.receive(raw)
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
      this.socket.write(encoded.value)
      return
    }
    switch (message.kind) {
      case 'call-request': {
        const failure: HostToGuestMessage = {
          kind: 'call-result',
          id: message.id,
          ok: false,
          message: `${oversizeText("The call's arguments", encoded.error.byteLength, this.maxMessageBytes)} Pass less data per call.`,
        }
        // Later, as a real answer would be: the program registers the call after this returns.
        setImmediate(() => this.receiver?.receive(failure))
        return
      }
      case 'log-line':
        this.endWith(
          `${oversizeText('A log entry', encoded.error.byteLength, this.maxMessageBytes)} Print less at once.`,
        )
        return
      case 'run-end':
        this.endWith(
          `${oversizeText('The return value', encoded.error.byteLength, this.maxMessageBytes)} Return less data.`,
        )
        return
      case 'guest-ready':
        return
    }
  }

  private endWith(text: string): void {
    const encoded = encodeFrame(
      { kind: 'run-end', outcome: 'exception', message: text } satisfies GuestToHostMessage,
      this.maxMessageBytes,
    )
    if (encoded.ok) this.socket.write(encoded.value)
    this.closed = true
  }
}
