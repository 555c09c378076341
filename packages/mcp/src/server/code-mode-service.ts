/**
 * What `code-runtime serve` serves, whatever the transport: one `run_code` tool over every upstream
 * server's tools (plus `get_tool_types` once the SDK is past its budget). When an upstream
 * server's tools change, the catalog is rebuilt and every client that listed is told
 * (`notifications/tools/list_changed`). A client's cancellation of `run_code` aborts the run,
 * which cancels its upstream calls. It answers at once: `initialize`, `ping` and
 * `logging/setLevel` while the upstream servers still connect and the runtime still starts;
 * `tools/list` and `tools/call` wait until the catalog is ready (every upstream connected or
 * failed, or `catalogWaitMs` passed, after which the rest are named as still connecting and added,
 * with `list_changed`, as they arrive). The program's logs reach the client while it runs only if
 * it asked (see run-notification-sinks.ts), batched and paced by the client's reading (see
 * run-notifier.ts).
 *
 * The SDK's serving entries build a fresh SDK server for each connection (stdio, a 2025-era HTTP
 * session) or each request (2026-07-28 over HTTP), so the service is two parts: the state that
 * outlives an SDK server (catalog, runtime, sessions, what is listed, admission, shutting down),
 * made once here, and `buildServer`, which registers the handlers over that state on a new SDK
 * server for one caller: who asks (a principal, on a shared server) and how their sessions are
 * named (by their connection, or by a handle each call passes).
 *
 * A call that needs approval is asked about in the client: on a 2025-era connection by a request
 * of the server's own while the run waits (client-approval.ts); on a 2026-07-28 request, which
 * stands alone, the run pauses at the call and `run_code` answers `input_required` with the
 * question and a signed `requestState`; the client's retry claims that round, its answer reaches
 * the waiting call, and the retry waits for the next round or the run's end (paused-runs.ts,
 * request-states.ts). The retry never starts the code again.
 *
 * Built on the SDK's low-level `Server`: our tools have JSON Schemas and descriptions that change
 * at run time, which the high-level `McpServer` (zod schemas, fixed registrations) does not fit.
 */
import {
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
  type Server,
  type Tool,
} from '@modelcontextprotocol/server'
import {
  CodeModeError,
  DEFAULT_MAX_RESULT_CHARS,
  fenceTypeScript,
  listRunCode,
  safeParseRunCodeInput,
  type CodeMode,
  type CodeModeRuntime,
  type RunCodeSessionMode,
  type TypeCheckMode,
} from '@code-runtime/code-mode'
import type { CodeSessionOptions } from '@code-runtime/core'
import {
  APPROVAL_FORM,
  canAskInRounds,
  clientApprover,
  decisionOfAnswer,
  DEFAULT_APPROVAL_FALLBACK,
  describeDecision,
  roundQuestionMessage,
  type ApprovalFallback,
} from './client-approval.js'
import { PausableRun, PausedRuns } from './paused-runs.js'
import { readRequestEnvelope } from './request-envelope.js'
import { RefusedRequestState, RequestStates, type StateRefusal } from './request-states.js'
import { ClientSessions } from './client-sessions.js'
import { LogSubscribingServer } from './log-subscriptions.js'
import { catalogSettled, DEFAULT_CATALOG_WAIT_MS, MAX_CATALOG_WAIT_MS } from './catalog-readiness.js'
import { McpProxyError } from '../errors.js'
import { PACKAGE_INFO } from '../package-info.js'
import { catalogCodeMode, runProgram } from '../run/program-run.js'
import { liveNotificationSinks } from './run-notification-sinks.js'
import { RunNotifier } from './run-notifier.js'
import { RunRefusedBusy, type AdmittedRun, type RunAdmission } from '../service/run-admission.js'
import { auditLine } from '../service/audit-line.js'
import { SessionHandles } from './session-handles.js'
import { answerInToolCallSpan } from './tool-call-span.js'
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

