/**
 * One client connection of the Code Mode server, served through the SDK's `serveStdio`. The SDK
 * reads the connection's first message to learn its protocol revision (`initialize`: 2025-11-25
 * and older; `server/discover` or a request with a 2026-07-28 envelope: the newer one) and then
 * builds a fresh SDK `Server` from our factory, which serves the rest of the connection. A client
 * that opens with `server/discover` and then falls back to `initialize` costs one instance more:
 * the SDK throws the probe's instance away and builds another. So what belongs to the connection
 * lives here, not on an instance: that it ended (its transport closed, whoever closed it), and
 * which instance serves it now, for the notifications the server sends unasked
 * (`tools/list_changed`). `serveStdio` takes any long-lived message stream, not only stdio: ours
 * on stdin and stdout, an in-memory pair in tests.
 */
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Server,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server'
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio'

/**
 * The connection's transport as `serveStdio` sees it: the caller's, passed through, plus a hook
 * on its end. The SDK takes the transport's callbacks for itself, so it cannot be told by them.
 */
class ConnectionTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void
  readonly #inner: Transport
  readonly #onEnd: () => void
  #started: Promise<void> | undefined

  constructor(inner: Transport, onEnd: () => void) {
    this.#inner = inner
    this.#onEnd = onEnd
  }

  /** Settles once `serveStdio` has started the transport (it starts it as it is called). */
  get started(): Promise<void> {
    return this.#started ?? Promise.reject(new Error('the transport was not started'))
  }

  start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => this.onmessage?.(message, extra)
    this.#inner.onerror = error => this.onerror?.(error)
    this.#inner.onclose = () => {
      try {
        this.onclose?.()
      } finally {
        this.#onEnd()
      }
    }
    return (this.#started ??= this.#inner.start())
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options)
  }

  close(): Promise<void> {
    return this.#inner.close()
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version)
  }
}

/** Options of {@link ServedConnection.open}. */
export interface ServedConnectionOptions {
  /** Builds a fresh SDK server, with every handler, for the connection (or for a probe thrown away). */
  readonly build: () => Server
  /** Told once, when the connection has ended. */
  readonly onEnd: () => void
}

/** A connection being served: the SDK server instance answering it now, and a way to end it. */
export class ServedConnection {
  #handle: StdioServerHandle | undefined
  #current: Server | undefined

  private constructor() {}

  /**
   * Serves `transport` until it closes or {@link close} is called; resolves once the transport has
   * started, rejects when it cannot start.
   */
  static async open(transport: Transport, options: ServedConnectionOptions): Promise<ServedConnection> {
    let hasEnded = false
    const wire = new ConnectionTransport(transport, () => {
      if (hasEnded) return
      hasEnded = true
      options.onEnd()
    })
    const connection = new ServedConnection()
    connection.#handle = serveStdio(
      () => {
        const server = options.build()
        // The newest instance serves the connection: a probe is only replaced, never outlived.
        connection.#current = server
        return server
      },
      { transport: wire },
    )
    await wire.started
    return connection
  }

  /** Sends `notifications/tools/list_changed`, when an instance serves the connection; never throws. */
  notifyToolsChanged(): void {
    const server = this.#current
    if (server?.transport === undefined) return
    void server.sendToolListChanged().catch(() => undefined)
  }

  /** Ends the connection: the serving instance closes (its requests are aborted), then the transport. */
  async close(): Promise<void> {
    await this.#handle?.close()
  }
}
