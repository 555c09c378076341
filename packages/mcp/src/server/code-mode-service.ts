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
import type { PeerBus } from '@code-runtime/nats'
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
import { SharedSessions, type SessionFleet, type SharedSessionLease } from '../cluster/shared-sessions.js'
import { SignedHandles } from '../cluster/signed-handles.js'
import { decodeAnswer, decodeRetry, encodeForwarded, RESUME_KIND } from '../cluster/round-forwarding.js'
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
  /**
   * One of several gateway nodes (`serve --http --nats`): sessions named by handles live on the
   * runners and any node serves them (the runtime must be able to take sessions over:
   * `adoptSession`), and a paused run's retry that lands on another node is forwarded to this one.
   */
  readonly cluster?: ServiceCluster
}

/** The gateway nodes' bus, as the service uses it: `@code-runtime/nats`'s peer bus. */
export type GatewayPeers = Pick<PeerBus, 'serve' | 'ask'>

/** What one gateway node of several needs: its id, the bus to the others, and the key the nodes sign handles with. */
export interface ServiceCluster {
  /** This node's id on the bus; the `requestState` of its paused runs names it. */
  readonly node: string
  readonly peers: GatewayPeers
  /** Signs session handles; the same on every node (derived from the shared state key). */
  readonly handleKey: Uint8Array
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
  /**
   * Aborts runs in flight and ends every session (one of several gateway nodes lets its sessions
   * by handle go instead: they stay on their runners). Upstream servers stay the caller's to close.
   */
  close(): Promise<void>
}

/** Longest a paused run's state stays valid past its wall ceiling, so that a late retry still gets the outcome. */
export const PAUSED_RUN_MARGIN_MS = 30_000

/** The runs' wall ceiling when the service is not told it: the backends' default. */
const DEFAULT_RUN_WALL_MS = 600_000

/** What a run ends with, for the request that waits on it: its result, or the error it threw. */
type RunSettled = { readonly result: CallToolResult } | { readonly error: unknown }

/**
 * A request that waits on a run: its cancellation, and, for a client's own request, where its live
 * notifications go (a retry forwarded from another node gets the logs in the result only).
 */
interface RoundWaiter {
  readonly signal: AbortSignal
  readonly live?: { readonly context: ServerContext; readonly server: LogSubscribingServer }
}

/** How a request attaches to a paused run while it waits on it: its cancellation and its live notifications. */
interface RoundHost {
  /** Attaches the request; the function returned detaches it, once its notifications are out. */
  attach(waiter: RoundWaiter): () => Promise<void>
  /** Ends a run that outlived its budget while paused (the runtime ends it first; this makes sure). */
  abortOverdue(): void
}

type ServedPausableRun = PausableRun<RunSettled, RoundHost>

/** A retry whose state names a run on another gateway node: it goes there (see forwardRound). */
class ForwardedRound {
  readonly node: string
  readonly state: string
  constructor(node: string, state: string) {
    this.node = node
    this.state = state
  }
}