/** Options of {@link createCodeModeService} (and of `createCodeModeServer`, which serves one connection of it). */
export interface CodeModeServiceOptions {
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
   * Keep sessions of the runtime (default `true`): variables persist between `run_code` calls,
   * `run_code` takes `reset: true`, and its description says so. A client with a connection of
   * its own (stdio, a 2025-era HTTP session) has one session for it; a client without one (a
   * 2026-07-28 client over HTTP) names its session by the handle each result gives. `false`:
   * every run starts from nothing.
   */
  readonly state?: boolean
  /** The options of each session (idle expiry, heap budget, run budgets); the backend's defaults otherwise. */
  readonly sessionOptions?: CodeSessionOptions
  /** Sessions one principal keeps by handle at once; opening one more ends its least recently used. Default 8. */
  readonly maxSessionsPerPrincipal?: number
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
  /** Bounds the runs of principals (a shared server); runs of a caller without a principal are not bounded. */
  readonly admission?: RunAdmission
  /** Told one JSON line per `run_code` of a caller with a principal (the audit trail). */
  readonly onAudit?: (line: string) => void
  /** The audit lines carry each call's arguments and result. */
  readonly auditValues?: boolean
  /**
   * The wall-clock ceiling of a run as the runtime enforces it, in milliseconds (default 600 000,
   * the backends' own default): a run paused for approval can be resumed until it, plus a margin,
   * and is ended then if it still runs.
   */
  readonly runWallMs?: number
  /**
   * The key that signs the `requestState` of paused runs (at least 32 bytes), the same on every
   * node that may receive a client's retry. Default: a random key, so only this process can resume
   * its runs.
   */
  readonly requestStateKey?: Uint8Array
  /** Told, in one line, each `requestState` refused and why (forged, replayed, expired, another principal's). */
  readonly onStateRefused?: (line: string) => void
}

/** Who a served SDK server answers, and how their sessions are named. */
export interface ServiceCaller {
  /** Who asks, on a shared server; absent on stdio (one client, whoever started the process). */
  readonly principal?: string
  /**
   * `connection`: the caller's runs share one session per connection, filed under `connectionKey`
   * (with the principal); `handle`: each call names its session by a handle (2026-07-28 over HTTP).
   */
  readonly sessions: 'connection' | 'handle'
  /** The caller's connection, for `connection` sessions; one key per client. Default: the one client of stdio. */
  readonly connectionKey?: string
}

/** The state `code-runtime serve` answers from, shared by every connection and request it serves. */
export interface CodeModeService {
  /** The tools as they are now (none of a server still connecting). */
  readonly catalog: ToolCatalog
  /** Settles once the catalog and the runtime are ready; rejects when the runtime failed to start. */
  readonly ready: Promise<void>
  /** Rebuilds the catalog from the upstreams; tells the listeners when the tool list changed. */
  refresh(): void
  /** A fresh SDK server answering `caller` from this state; the serving entries ask for one per connection or request. */
  buildServer(caller: ServiceCaller): Server
  /** Calls `listener` whenever the tool list changed after a client listed it; returns how to stop. */
  onToolsChanged(listener: () => void): () => void
  /** Ends the session of a connection that went away (its variables go with it). */
  endConnection(caller: ServiceCaller): Promise<void>
  /** Aborts runs in flight and ends every session. Upstream servers stay the caller's to close. */
  close(): Promise<void>
}

/** Longest a paused run's state stays valid past its wall ceiling, so that a late retry still gets the outcome. */
export const PAUSED_RUN_MARGIN_MS = 30_000

/** The runs' wall ceiling when the service is not told it: the backends' default. */
const DEFAULT_RUN_WALL_MS = 600_000

/** What a run ends with, for the request that waits on it: its result, or the error it threw. */
type RunSettled = { readonly result: CallToolResult } | { readonly error: unknown }

/** How a request attaches to a paused run while it waits on it: its cancellation and its live notifications. */
interface RoundHost {
  /** Attaches the request; the function returned detaches it, once its notifications are out. */
  attach(context: ServerContext, server: LogSubscribingServer): () => Promise<void>
  /** Ends a run that outlived its budget while paused (the runtime ends it first; this makes sure). */
  abortOverdue(): void
}

