/**
 * The MCP servers code-runtime sits in front of, behind one small interface over the official
 * SDK client: connect (all in parallel, each within its `connectTimeoutMs`), list tools, call a
 * tool with an AbortSignal, hear `tools/list_changed`, close. A server that fails to start is a
 * recorded failure, never an exception, so the others still work; one that exits later is
 * started again on its next call. `startUpstreams` hands the servers over while they connect
 * (each one's `settled` says when it is done), so a server in front of them can answer its own
 * client at once.
 *
 * Which protocol revision each speaks: a `url` server is asked first in revision 2026-07-28
 * (`server/discover`) and spoken to in 2025-11-25 when it does not know it; a stdio server and
 * the in-process one in 2025-11-25 only. Asking a stdio server first would spawn it twice: the
 * SDK probes a stdio server in a short-lived process of its own before starting the real one.
 */
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import {
  Client,
  InMemoryTransport,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { CodeModeToolAnnotations, JsonSchema } from '@code-runtime/code-mode'
import { findCommand } from './command-lookup.js'
import { McpProxyError } from '../errors.js'
import { PACKAGE_INFO } from '../package-info.js'
import type { HttpServerConfig, UpstreamServerConfig } from './server-config.js'
import { StoredLoginAuth } from './oauth/stored-login-auth.js'
import { watchForLogin } from './oauth/login-watch.js'
import { explainLoginFailure, wantedScopeOf } from './oauth/login-failures.js'
import type { TokenStore } from './oauth/token-store.js'
import { callInUpstreamSpan } from './upstream-call-span.js'

/** An MCP server living in this process (the CLI's built-in example tools), reached in memory. */
export interface InProcessServerConfig {
  readonly transport: 'in-process'
  readonly name: string
  /** Connects a fresh server to the given transport. */
  readonly start: (transport: Transport) => Promise<{ close(): Promise<void> }>
  readonly include?: readonly string[]
  readonly exclude: readonly string[]
  /** As for a configured server: tools whose calls always, or never, wait for approval. */
  readonly approve?: readonly string[]
  readonly autoApprove?: readonly string[]
  readonly timeoutMs: number
  readonly connectTimeoutMs: number
}

/** Anything {@link connectUpstreams} can connect to. */
export type UpstreamConfig = UpstreamServerConfig | InProcessServerConfig

/** One tool of an upstream server, as decoded from its `tools/list` answer. */
export interface UpstreamTool {
  readonly name: string
  readonly description?: string
  readonly inputSchema: JsonSchema
  readonly outputSchema?: JsonSchema
  readonly annotations?: CodeModeToolAnnotations
}

/** Hooks for what upstream servers do on their own. */
export interface UpstreamListeners {
  /** A server's tool list changed (it said so, or it came back with other tools after a restart). */
  readonly onToolsChanged?: (server: UpstreamServer) => void
  /** A line a stdio server wrote to its stderr. */
  readonly onStderrLine?: (server: UpstreamServer, line: string) => void
  /** Where relative lookups of `node_modules/.bin` start: the config file's directory. */
  readonly projectDirectory?: string
  /**
   * The user's logins (`code-runtime auth login`), used by `url` servers without an
   * `Authorization` header of their own; without it they send only their `headers`.
   */
  readonly logins?: UpstreamLogins
}

/** Where `url` servers find their logins, and the command a server that needs one names. */
export interface UpstreamLogins {
  readonly store: TokenStore
  /** The command that logs in to `server`, as the person types it. */
  readonly loginCommand: (server: string) => string
}

/** How many of a server's last stderr lines are kept to explain a failed start. */
const STDERR_TAIL_LINES = 5

/**
 * Which revision the client speaks to `config`'s server (see the module comment): a `url` server
 * is probed for 2026-07-28 and falls back to 2025-11-25; the rest keep the SDK's default, the
 * 2025-11-25 handshake alone.
 */
function versionNegotiation(config: UpstreamConfig): Pick<ClientOptions, 'versionNegotiation'> {
  return config.transport === 'http' ? { versionNegotiation: { mode: 'auto' } } : {}
}

/** Tools that can only run as MCP tasks cannot be called through a plain `tools/call`. */
function requiresTask(tool: Tool): boolean {
  return tool.execution?.taskSupport === 'required'
}

function decodeAnnotations(annotations: Tool['annotations']): CodeModeToolAnnotations | undefined {
  if (annotations === undefined) return undefined
  const decoded: { -readonly [K in keyof CodeModeToolAnnotations]: CodeModeToolAnnotations[K] } = {}
  if (typeof annotations.title === 'string') decoded.title = annotations.title
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof annotations[hint] === 'boolean') decoded[hint] = annotations[hint]
  }
  return Object.freeze(decoded)
}