/** How the SDK refuses a `requestState`; a refusal on another node reaches the client the same way. */
function refusedStateError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
    reason: 'invalid_request_state',
  })
}

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
  // Several gateway nodes: sessions by handle live on the runners, reachable from any node.
  let shared: SharedSessions | undefined
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
    const { cluster } = options
    if (cluster !== undefined && sessions.enabled) {
      if (typeof (started as Partial<SessionFleet>).adoptSession === 'function') {
        shared = new SharedSessions(
          started as unknown as SessionFleet,
          new SignedHandles(cluster.handleKey),
          options.sessionOptions,
          options.maxSessionsPerPrincipal,
        )
      } else {
        options.onNotice?.(
          'the runtime cannot hand sessions to another node; a session is served only by the node that opened it.',
        )
      }
    }
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
    | { readonly kind: 'shared'; readonly lease: SharedSessionLease }
    | { readonly kind: 'refused'; readonly text: string }

  async function chooseSession(caller: ServiceCaller, named: string | undefined): Promise<SessionChoice> {
    if (sessions?.enabled !== true) return { kind: 'none' }
    if (caller.sessions === 'connection') return { kind: 'connection', key: connectionSessionKey(caller) }
    const principal = caller.principal ?? ''
    if (shared !== undefined) {
      const lease = named === undefined ? await shared.open(principal) : await shared.acquire(principal, named)
      return lease.kind === 'lease' ? { kind: 'shared', lease } : lease
    }
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
    if (resumed instanceof PausableRun)
      return resumeRound(resumed as ServedPausableRun, context.mcpReq.inputResponses ?? {}, {
        signal: context.mcpReq.signal,
        live: { context, server },
      })
    if (resumed instanceof ForwardedRound) return forwardRound(resumed, caller, context)
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
      attach({ signal, live }) {
        // Live logs never exceed what the result itself can hold.
        const attached =
          live === undefined
            ? undefined
            : new RunNotifier(liveNotificationSinks(live.server, live.context), { maxLogChars: maxResultChars })
        notifier = attached
        const cancel = (): void => aborting.abort(signal.reason)
        if (signal.aborted) cancel()
        else signal.addEventListener('abort', cancel, { once: true })
        return async () => {
          signal.removeEventListener('abort', cancel)
          if (notifier === attached) notifier = undefined
          // Every live notification of the request goes out before its answer.
          await attached?.close()
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
      let sharedEnd: { readonly handle: string; readonly lost: boolean } | undefined
      try {
        choice = await chooseSession(caller, input.session)
        if (choice.kind === 'refused') return textResult(choice.text, true)
        const run = (): ReturnType<typeof runProgram> => {
          const session =
            choice.kind === 'connection' || choice.kind === 'handle'
              ? clientSessions.of(choice.key)
              : choice.kind === 'shared'
                ? choice.lease.session
                : undefined
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
        // The check's knowledge of the session goes with it to its runner before the answer does.
        if (choice.kind === 'shared') sharedEnd = await choice.lease.finish()
        admission?.release()
      }
      const handle = choice.kind === 'handle' ? choice.handle : choice.kind === 'shared' ? sharedEnd?.handle : undefined
      if (caller.principal !== undefined && options.onAudit !== undefined) {
        options.onAudit(
          auditLine(
            {
              startedAt,
              durationMs: performance.now() - started,
              principal: caller.principal,
              ...(handle !== undefined
                ? { session: handle }
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
      if (handle === undefined)
        return { content: [{ type: 'text', text: output.text }, ...output.media], isError: output.isError }
      const lost =
        sharedEnd?.lost === true
          ? '\n\nsession lost: this session and its variables are gone, on every node. Run without `session` to start a new one.'
          : ''
      // The handle is the last line, where the description says it is.
      return {
        content: [{ type: 'text', text: `${output.text}${lost}\n\nsession: ${handle}` }, ...output.media],
        structuredContent: { session: handle },
        isError: output.isError,
      }
    }
    if (pausable === undefined) {
      const detach = host.attach({ signal: context.mcpReq.signal, live: { context, server } })
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
    return answerRound(pausable, { signal: context.mcpReq.signal, live: { context, server } })
  }

  /**
   * Waits, attached to `run`, for its next round or its end: the questions go out as
   * `input_required` with the round's signed state, the end as the run's result.
   */
  async function answerRound(
    run: ServedPausableRun,
    waiter: RoundWaiter,
  ): Promise<CallToolResult | InputRequiredResult> {
    const detach = run.host.attach(waiter)
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
    const requestState = await states.mint(
      run.id,
      event.round,
      run.principal,
      run.answerableUntil,
      options.cluster?.node,
    )
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
    responses: Readonly<Record<string, unknown>>,
    waiter: RoundWaiter,
  ): Promise<CallToolResult | InputRequiredResult> {
    run.answer((key, request) => {
      const decision = Object.hasOwn(responses, key) ? decisionOfAnswer(responses[key]) : undefined
      if (decision !== undefined) options.onApproval?.(describeDecision(request.tool, decision, 'the client'))
      return decision
    })
    return answerRound(run, waiter)
  }

  /**
   * A retry whose state names a run on another node: sent there, and its answer (the next round,
   * the result, or a refusal of the state) answered here. A node that does not answer is gone, and
   * with it the run: the client is told, and nothing is run again.
   */
  async function forwardRound(
    round: ForwardedRound,
    caller: ServiceCaller,
    context: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const peers = (options.cluster as ServiceCluster).peers
    const retry = encodeForwarded({
      state: round.state,
      principal: caller.principal ?? '',
      responses: context.mcpReq.inputResponses ?? {},
    })
    let bytes: Uint8Array
    try {
      // The owner answers at the run's next round or its end, which its wall budget bounds.
      bytes = await peers.ask(round.node, RESUME_KIND, retry, {
        timeoutMs: runWallMs + marginMs + 10_000,
        signal: context.mcpReq.signal,
      })
    } catch (error) {
      if (context.mcpReq.signal.aborted) throw error
      auditRefusal(caller, 'node-unreachable')
      return textResult(
        `The run this answer is for was paused on another gateway node (${round.node}), which does not answer: ${error instanceof Error ? error.message : String(error)}. That run is lost with it; none of its calls will run now. Run the program again if it should.`,
        true,
      )
    }
    const answer = decodeAnswer(bytes)
    if (answer.kind === 'refused') throw refusedStateError()
    if (answer.kind === 'failed') throw new Error(answer.message)
    return answer.answer
  }

  /** A retry another node forwarded here: claimed against this node's record, and answered as a local retry is. */
  async function answerForwarded(bytes: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
    const retry = decodeRetry(bytes)
    if (retry === undefined) return encodeForwarded({ kind: 'failed', message: 'the forwarded retry does not decode' })
    let run: ServedPausableRun | ForwardedRound
    try {
      run = await claimRound({ principal: retry.principal, sessions: 'handle' }, retry.state)
    } catch (error) {
      return encodeForwarded({
        kind: 'refused',
        reason: error instanceof RefusedRequestState ? error.reason : 'forged',
      })
    }
    // A state naming a third node was forwarded to the wrong one: never passed on again.
    if (run instanceof ForwardedRound) return encodeForwarded({ kind: 'refused', reason: 'unknown-run' })
    try {
      return encodeForwarded({ kind: 'answer', answer: await resumeRound(run, retry.responses, { signal }) })
    } catch (error) {
      return encodeForwarded({ kind: 'failed', message: error instanceof Error ? error.message : String(error) })
    }
  }
  // Routed before the first client can have a state of this node's: minting waits for a run to pause.
  void options.cluster?.peers.serve(RESUME_KIND, answerForwarded)

  /** Writes the audit line of a refused `requestState`. */
  function auditRefusal(caller: ServiceCaller, reason: StateRefusal | 'node-unreachable'): void {
    options.onStateRefused?.(
      JSON.stringify({
        audit: 'request_state',
        time: new Date().toISOString(),
        principal: caller.principal ?? null,
        refused: reason,
      }),
    )
  }

  /**
   * The SDK's hook on a retry's `requestState`, before the handler: the state must be ours,
   * unexpired, the caller's, and name the open round of a run here, which it claims. Any refusal
   * reaches the client as the SDK's one fixed error; the reason goes to the audit log.
   */
  async function claimRound(caller: ServiceCaller, state: string): Promise<ServedPausableRun | ForwardedRound> {
    const principal = caller.principal ?? ''
    try {
      const round = await states.read(state, principal)
      // Signed by the deployment, the caller's, unexpired, and another node's run: that node claims it.
      const { cluster } = options
      if (round.node !== undefined && cluster !== undefined && round.node !== cluster.node)
        return new ForwardedRound(round.node, state)
      const claimed = pausedRuns.claim(round.runId, round.round, principal)
      if (typeof claimed === 'string') throw new RefusedRequestState(claimed)
      return claimed
    } catch (error) {
      auditRefusal(caller, error instanceof RefusedRequestState ? error.reason : 'forged')
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
      // Sessions by handle stay on their runners for the other nodes; a connection's end with it.
      await Promise.all([sessions?.endAll(), shared?.releaseAll()])
    },
  }
}