type ServedPausableRun = PausableRun<RunSettled, RoundHost>

/** The tools a client may call here, by name: what a `tools/call` span may be named after. */
const SERVED_TOOLS: readonly string[] = ['run_code', TOOL_TYPES_TOOL_NAME]

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text }], isError }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/** The key of a connection's session: its principal and its connection, apart from any other's. */
function connectionSessionKey(caller: ServiceCaller): string {
  return `connection\0${caller.principal ?? ''}\0${caller.connectionKey ?? ''}`
}

/**
 * Creates the state every connection is answered from; `buildServer` serves one caller.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` for `maxParallel` or `maxResultChars` out of
 *   Code Mode's ranges, or a `typeCheck` that is not a mode.
 * @throws {McpProxyError} `MCP_PROXY_USAGE` for a `catalogWaitMs` that is not a whole number of
 *   milliseconds from 0 to 600 000.
 */
export function createCodeModeService(options: CodeModeServiceOptions): CodeModeService {
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
  const handles = new SessionHandles(options.maxSessionsPerPrincipal)
  /** How `run_code` is listed to callers whose sessions are named that way. */
  const sessionMode = (naming: ServiceCaller['sessions']): RunCodeSessionMode =>
    sessions?.enabled === true ? (naming === 'handle' ? 'handle' : true) : false
  const present = (naming: ServiceCaller['sessions']): ToolPresentation =>
    presentTools(catalog, maxSdkChars, { session: sessionMode(naming) })
  // Built once per catalog for each way of naming sessions; undefined until the server is ready.
  let presentations: Map<ServiceCaller['sessions'], ToolPresentation> | undefined
  // A Code Mode per catalog, built at the first run after the tools change (so a catalog replaced
  // before any run costs no SDK emission). A run keeps the Code Mode it started with.
  let codeMode: CodeMode | undefined
  const currentCodeMode = (): CodeMode => (codeMode ??= catalogCodeMode(runtime as CodeModeRuntime, catalog, limits))
  const closing = new AbortController()
  const runWallMs = options.runWallMs ?? DEFAULT_RUN_WALL_MS
  // A short budget gets a margin as short: a state outlives its run by as long again, at most 30 s.
  const marginMs = Math.min(PAUSED_RUN_MARGIN_MS, runWallMs)
  const states = new RequestStates(options.requestStateKey ?? RequestStates.randomKey(), runWallMs + marginMs)
  const pausedRuns = new PausedRuns<RunSettled, RoundHost>()
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
  const toolsChangedListeners = new Set<() => void>()
  const notifyToolsChanged = (): void => {
    for (const listener of toolsChangedListeners) listener()
  }

  function adoptRuntime(started: CodeModeRuntime): void {
    runtime = started
    sessions = new ClientSessions(started, options.state ?? true, options.sessionOptions)
    if (options.state !== false && !sessions.enabled)
      options.onNotice?.('the runtime has no openSession(); run_code runs every program from scratch.')
  }
  // While the upstream servers connect, the checker loads TypeScript and parses its library, over
  // an empty catalog: the checker of the real SDK, made once the catalog is ready, reuses that
  // parse, and the first run_code waits only for what depends on the tools. With the check off,
  // this loads nothing.
  const emptyCodeMode = catalogCodeMode(
    { run: () => Promise.reject(new Error('not started')) },
    buildToolCatalog([]),
    limits,
  )
  void emptyCodeMode.check('').catch(() => undefined)
  if (!isPromiseLike(options.runtime)) {
    adoptRuntime(options.runtime)
    codeMode = currentCodeMode()
  }
  const ready: Promise<void> = Promise.all([options.runtime, catalogSettled(options.upstreams, catalogWaitMs)]).then(
    ([started]) => {
      if (runtime === undefined) adoptRuntime(started)
      presentations = new Map()
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

  function presentationFor(naming: ServiceCaller['sessions']): ToolPresentation {
    const known = presentations ?? new Map<ServiceCaller['sessions'], ToolPresentation>()
    presentations = known
    let presentation = known.get(naming)
    if (presentation === undefined) {
      presentation = present(naming)
      known.set(naming, presentation)
    }
    return presentation
  }

  /** The presentation once the server is ready; what a request waits for. */
  async function readyPresentation(naming: ServiceCaller['sessions']): Promise<ToolPresentation> {
    await ready
    return presentationFor(naming)
  }

  function refresh(): void {
    const listed = presentations?.get('connection') ?? presentations?.get('handle')
    const before = listed === undefined ? undefined : JSON.stringify(listTools(listed, 'connection'))
    catalog = buildToolCatalog(options.upstreams)
    codeMode = undefined
    if (presentations === undefined) return
    presentations = new Map()
    warmChecker()
    if (hasListed && before !== JSON.stringify(listTools(presentationFor('connection'), 'connection'))) {
      notifyToolsChanged()
    }
  }

  function listTools(presentation: ToolPresentation, naming: ServiceCaller['sessions']): Tool[] {
    const listing = listRunCode(presentation.runCodeDescription, { session: sessionMode(naming) })
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

  async function answerListTools(caller: ServiceCaller): Promise<{ tools: Tool[] }> {
    const tools = listTools(await readyPresentation(caller.sessions), caller.sessions)
    hasListed = true
    return { tools }
  }

  /** Where a run of `caller` keeps its variables: a session key and, for a handle, the handle. */
  type SessionChoice =
    | { readonly kind: 'none' }
    | { readonly kind: 'connection'; readonly key: string }
    | { readonly kind: 'handle'; readonly key: string; readonly handle: string; readonly principal: string }
    | { readonly kind: 'refused'; readonly text: string }

  function chooseSession(caller: ServiceCaller, named: string | undefined): SessionChoice {
    if (sessions?.enabled !== true) return { kind: 'none' }
    if (caller.sessions === 'connection') return { kind: 'connection', key: connectionSessionKey(caller) }
    const principal = caller.principal ?? ''
    if (named !== undefined) {
      const key = handles.acquire(principal, named)
      if (key === undefined) {
        return {
          kind: 'refused',
          text: `There is no session ${named} of yours (it ended, or it was opened by someone else); nothing ran. Run without \`session\` to start a new one.`,
        }
      }
      return { kind: 'handle', key, handle: named, principal }
    }
    const opened = handles.open(principal)
    if (opened === undefined) {
      return {
        kind: 'refused',
        text: 'Every session you keep is running a program; nothing ran. Retry when one has finished, or pass the `session` of one of them.',
      }
    }
    if (opened.displacedKey !== undefined) void sessions.end(opened.displacedKey)
    return { kind: 'handle', key: opened.key, handle: opened.handle, principal }
  }

  async function admitted(caller: ServiceCaller, signal: AbortSignal): Promise<AdmittedRun | string | undefined> {
    if (options.admission === undefined || caller.principal === undefined) return undefined
    try {
      return await options.admission.admit(caller.principal, signal)
    } catch (error) {
      if (error instanceof RunRefusedBusy) return error.message
      if (signal.aborted) return 'The call was cancelled before its run could start; nothing ran.'
      throw error
    }
  }

  async function answerCallTool(
    server: LogSubscribingServer,
    caller: ServiceCaller,
    params: CallToolRequest['params'],
    context: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const startedAt = new Date()
    const started = performance.now()
    const { name, arguments: args } = params
    await readyPresentation(caller.sessions)
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
          listTools(await readyPresentation(caller.sessions), caller.sessions).map(tool => tool.name),
        ),
      )
    }
    // A retry of a paused run: the SDK's hook claimed its round (see claimRound). It resumes that
    // run; its arguments are the first request's again, and the code never starts twice.
    const resumed = context.mcpReq.requestState<unknown>()
    if (resumed instanceof PausableRun) return resumeRound(resumed as ServedPausableRun, server, context)
    // An absent `arguments` reads as an empty object: the model is told which field it forgot.
    const decoded = safeParseRunCodeInput(args ?? {}, { sessionHandles: sessionMode(caller.sessions) === 'handle' })
    if (!decoded.ok) return textResult(decoded.error, true)
    const input = decoded.value
    if (closing.signal.aborted) return textResult('code-runtime is shutting down; try again after it restarts.', true)
    const envelope = readRequestEnvelope(context)
    const admission = await admitted(caller, context.mcpReq.signal)
    if (typeof admission === 'string') return textResult(admission, true)
    // The run's own signal: a paused run outlives the request that started it, so each request
    // that waits on it is linked to it only while it waits.
    const aborting = new AbortController()
    let notifier: RunNotifier | undefined
    const host: RoundHost = {
      attach(request, requestServer) {
        // Live logs never exceed what the result itself can hold.
        const attached = new RunNotifier(liveNotificationSinks(requestServer, request), { maxLogChars: maxResultChars })
        notifier = attached
        const cancel = (): void => aborting.abort(request.mcpReq.signal.reason)
        if (request.mcpReq.signal.aborted) cancel()
        else request.mcpReq.signal.addEventListener('abort', cancel, { once: true })
        return async () => {
          request.mcpReq.signal.removeEventListener('abort', cancel)
          if (notifier === attached) notifier = undefined
          // Every live notification of the request goes out before its answer.
          await attached.close()
        }
      },
      abortOverdue: () => aborting.abort(new Error('The run outlived its wall budget while it waited for approval.')),
    }
    const pausable =
      envelope !== undefined && canAskInRounds(envelope)
        ? new PausableRun<RunSettled, RoundHost>(caller.principal ?? '', runWallMs + marginMs, host)
        : undefined
    const execute = async (): Promise<CallToolResult> => {
      let choice: SessionChoice = { kind: 'none' }
      let output
      try {
        choice = chooseSession(caller, input.session)
        if (choice.kind === 'refused') return textResult(choice.text, true)
        const run = (): ReturnType<typeof runProgram> => {
          const session =
            choice.kind === 'connection' || choice.kind === 'handle' ? clientSessions.of(choice.key) : undefined
          return runProgram(currentCodeMode(), input.code, {
            signal: AbortSignal.any([aborting.signal, closing.signal]),
            onLog: line => notifier?.log(line),
            onCalls: counts => notifier?.calls(counts),
            description: input.description,
            approve:
              pausable?.approver() ??
              clientApprover({
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
          presentations = new Map()
          choice = { kind: 'none' }
          notifyToolsChanged()
          output = await run()
        }
      } finally {
        if (choice.kind === 'handle') handles.release(choice.principal, choice.handle)
        admission?.release()
      }
      if (caller.principal !== undefined && options.onAudit !== undefined) {
        options.onAudit(
          auditLine(
            {
              startedAt,
              durationMs: performance.now() - started,
              principal: caller.principal,
              ...(choice.kind === 'handle'
                ? { session: choice.handle }
                : choice.kind === 'connection'
                  ? { session: caller.connectionKey ?? '' }
                  : {}),
              description: input.description,
              structured: output.structured,
            },
            member => {
              const tool = catalog.byMember.get(member)
              return tool === undefined ? undefined : { server: tool.server.name, tool: tool.toolName }
            },
            options.auditValues === true,
          ),
        )
      }
      // The handle is the last line, where the description says it is.
      const text = choice.kind === 'handle' ? `${output.text}\n\nsession: ${choice.handle}` : output.text
      return { content: [{ type: 'text', text }, ...output.media], isError: output.isError }
    }
    if (pausable === undefined) {
      const detach = host.attach(context, server)
      try {
        return await execute()
      } finally {
        await detach()
      }
    }
    void execute().then(
      result => pausable.end({ result }),
      (error: unknown) => pausable.end({ error }),
    )
    return answerRound(pausable, server, context)
  }

  /**
   * Waits, attached to `run`, for its next round or its end: the questions go out as
   * `input_required` with the round's signed state, the end as the run's result.
   */
  async function answerRound(
    run: ServedPausableRun,
    server: LogSubscribingServer,
    context: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const detach = run.host.attach(context, server)
    let event
    try {
      event = await run.next()
    } finally {
      await detach()
    }
    if (event.kind === 'ended') {
      pausedRuns.retire(run.id)
      if ('error' in event.outcome) throw event.outcome.error
      return event.outcome.result
    }
    pausedRuns.keep(run, () => run.host.abortOverdue())
    // At least this long is left: the run's budget began after the call arrived.
    const remainingMs = run.startedAt + runWallMs - Date.now()
    const requestState = await states.mint(run.id, event.round, run.principal, run.answerableUntil)
    return inputRequired({
      inputRequests: Object.fromEntries(
        event.questions.map(question => [
          question.key,
          inputRequired.elicit({
            message: roundQuestionMessage(question.request, remainingMs),
            requestedSchema: APPROVAL_FORM,
          }),
        ]),
      ),
      requestState,
    })
  }

  /** A retry that claimed a round of `run`: its answers reach their calls, then it waits like the first request. */
  function resumeRound(
    run: ServedPausableRun,
    server: LogSubscribingServer,
    context: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const responses = context.mcpReq.inputResponses ?? {}
    run.answer((key, request) => {
      const decision = Object.hasOwn(responses, key) ? decisionOfAnswer(responses[key]) : undefined
      if (decision !== undefined) options.onApproval?.(describeDecision(request.tool, decision, 'the client'))
      return decision
    })
    return answerRound(run, server, context)
  }

  /**
   * The SDK's hook on a retry's `requestState`, before the handler: the state must be ours,
   * unexpired, the caller's, and name the open round of a run here, which it claims. Any refusal
   * reaches the client as the SDK's one fixed error; the reason goes to the audit log.
   */
  async function claimRound(caller: ServiceCaller, state: string): Promise<ServedPausableRun> {
    const principal = caller.principal ?? ''
    try {
      const round = await states.read(state, principal)
      const claimed = pausedRuns.claim(round.runId, round.round, principal)
      if (typeof claimed === 'string') throw new RefusedRequestState(claimed)
      return claimed
    } catch (error) {
      const reason: StateRefusal = error instanceof RefusedRequestState ? error.reason : 'forged'
      options.onStateRefused?.(
        JSON.stringify({
          audit: 'request_state',
          time: new Date().toISOString(),
          principal: caller.principal ?? null,
          refused: reason,
        }),
      )
      throw error
    }
  }

  function buildServer(caller: ServiceCaller): LogSubscribingServer {
    const server = new LogSubscribingServer(
      { name: PACKAGE_INFO.name, version: PACKAGE_INFO.version },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions:
          'Use run_code to call the tools of several MCP servers from one TypeScript program: loops, branches and Promise.all instead of one tool call per turn.',
        // The listing changes at run time (upstreams arrive, change their tools, restart), so a
        // 2026-07-28 client must not serve it from a cache; list_changed says when to list again.
        cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
        requestState: { verify: state => claimRound(caller, state) },
      },
    )
    server.setRequestHandler('tools/list', () => answerListTools(caller))
    server.setRequestHandler('tools/call', (request, context) =>
      answerInToolCallSpan(request.params.name, SERVED_TOOLS, context, () =>
        answerCallTool(server, caller, request.params, context),
      ),
    )
    return server
  }

  return {
    get catalog() {
      return catalog
    },
    ready,
    refresh,
    buildServer,
    onToolsChanged(listener) {
      toolsChangedListeners.add(listener)
      return () => toolsChangedListeners.delete(listener)
    },
    async endConnection(caller) {
      await sessions?.end(connectionSessionKey(caller))
    },
    async close() {
      closing.abort(new Error('code-runtime is shutting down.'))
      toolsChangedListeners.clear()
      handles.clear()
      pausedRuns.clear()
      await sessions?.endAll()
    },
  }
}