/** The SDK has checked the shape; keep only what Code Mode reads, as our own frozen record. */
function decodeTool(tool: Tool): UpstreamTool {
  const annotations = decodeAnnotations(tool.annotations)
  return Object.freeze({
    name: tool.name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  })
}

/**
 * The telling words of a failure to connect: the first system error code among its causes
 * (`ECONNREFUSED`), else the innermost message. The SDK wraps what fetch threw, and wraps it once
 * more when its probe for a newer revision failed, so the code can sit a few causes down.
 */
function describeCause(error: unknown): string {
  let words = error instanceof Error ? error.message : String(error)
  const seen = new Set<unknown>([error])
  for (
    let cause = (error as { cause?: unknown } | null)?.cause;
    typeof cause === 'object' && cause !== null && !seen.has(cause);
    cause = (cause as { cause?: unknown }).cause
  ) {
    seen.add(cause)
    const { code, message } = cause as { code?: unknown; message?: unknown }
    if (typeof code === 'string') return code
    if (typeof message === 'string') words = message
  }
  return words
}

/** One upstream server: its tools, its failure to start if any, and calls to it. */
export class UpstreamServer {
  readonly config: UpstreamConfig
  readonly #listeners: UpstreamListeners
  #client: Client | undefined
  #transport: Transport | undefined
  #inProcess: { close(): Promise<void> } | undefined
  #tools: readonly UpstreamTool[] = []
  #failure: McpProxyError | undefined
  #isConnected = false
  #isClosed = false
  /** Settles when the first connection is made or has failed; never rejects. */
  #settled: Promise<void> = Promise.resolve()
  #isSettled = false
  /** Aborts the first connection when the server is closed before it is made. */
  readonly #firstConnect = new AbortController()
  #restart: Promise<void> | undefined
  /** Settles when the current stdio server process has exited; absent when none was spawned. */
  #processExit: Promise<void> | undefined
  readonly #stderrTail: string[] = []
  /** The stored login a `url` server uses, made once so its refreshes are shared by every reconnection. */
  #loginAuth: StoredLoginAuth | undefined
  /** Stops watching the store for the login this server failed without. */
  #stopLoginWatch: (() => void) | undefined

  private constructor(config: UpstreamConfig, listeners: UpstreamListeners) {
    this.config = config
    this.#listeners = listeners
  }

  /** Connects to `config` and lists its tools; a failure is recorded on the result, never thrown. */
  static async connect(config: UpstreamConfig, listeners: UpstreamListeners = {}): Promise<UpstreamServer> {
    const server = UpstreamServer.start(config, listeners)
    await server.settled
    return server
  }

  /**
   * Starts connecting to `config` and returns at once: until `settled`, the server has no tools
   * and no failure (`isConnecting`), and a call to it waits for the connection.
   */
  static start(config: UpstreamConfig, listeners: UpstreamListeners = {}): UpstreamServer {
    const server = new UpstreamServer(config, listeners)
    server.#settled = server.#connectFirst()
    return server
  }

  async #connectFirst(): Promise<void> {
    try {
      await this.#open(this.#firstConnect.signal)
    } catch (error) {
      await this.#noteWantedScope(error)
      this.#failure = this.#explainConnectFailure(error)
      await this.#shutConnection()
      const logins = this.#listeners.logins
      if (this.#failure.code === 'MCP_PROXY_LOGIN_REQUIRED' && this.config.transport === 'http' && logins !== undefined)
        this.#stopLoginWatch = watchForLogin(logins.store, this.config.url, () => this.#connectAfterLogin())
    } finally {
      this.#isSettled = true
    }
  }

