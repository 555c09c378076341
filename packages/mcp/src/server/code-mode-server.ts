/**
 * The MCP server `code-runtime serve` is: one `run_code` tool over every upstream server's tools
 * (plus `get_tool_types` once the SDK is past its budget). When an upstream server's tools
 * change, the catalog is rebuilt and the client is sent `notifications/tools/list_changed`.
 * A client's cancellation of `run_code` aborts the run, which cancels its upstream calls.
 * It answers at once: `initialize`, `ping` and `logging/setLevel` while the upstream servers
 * still connect and the runtime still starts; `tools/list` and `tools/call` wait until the
 * catalog is ready (every upstream connected or failed, or `catalogWaitMs` passed, after which
 * the rest are named as still connecting and added, with `list_changed`, as they arrive).
 * The program's logs reach the client while it runs only if it asked (see run-notification-sinks.ts),
 * batched and paced by the client's reading (see run-notifier.ts).
 *
 * It serves both protocol revisions, 2025-11-25 (and older: clients that open with `initialize`)
 * and 2026-07-28 (`server/discover`, an envelope on every request), through the SDK's serving
 * entry (see served-connection.ts). That entry builds a fresh SDK server for each connection,
 * so the server is two parts: the state that outlives an SDK server (catalog, runtime, sessions,
 * what is listed, shutting down), made once here, and `buildServer`, which registers the handlers
 * over that state on a new SDK server whenever the entry asks for one. What a 2026-07-28 client
 * does not get yet: a call that needs approval cannot be asked about mid-run (see
 * client-approval.ts).
 *
 * Built on the SDK's low-level `Server`: our tools have JSON Schemas and descriptions that change
 * at run time, which the high-level `McpServer` (zod schemas, fixed registrations) does not fit.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type ServerContext,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server'
import {
  CodeModeError,
  DEFAULT_MAX_RESULT_CHARS,
  fenceTypeScript,
  listRunCode,
  safeParseRunCodeInput,
  type CodeMode,
  type CodeModeRuntime,
  type TypeCheckMode,
} from '@code-runtime/code-mode'
import type { CodeSessionOptions } from '@code-runtime/core'
import { clientApprover, DEFAULT_APPROVAL_FALLBACK, type ApprovalFallback } from './client-approval.js'
import { ClientSessions } from './client-sessions.js'
import { LogSubscribingServer } from './log-subscriptions.js'
import { catalogSettled, DEFAULT_CATALOG_WAIT_MS, MAX_CATALOG_WAIT_MS } from './catalog-readiness.js'
import { McpProxyError } from '../errors.js'
import { PACKAGE_INFO } from '../package-info.js'
import { catalogCodeMode, runProgram } from '../run/program-run.js'
import { liveNotificationSinks } from './run-notification-sinks.js'
import { RunNotifier } from './run-notifier.js'
import { ServedConnection } from './served-connection.js'
import {
  DEFAULT_MAX_SDK_CHARS,
  presentTools,
  TOOL_TYPES_INPUT_SCHEMA,
  TOOL_TYPES_TOOL_NAME,
  unknownMembersMessage,
  unknownToolMessage,
  type ToolPresentation,
} from '../run/run-code-description.js'
import { buildToolCatalog, declarationsFor, type ToolCatalog } from '../upstream/tool-catalog.js'
import type { UpstreamServer } from '../upstream/upstream-clients.js'

/** Options of {@link createCodeModeServer}. */
export interface CodeModeServerOptions {
  /**
   * The upstream servers (failed ones included: they are named in the description), connected
   * (`connectUpstreams`) or still connecting (`startUpstreams`).
   */
  readonly upstreams: readonly UpstreamServer[]
  /** Where programs run, or the promise of it while it starts (the server answers meanwhile). */
  readonly runtime: CodeModeRuntime | PromiseLike<CodeModeRuntime>
  /**
   * Longest that `tools/list` and `tools/call` wait for upstream servers still connecting, in
   * milliseconds; default 20 000. Past it they are served with the servers that are ready.
   */
  readonly catalogWaitMs?: number
  /** Told the catalog once it is ready, before the first listing is answered. */
  readonly onCatalogReady?: (catalog: ToolCatalog) => void
  /** Largest SDK shown in full in `run_code`'s description, in characters; default 20 000. */
  readonly maxSdkChars?: number
  /** Most read-only calls of one run in flight at once; default 10. */
  readonly maxParallel?: number
  /** Longest text of one result, in characters; default 40 000. */
  readonly maxResultChars?: number
  /**
   * How a program is type-checked against the SDK before it runs: `calls` (default) refuses only
   * what would certainly fail at run time, `strict` any type error, `off` checks nothing. A
   * refused program calls no tool; its result says why, with line and column.
   */
  readonly typeCheck?: TypeCheckMode
  /**
   * Keep one session of the runtime per MCP client session (default `true`): variables persist
   * between `run_code` calls, `run_code` takes `reset: true`, and its description says so. A
   * server serves one connection, so that is one session (over stdio, one per process). `false`:
   * every run starts from nothing.
   */
  readonly state?: boolean
  /** The options of each session (idle expiry, heap budget, run budgets); the backend's defaults otherwise. */
  readonly sessionOptions?: CodeSessionOptions
  /** Told, in one line, what a person running the server should know (the backend has no sessions). */
  readonly onNotice?: (line: string) => void
  /**
   * What a call that needs approval gets when the client cannot ask its person (no elicitation,
   * or a request of protocol revision 2026-07-28, which cannot be asked mid-run yet): `decline`
   * (default) or `allow`. A client that can ask is always asked.
   */
  readonly approvalFallback?: ApprovalFallback
  /** Told each approval decision in one line (the server's audit log). */
  readonly onApproval?: (line: string) => void
}

