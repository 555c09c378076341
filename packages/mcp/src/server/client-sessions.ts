/**
 * One session of the runtime per MCP client session, for `run_code`'s variables, filed by the
 * session id the SDK hands a handler (`ctx.sessionId`). A connection served through the SDK's
 * `serveStdio` (as every `connect` is) names no session, so it has one: over stdio, one per
 * process. Sessions open on their first run (see `createCodeModeSession`) and end when the client
 * goes away or the server closes.
 */
import { createCodeModeSession, type CodeModeRuntime, type CodeModeSession } from '@code-runtime/code-mode'
import type { CodeSessionOptions } from '@code-runtime/core'

/** The key of the one client of a transport that does not name its sessions (stdio). */
const UNNAMED_CLIENT = ''

export class ClientSessions {
  private readonly sessions = new Map<string, CodeModeSession>()
  private readonly runtime: CodeModeRuntime
  private readonly options: CodeSessionOptions | undefined
  private isEnabled: boolean

  /** `state` false, or a runtime without `openSession`: no sessions, every run one-shot. */
  constructor(runtime: CodeModeRuntime, state: boolean, options?: CodeSessionOptions) {
    this.runtime = runtime
    this.options = options
    this.isEnabled = state && typeof runtime.openSession === 'function'
  }

  /** True while runs keep state. */
  get enabled(): boolean {
    return this.isEnabled
  }

  /** The session of the client named `sessionId` (opened lazily by its first run), or `undefined` without state. */
  of(sessionId: string | undefined): CodeModeSession | undefined {
    if (!this.isEnabled) return undefined
    const key = sessionId ?? UNNAMED_CLIENT
    let session = this.sessions.get(key)
    if (session === undefined) {
      session = createCodeModeSession(this.runtime as Required<CodeModeRuntime>, this.options)
      this.sessions.set(key, session)
    }
    return session
  }

  /** Ends the session filed under `key` (a closed connection, an evicted handle); a later run under it opens a new one. */
  async end(key: string): Promise<void> {
    const session = this.sessions.get(key)
    if (session === undefined) return
    this.sessions.delete(key)
    await session.dispose()
  }

  /** Turns state off for good (the backend has no sessions), ending any session. */
  async disable(): Promise<void> {
    this.isEnabled = false
    await this.endAll()
  }

  /** Ends every client's session; a later run of a client opens a new one. */
  async endAll(): Promise<void> {
    const ending = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.all(ending.map(session => session.dispose()))
  }
}