  /** Connects once a login has appeared; true when it worked (its tools are announced as a change). */
  async #connectAfterLogin(): Promise<boolean> {
    if (this.#isClosed) return true
    try {
      await this.#open()
    } catch (error) {
      await this.#noteWantedScope(error)
      this.#failure = this.#explainConnectFailure(error)
      await this.#shutConnection()
      return false
    }
    if (this.#isClosed) {
      await this.#shutConnection()
      return true
    }
    this.#failure = undefined
    this.#listeners.onToolsChanged?.(this)
    return true
  }

  /** Settles (never rejects) once the first connection is made or has failed (see `failure`). */
  get settled(): Promise<void> {
    return this.#settled
  }

  /** True until the first connection is made or has failed. */
  get isConnecting(): boolean {
    return !this.#isSettled
  }

  /** The server's name in `mcpServers`. */
  get name(): string {
    return this.config.name
  }

  /** Its tools (every tool, before `include`/`exclude`); empty when it failed to start. */
  get tools(): readonly UpstreamTool[] {
    return this.#tools
  }

  /**
   * Why it could not be started, as a one-line error for the operator (stderr, `code-runtime
   * list`). It may quote the server's last stderr line, where secrets get printed, so it is
   * never shown to the model: the `run_code` description names the server only.
   */
  get failure(): McpProxyError | undefined {
    return this.#failure
  }