/**
 * A running Code Mode MCP server. It serves one connection: a client, over the transport given
 * to `connect`; serve another client with another `createCodeModeServer` (over the same runtime
 * and upstreams, if you like).
 */
export interface CodeModeServer {
  /** The tools as they are now (none of a server still connecting). */
  readonly catalog: ToolCatalog
  /** Settles once the catalog and the runtime are ready; rejects when the runtime failed to start. */
  readonly ready: Promise<void>
  /** Rebuilds the catalog from the upstreams; tells the client when its tool list changed. */
  refresh(): void
  /**
   * Serves one client over `transport`, a long-lived message stream (over stdio, a
   * `BoundedStdioServerTransport`), in whichever revision the client opens with; resolves once the
   * transport has started. A second call rejects (`MCP_PROXY_USAGE`).
   */
  connect(transport: Transport): Promise<void>
  /** Aborts runs in flight, ends every session, then closes the connection. Upstream servers stay the caller's to close. */
  close(): Promise<void>
}

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text }], isError }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * Creates the server; call `connect` with a transport to serve.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` for `maxParallel` or `maxResultChars` out of
 *   Code Mode's ranges, or a `typeCheck` that is not a mode.
 * @throws {McpProxyError} `MCP_PROXY_USAGE` for a `catalogWaitMs` that is not a whole number of
 *   milliseconds from 0 to 600 000.
 * @example
 * const codeModeServer = createCodeModeServer({ upstreams, runtime })
 * await codeModeServer.connect(new BoundedStdioServerTransport())
 */
export function createCodeModeServer(options: CodeModeServerOptions): CodeModeServer {
  const maxSdkChars = options.maxSdkChars ?? DEFAULT_MAX_SDK_CHARS
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS
  const catalogWaitMs = options.catalogWaitMs ?? DEFAULT_CATALOG_WAIT_MS
  if (!Number.isSafeInteger(catalogWaitMs) || catalogWaitMs < 0 || catalogWaitMs > MAX_CATALOG_WAIT_MS) {
    throw new McpProxyError(
      'MCP_PROXY_USAGE',
      `catalogWaitMs must be a whole number of milliseconds from 0 to ${MAX_CATALOG_WAIT_MS}; got ${String(catalogWaitMs)}.`,
      { field: 'catalogWaitMs', value: catalogWaitMs },
    )
  }
  let catalog = buildToolCatalog(options.upstreams)
  const limits = {
    ...(options.maxParallel === undefined ? {} : { maxParallel: options.maxParallel }),
    maxResultChars,
    ...(options.typeCheck === undefined ? {} : { typeCheck: options.typeCheck }),
  }
  // Until the runtime is there, a run waits (see `ready`); what the server lists before then is
  // never built, since the listing waits too.
  let runtime: CodeModeRuntime | undefined
  let sessions: ClientSessions | undefined
  const present = (): ToolPresentation => presentTools(catalog, maxSdkChars, { session: sessions?.enabled === true })
  let presentation: ToolPresentation | undefined
  // A Code Mode per catalog, built at the first run after the tools change (so a catalog replaced
  // before any run costs no SDK emission). A run keeps the Code Mode it started with.
  let codeMode: CodeMode | undefined
  const currentCodeMode = (): CodeMode => (codeMode ??= catalogCodeMode(runtime as CodeModeRuntime, catalog, limits))
  const closing = new AbortController()
  // The first type check imports TypeScript and parses its library and the SDK, in the checker's
  // thread: paid while the model still reads the tools, not by the first run_code. With the
  // check off, this loads nothing.
  const warmChecker = (): void => {
    if (runtime === undefined || closing.signal.aborted) return
    void currentCodeMode()
      .check('')
      .catch(() => undefined)
  }
  /** True once a client has had a listing: before, a changed catalog is news to nobody. */
  let hasListed = false

  function adoptRuntime(started: CodeModeRuntime): void {
    runtime = started
    sessions = new ClientSessions(started, options.state ?? true, options.sessionOptions)
    if (options.state !== false && !sessions.enabled)
      options.onNotice?.('the runtime has no openSession(); run_code runs every program from scratch.')
  }
  if (isPromiseLike(options.runtime)) {
    // Options Code Mode refuses fail here all the same: checked over an empty catalog.
    catalogCodeMode({ run: () => Promise.reject(new Error('not started')) }, buildToolCatalog([]), limits)
  } else {
    adoptRuntime(options.runtime)
    codeMode = currentCodeMode()
  }
  const ready: Promise<void> = Promise.all([options.runtime, catalogSettled(options.upstreams, catalogWaitMs)]).then(
    ([started]) => {
      if (runtime === undefined) adoptRuntime(started)
      presentation = present()
      options.onCatalogReady?.(catalog)
      warmChecker()
    },
  )
  // A runtime that fails to start is the embedder's to handle (`ready` rejects); requests then
  // get the error, never an unhandled rejection here.
  ready.catch(() => undefined)
  for (const upstream of options.upstreams) {
    if (upstream.isConnecting) void upstream.settled.then(() => refresh())
  }

  /** The presentation once the server is ready; what a request waits for. */
  async function readyPresentation(): Promise<ToolPresentation> {
    await ready
    return (presentation ??= present())
  }

  /** The connection served, once `connect` has started it; `opening` while it starts. */
  let connection: ServedConnection | undefined
  let opening: Promise<ServedConnection> | undefined

  function refresh(): void {
    const before = presentation === undefined ? undefined : listTools(presentation)
    catalog = buildToolCatalog(options.upstreams)
    codeMode = undefined
    if (presentation === undefined) return
    presentation = present()
    warmChecker()
    if (hasListed && JSON.stringify(before) !== JSON.stringify(listTools(presentation)))
      connection?.notifyToolsChanged()
  }

  function listTools(presentation: ToolPresentation): Tool[] {
    const listing = listRunCode(presentation.runCodeDescription, { session: sessions?.enabled === true })
    const tools: Tool[] = [
      {
        ...listing,
        inputSchema: listing.inputSchema as Tool['inputSchema'],
        annotations: { title: 'Run code over MCP tools', openWorldHint: true },
      },
    ]
    if (presentation.toolTypesDescription !== undefined) {
      tools.push({
        name: TOOL_TYPES_TOOL_NAME,
        description: presentation.toolTypesDescription,
        inputSchema: TOOL_TYPES_INPUT_SCHEMA as unknown as Tool['inputSchema'],
        annotations: { title: 'Get tool types', readOnlyHint: true, openWorldHint: false },
      })
    }
    return tools
  }

  async function answerListTools(): Promise<{ tools: Tool[] }> {
    const tools = listTools(await readyPresentation())
    hasListed = true
    return { tools }
  }

  async function answerCallTool(
    server: LogSubscribingServer,
    params: CallToolRequest['params'],
    context: ServerContext,
  ): Promise<CallToolResult> {
    const { name, arguments: args } = params
    await readyPresentation()
    const clientSessions = sessions as ClientSessions
    if (name === TOOL_TYPES_TOOL_NAME) {
      const members = args?.tools
      if (!Array.isArray(members) || !members.every(member => typeof member === 'string') || members.length === 0) {
        return textResult(
          'get_tool_types needs `tools`: a non-empty array of member names, e.g. ["files_read_text_file"].',
          true,
        )
      }
      const { declarations, unknown } = declarationsFor(catalog, members)
      if (unknown.length > 0) return textResult(unknownMembersMessage(catalog, unknown), true)
      return textResult(fenceTypeScript(declarations), false)
    }
    if (name !== 'run_code') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        unknownToolMessage(
          catalog,
          name,
          listTools(await readyPresentation()).map(tool => tool.name),
        ),
      )
    }
    // An absent \`arguments\` reads as an empty object: the model is told which field it forgot.
    const decoded = safeParseRunCodeInput(args ?? {})
    if (!decoded.ok) return textResult(decoded.error, true)
    const input = decoded.value
    if (closing.signal.aborted) return textResult('code-runtime is shutting down; try again after it restarts.', true)
    // Live logs never exceed what the result itself can hold.
    const notifier = new RunNotifier(liveNotificationSinks(server, context), { maxLogChars: maxResultChars })
    let output
    try {
      const run = (): ReturnType<typeof runProgram> => {
        const session = clientSessions.of(context.sessionId)
        return runProgram(currentCodeMode(), input.code, {
          signal: AbortSignal.any([context.mcpReq.signal, closing.signal]),
          onLog: line => notifier.log(line),
          onCalls: counts => notifier.calls(counts),
          description: input.description,
          approve: clientApprover({
            server,
            request: context,
            fallback: options.approvalFallback ?? DEFAULT_APPROVAL_FALLBACK,
            ...(options.onApproval === undefined ? {} : { log: options.onApproval }),
          }),
          ...(session === undefined ? {} : { session, reset: input.reset }),
        })
      }
      try {
        output = await run()
      } catch (error) {
        if (!CodeModeError.is(error)) throw error
        if (error.code === 'CODE_MODE_SESSION_UNAVAILABLE')
          return textResult(`${error.message} Nothing ran; try again shortly.`, true)
        if (error.code !== 'CODE_MODE_SESSIONS_UNSUPPORTED') throw error
        // Nothing ran: the session could not open. Go on without state, and say so once.
        options.onNotice?.(`${error.message}; run_code runs every program from scratch instead (as with --no-state).`)
        await clientSessions.disable()
        presentation = present()
        connection?.notifyToolsChanged()
        output = await run()
      }
    } finally {
      // Every live notification of the run goes out before its result.
      await notifier.close()
    }
    return { content: [{ type: 'text', text: output.text }, ...output.media], isError: output.isError }
  }

  /** A fresh SDK server answering from the state above: the serving entry asks for one per connection. */
  function buildServer(): LogSubscribingServer {
    const server = new LogSubscribingServer(
      { name: PACKAGE_INFO.name, version: PACKAGE_INFO.version },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions:
          'Use run_code to call the tools of several MCP servers from one TypeScript program: loops, branches and Promise.all instead of one tool call per turn.',
        // The listing changes at run time (upstreams arrive, change their tools, restart), so a
        // 2026-07-28 client must not serve it from a cache; list_changed says when to list again.
        cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
      },
    )
    server.setRequestHandler('tools/list', answerListTools)
    server.setRequestHandler('tools/call', (request, context) => answerCallTool(server, request.params, context))
    return server
  }

  return {
    get catalog() {
      return catalog
    },
    ready,
    refresh,
    async connect(transport) {
      if (opening !== undefined || closing.signal.aborted) {
        throw new McpProxyError(
          'MCP_PROXY_USAGE',
          'A Code Mode server serves one connection, and this one is already connected or closed; create another server for another client.',
        )
      }
      opening = ServedConnection.open(transport, {
        build: buildServer,
        // The client went away (end of stdin, a closed transport): its variables go with it.
        onEnd: () => void sessions?.endAll(),
      })
      connection = await opening
    },
    async close() {
      closing.abort(new Error('code-runtime is shutting down.'))
      await (await opening?.catch(() => undefined))?.close()
      await sessions?.endAll()
    },
  }
}
