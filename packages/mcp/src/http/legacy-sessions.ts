/**
 * The 2025-era clients of `serve --http`: each opens a transport session with `initialize` and
 * names it (`Mcp-Session-Id`) on every later request, so the server can ask it things mid-run
 * (approvals by elicitation), remember its log level, and take its cancellations. Each session is
 * one SDK transport with one SDK server, and one Code Mode session for its variables. Sessions
 * belong to the principal that opened them: a request naming another principal's session is
 * answered as if the session did not exist. They are bounded in number (the least recently used
 * idle one makes room, else the new one is refused) and end after an idle time. Their response
 * streams are resumable: a client whose connection dropped mid-run reconnects with `Last-Event-ID`
 * and gets the rest (see resumable-events.ts).
 */
import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type Server } from '@modelcontextprotocol/server'
import type { CodeModeService, ServiceCaller } from '../server/code-mode-service.js'
import { DEFAULT_RESUMABLE_EVENT_LIMITS, ResumableEvents, type ResumableEventLimits } from './resumable-events.js'

/** Bounds of {@link LegacySessions}. */
export interface LegacySessionLimits {
  /** Sessions open at once, all principals together. */
  readonly maxSessions: number
  /** A session that sees no request for this long ends, in milliseconds. */
  readonly idleMs: number
  /** Largest request body, in bytes. */
  readonly maxBodyBytes: number
  /** What is kept for resumed streams; {@link DEFAULT_RESUMABLE_EVENT_LIMITS} when absent. */
  readonly events?: ResumableEventLimits
}

interface LegacySession {
  readonly id: string
  readonly caller: ServiceCaller & { readonly principal: string }
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: Server
  lastSeen: number
  /** Requests of the session being answered now (an open response stream counts until it ends). */
  busy: number
}

/** A JSON-RPC error answer, as the SDK's transport words its own. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

export class LegacySessions {
  readonly #service: CodeModeService
  readonly #limits: LegacySessionLimits
  readonly #sessions = new Map<string, LegacySession>()
  readonly #events: ResumableEvents
  readonly #sweep: NodeJS.Timeout
  readonly #stopListening: () => void

  constructor(service: CodeModeService, limits: LegacySessionLimits) {
    this.#service = service
    this.#limits = limits
    this.#events = new ResumableEvents(limits.events ?? DEFAULT_RESUMABLE_EVENT_LIMITS)
    this.#sweep = setInterval(() => this.#endIdle(), Math.max(1_000, Math.min(60_000, limits.idleMs / 4)))
    this.#sweep.unref()
    this.#stopListening = service.onToolsChanged(() => {
      for (const session of this.#sessions.values()) void session.server.sendToolListChanged().catch(() => undefined)
    })
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size
  }

  /** Answers a 2025-era request of `principal`: in its session, or opening one (`initialize`). */
  async handle(request: Request, principal: string, authInfo: AuthInfo): Promise<Response> {
    const id = request.headers.get('mcp-session-id')
    if (id !== null) {
      const session = this.#sessions.get(id)
      // Another principal's session is, to this caller, no session at all.
      if (session === undefined || session.caller.principal !== principal) {
        return jsonRpcError(404, -32001, 'Session not found; initialize a new one.')
      }
      return this.#answer(session, request, authInfo)
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required')
    if (this.#sessions.size >= this.#limits.maxSessions && !this.#endLeastRecentlyUsedIdle()) {
      return jsonRpcError(503, -32000, 'The server has as many sessions open as it keeps; retry later.')
    }
    return this.#open(request, principal, authInfo)
  }

  async #open(request: Request, principal: string, authInfo: AuthInfo): Promise<Response> {
    const id = randomUUID()
    const caller = { principal, sessions: 'connection' as const, connectionKey: id }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      maxRequestBodySize: this.#limits.maxBodyBytes,
      eventStore: this.#events.forSession(id),
      onsessionclosed: () => void this.#end(id),
    })
    const server = this.#service.buildServer(caller)
    const session: LegacySession = { id, caller, transport, server, lastSeen: Date.now(), busy: 0 }
    server.onclose = () => void this.#end(id)
    await server.connect(transport)
    this.#sessions.set(id, session)
    const response = await this.#answer(session, request, authInfo)
    // Not an initialize the transport accepted: no session was made.
    if (transport.sessionId === undefined) await this.#end(id)
    return response
  }

  async #answer(session: LegacySession, request: Request, authInfo: AuthInfo): Promise<Response> {
    session.lastSeen = Date.now()
    session.busy++
    let response: Response
    try {
      response = await session.transport.handleRequest(request, { authInfo })
    } catch (error) {
      session.busy--
      throw error
    }
    if (response.body === null) {
      session.busy--
      return response
    }
    // A streamed answer keeps the session busy until the stream ends, however it ends.
    let isDone = false
    const reader = response.body.getReader()
    // A client whose connection dropped must be able to resume at once: the transport learns of
    // the drop only when it cancels the stream, and the Node adapter would not tell it before the
    // next message (a run that is still working may send none for a long time), answering the
    // reconnection 409 meanwhile.
    const onClientGone = (): void => {
      void reader.cancel(new Error('The client closed the connection.')).catch(() => undefined)
      done()
    }
    const done = (): void => {
      if (isDone) return
      isDone = true
      request.signal.removeEventListener('abort', onClientGone)
      session.busy--
      session.lastSeen = Date.now()
    }
    if (request.signal.aborted) onClientGone()
    else request.signal.addEventListener('abort', onClientGone, { once: true })
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const read = await reader.read()
          if (read.done) {
            done()
            controller.close()
          } else controller.enqueue(read.value)
        } catch (error) {
          done()
          controller.error(error)
        }
      },
      async cancel(reason) {
        done()
        await reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }

  #endLeastRecentlyUsedIdle(): boolean {
    let oldest: LegacySession | undefined
    for (const session of this.#sessions.values()) {
      if (session.busy === 0 && (oldest === undefined || session.lastSeen < oldest.lastSeen)) oldest = session
    }
    if (oldest === undefined) return false
    void this.#end(oldest.id)
    return true
  }

  #endIdle(): void {
    const now = Date.now()
    for (const session of this.#sessions.values()) {
      if (session.busy === 0 && now - session.lastSeen > this.#limits.idleMs) void this.#end(session.id)
    }
  }

  async #end(id: string): Promise<void> {
    const session = this.#sessions.get(id)
    if (session === undefined) return
    this.#sessions.delete(id)
    this.#events.endSession(id)
    await Promise.allSettled([session.server.close(), this.#service.endConnection(session.caller)])
  }

  /** Ends every session (the server stops). */
  async close(): Promise<void> {
    clearInterval(this.#sweep)
    this.#stopListening()
    await Promise.allSettled([...this.#sessions.keys()].map(id => this.#end(id)))
  }
}