  /** The process id of a stdio server while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioClientTransport ? (this.#transport.pid ?? undefined) : undefined
  }

  /**
   * Calls one tool. Rejects with the SDK's `SdkError` for failures of the connection (closed, or
   * no answer within `timeoutMs`), its `ProtocolError` when the server refused the call, and with
   * `signal.reason` when aborted.
   */
  callTool(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    return callInUpstreamSpan(this.name, name, meta => this.#callTool(name, args, signal, meta))
  }

  async #callTool(
    name: string,
    args: unknown,
    signal: AbortSignal,
    meta: Record<string, string> | undefined,
  ): Promise<CallToolResult> {
    if (this.#isClosed) throw new SdkError(SdkErrorCode.ConnectionClosed, 'code-runtime is shutting down')
    signal.throwIfAborted()
    if (!this.#isSettled) await this.#settled
    if (this.#isClosed) throw new SdkError(SdkErrorCode.ConnectionClosed, 'code-runtime is shutting down')
    if (!this.#isConnected) {
      this.#restart ??= this.#open().finally(() => {
        this.#restart = undefined
      })
      await this.#restart
    }
    const client = this.#client as Client
    try {
      // The SDK stops listening to the signal once the call is answered, so the end of a run
      // never cancels a call that has already finished.
      return await client.callTool(
        meta === undefined
          ? { name, arguments: args as Record<string, unknown> }
          : { name, arguments: args as Record<string, unknown>, _meta: meta },
        { signal, timeout: this.config.timeoutMs },
      )
    } catch (error) {
      // An aborted call rejects with the SDK's timeout error; the caller's reason says more.
      if (signal.aborted) throw signal.reason
      await this.#noteWantedScope(error)
      throw this.#explainAuthFailure(error) ?? error
    }
  }

  /** Closes the connection; a stdio server is asked to exit, then terminated, then killed. */
  async close(): Promise<void> {
    this.#isClosed = true
    this.#stopLoginWatch?.()
    this.#firstConnect.abort(new Error('code-runtime is shutting down'))
    await this.#settled
    await this.#restart?.catch(() => undefined)
    await this.#shutConnection()
  }

  /** Connects and lists the tools; `signal` gives up on both (a close during the first connection). */
  async #open(signal?: AbortSignal): Promise<void> {
    const config = this.config
    signal?.throwIfAborted()
    const transport = await this.#openTransport()
    const client = new Client(
      { name: PACKAGE_INFO.name, version: PACKAGE_INFO.version },
      {
        capabilities: {},
        ...versionNegotiation(config),
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error !== null || tools === null || this.#client !== client) return
              this.#tools = Object.freeze(tools.filter(tool => !requiresTask(tool)).map(decodeTool))
              this.#listeners.onToolsChanged?.(this)
            },
          },
        },
      },
    )
    client.onclose = () => {
      if (this.#client === client) this.#isConnected = false
    }
    this.#client = client
    this.#transport = transport
    const requestOptions = { timeout: config.connectTimeoutMs, ...(signal === undefined ? {} : { signal }) }
    await client.connect(transport, requestOptions)
    // Without a cursor the SDK walks every page.
    const { tools } = await client.listTools(undefined, requestOptions)
    const before = this.#tools
    this.#tools = Object.freeze(tools.filter(tool => !requiresTask(tool)).map(decodeTool))
    this.#isConnected = true
    // A server restarted after a crash may come back with other tools.
    if (before.length > 0 && JSON.stringify(before) !== JSON.stringify(this.#tools))
      this.#listeners.onToolsChanged?.(this)
  }

  async #openTransport(): Promise<Transport> {
    const config = this.config
    switch (config.transport) {
      case 'stdio': {
        const command = findCommand(config.command, {
          cwd: config.cwd,
          projectDirectory: this.#listeners.projectDirectory ?? config.cwd,
          pathVariable: config.env.PATH ?? process.env.PATH,
        })
        if (command === undefined) {
          throw new McpProxyError(
            'MCP_PROXY_COMMAND_NOT_FOUND',
            `server "${config.name}": command ${JSON.stringify(config.command)} was not found on PATH or in node_modules/.bin; install it or fix "command".`,
            { server: config.name, field: `mcpServers.${config.name}.command`, value: config.command },
          )
        }
        const transport = new StdioClientTransport({
          command,
          args: [...config.args],
          env: { ...config.env },
          cwd: config.cwd,
          stderr: 'pipe',
        })
        const stderr = transport.stderr
        // With `stderr: 'pipe'` the SDK hands out a PassThrough at once, before the process starts.
        if (stderr instanceof Readable) {
          createInterface({ input: stderr, crlfDelay: Infinity }).on('line', line => {
            this.#stderrTail.push(line)
            if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift()
            this.#listeners.onStderrLine?.(this, line)
          })
        }
        // The SDK closes a transport whose handshake failed by itself, without letting us await
        // it, and a second close() returns at once. So we watch the process ourselves: onclose
        // fires when it has exited (the SDK chains our handler when it connects).
        let markExited = (): void => undefined
        const exited = new Promise<void>(resolve => {
          markExited = resolve
        })
        transport.onclose = () => markExited()
        const start = transport.start.bind(transport)
        transport.start = async () => {
          await start()
          this.#processExit = exited
        }
        return transport
      }
      case 'http': {
        const loginAuth = this.#loginAuthOf(config)
        return new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: { ...config.headers } },
          ...(loginAuth === undefined ? {} : { authProvider: loginAuth }),
        })
      }
      case 'in-process': {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
        this.#inProcess = await config.start(serverSide)
        return clientSide
      }
    }
  }

  #loginAuthOf(config: HttpServerConfig): StoredLoginAuth | undefined {
    const logins = this.#listeners.logins
    // A server given its own Authorization header is the person's to authenticate.
    if (logins === undefined || Object.keys(config.headers).some(header => header.toLowerCase() === 'authorization'))
      return undefined
    this.#loginAuth ??= new StoredLoginAuth(config, logins.store, logins.loginCommand(config.name))
    return this.#loginAuth
  }

  /** A 403 `insufficient_scope`: its scope is kept for the next login, which asks for it too. */
  async #noteWantedScope(error: unknown): Promise<void> {
    const required = wantedScopeOf(error)
    // A store we cannot write to now must not hide the refusal itself.
    if (required !== undefined) await this.#loginAuth?.noteWantedScope(required).catch(() => undefined)
  }

  /** A refusal a login can fix, worded as that login; undefined for a server without logins. */
  #explainAuthFailure(error: unknown): McpProxyError | undefined {
    const logins = this.#listeners.logins
    if (logins === undefined || this.config.transport !== 'http') return undefined
    return explainLoginFailure(error, this.config.name, logins.loginCommand(this.config.name))
  }

  #explainConnectFailure(error: unknown): McpProxyError {
    if (McpProxyError.is(error)) return error
    const name = this.config.name
    const auth = this.#explainAuthFailure(error)
    if (auth !== undefined) return auth
    const details = { server: name, cause: error }
    const lastLine = this.#stderrTail.findLast(line => line.trim() !== '')
    const said =
      lastLine === undefined ? '' : `; its last stderr line: ${JSON.stringify(lastLine.trim().slice(0, 300))}`
    if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
      return new McpProxyError(
        'MCP_PROXY_CONNECT_TIMEOUT',
        `server "${name}" did not finish the MCP handshake within ${this.config.connectTimeoutMs} ms (connectTimeoutMs)${said}; check that it speaks MCP, or raise connectTimeoutMs.`,
        details,
      )
    }
    if ((error as { code?: unknown }).code === 'ENOENT' && this.config.transport === 'stdio') {
      return new McpProxyError(
        'MCP_PROXY_COMMAND_NOT_FOUND',
        `server "${name}": command ${JSON.stringify(this.config.command)} could not be started (ENOENT); install it or fix "command".`,
        details,
      )
    }
    if (this.config.transport === 'http') {
      return new McpProxyError(
        'MCP_PROXY_CONNECT_FAILED',
        `server "${name}" at ${this.config.url} could not be reached (${describeCause(error)}); check "url" and "headers".`,
        details,
      )
    }
    if (SdkError.isInstance(error) && error.code === SdkErrorCode.ConnectionClosed) {
      return new McpProxyError(
        'MCP_PROXY_CONNECT_FAILED',
        `server "${name}" exited before finishing the MCP handshake${said}; check its "command", "args" and "env".`,
        details,
      )
    }
    return new McpProxyError(
      'MCP_PROXY_CONNECT_FAILED',
      `server "${name}" failed to start: ${describeCause(error)}${said}.`,
      details,
    )
  }

  async #shutConnection(): Promise<void> {
    this.#isConnected = false
    const client = this.#client
    const transport = this.#transport
    const inProcess = this.#inProcess
    this.#client = undefined
    this.#inProcess = undefined
    try {
      // Closing the client closes its transport: a stdio server gets end of input, then
      // SIGTERM, then SIGKILL, and the promise settles once the process has exited.
      if (client !== undefined) await client.close()
      else await transport?.close()
    } catch {
      // Already closed.
    }
    await this.#processExit
    this.#processExit = undefined
    await inProcess?.close().catch(() => undefined)
  }
}

/**
 * Connects to every server in parallel. Never rejects: a server that cannot start carries its
 * `failure`, and the others work.
 * @example
 * const servers = await connectUpstreams(config.servers, { projectDirectory: config.directory })
 * for (const server of servers) if (server.failure) console.error(server.failure.message)
 */
export async function connectUpstreams(
  configs: readonly UpstreamConfig[],
  listeners: UpstreamListeners = {},
): Promise<UpstreamServer[]> {
  return Promise.all(configs.map(config => UpstreamServer.connect(config, listeners)))
}

/**
 * Starts connecting to every server in parallel and returns them at once, each `isConnecting`
 * until its `settled` resolves (see `UpstreamServer.start`).
 * @example
 * const servers = startUpstreams(config.servers)
 * await Promise.all(servers.map(server => server.settled))
 */
export function startUpstreams(
  configs: readonly UpstreamConfig[],
  listeners: UpstreamListeners = {},
): UpstreamServer[] {
  return configs.map(config => UpstreamServer.start(config, listeners))
}

/** Closes every server and resolves once every stdio server process has exited. */
export async function closeUpstreams(servers: readonly UpstreamServer[]): Promise<void> {
  await Promise.all(servers.map(server => server.close()))
}
