/**
 * Code Mode in one call: tools in; the model-facing SDK, the `run_code` tool and the dispatch of
 * the program's calls back to the tools out. Works with any `CodeRuntime`.
 */
import {
  type CodeBindingFunction,
  type CodeBindingNamespace,
  type CodeJsonValue,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import {
  nestConfigLabel,
  readBooleanField,
  readConfigObject,
  readIntegerField,
  refuseConfigField,
} from '@code-runtime/core/internal'
import { argumentValidatorOf } from './run/argument-validation.js'
import { keptNamesLimitOutput, refusedRunOutput, typeHintsBlock } from './run/checked-run-output.js'
import { hasSessions, RunCodeSession, sessionEndedNote, type CodeModeSession } from './run/code-mode-session.js'
import { CodeModeError, codeModeErrorPlace } from './errors.js'
import { renderRunResult } from './run/render-result.js'
import { listRunCode, safeParseRunCodeInput } from './run/run-code-input.js'
import { describeRunCode, type RunCodeOptions, type RunCodeOutput, type RunCodeTool } from './run/run-code-tool.js'
import { emitParsedSdk, type EmittedSdk } from './sdk/sdk-emitter.js'
import { resolveSdkEmitterOptions, TOOL_NAME_PROPERTY } from './sdk/sdk-options.js'
import { RunApprovals, toolNeedsApproval, type ApproveToolCall, type ToolCallRecord } from './run/tool-approval.js'
import { RunEndedError, ToolCallScheduler } from './run/tool-call-scheduler.js'
import {
  parseToolDescriptions,
  type CodeModeTool,
  type JsonSchema,
  type ParsedToolDescription,
} from './tools/tool-definition.js'
import {
  DEFAULT_TYPE_CHECK_MODE,
  TYPE_CHECK_MODES,
  UNCHECKED_PROGRAM,
  type ProgramCheck,
  type TypeCheckMode,
} from './type-check/program-check.js'
import { sharedCheckerProcess, type SdkChecker } from './type-check/checker-process.js'
import { VerdictGate } from './run/verdict-gate.js'
import { RunTrace, errorTypeOf, type CodeModeTracingOptions } from './run/run-trace.js'
import { recordQueueWait } from './run/run-metrics.js'

/** The part of a code runtime Code Mode uses: any `CodeRuntime` fits. */
export interface CodeModeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /** Needed only for sessions (`session` option, `createCodeModeSession`). */
  openSession?(options?: CodeSessionOptions): Promise<CodeSession>
  /** How it isolates programs (a `CodeRuntime` says, e.g. `worker-thread`): the backend a run's span names. */
  readonly isolation?: string
}

/** Options of {@link createCodeMode}. */
export interface CodeModeOptions {
  /** The tools programs may call. */
  readonly tools: readonly CodeModeTool[]
  /** Where programs run, e.g. a started `WorkerThreadCodeRuntime`. */
  readonly runtime: CodeModeRuntime
  /** Global holding the tools in the program; default `tools`. */
  readonly namespace?: string
  /** Class of failed calls in the program; default `ToolCallError`. */
  readonly errorClassName?: string
  /** Most concurrency-safe calls in flight at once; default 10. */
  readonly maxParallel?: number
  /** Longest text returned to the model, in characters; default 40 000. */
  readonly maxResultChars?: number
  /**
   * How a program is checked against the SDK before it runs: `calls` (default) refuses only what
   * certainly fails at run time, `strict` refuses any type error, `off` checks nothing.
   */
  readonly typeCheck?: TypeCheckMode
  /**
   * Bind `run_code` to a session of the runtime (CONTRACT section #sessions): top-level
   * declarations of one program are visible to the next, and the type check knows their types.
   * `true` for the runtime's session defaults, or the session's options. Opened on the first run;
   * see {@link CodeMode.resetSession} and {@link CodeMode.dispose}. Off by default: every run
   * starts from nothing.
   */
  readonly session?: boolean | CodeSessionOptions
  /**
   * Asks a person about each call of a tool that needs approval (its `needsApproval`, else a
   * `destructiveHint: true` tool not marked read-only): the call waits for the answer, other calls
   * go on. Without it, such calls are declined: the program sees a failed call, the tool never runs.
   */
  readonly approve?: ApproveToolCall
  /**
   * What the OpenTelemetry spans of each run record beyond counts, hashes and kinds. Spans go to
   * whatever tracer provider the application registered with `@opentelemetry/api` (none: no-op).
   */
  readonly tracing?: CodeModeTracingOptions
}

/** What {@link createCodeMode} returns. */
export interface CodeMode {
  /** The SDK for the prompt: declarations, instructions, and both as one text. */
  readonly sdk: EmittedSdk
  /** The `run_code` tool to hand to the model. */
  readonly tool: RunCodeTool
  /** Runs one program directly (what `tool.execute` does after checking its input); checks it first unless `typeCheck` is `off`. */
  run(code: string, options?: RunCodeOptions): Promise<RunCodeOutput>
  /** Checks one program under the configured `typeCheck` mode, without running it (knowing the names the bound session kept). */
  check(code: string): Promise<ProgramCheck>
  /** The session `run_code` is bound to (the `session` option), else `undefined`. */
  readonly session: CodeModeSession | undefined
  /** Forgets every variable of the bound session (the next run opens a new one); nothing without one. */
  resetSession(): Promise<void>
  /** Ends the bound session; later runs are refused (`CODE_MODE_SESSION_CLOSED`). Idempotent. */
  dispose(): Promise<void>
}

export const DEFAULT_MAX_PARALLEL = 10
export const DEFAULT_MAX_RESULT_CHARS = 40_000
/** The largest `maxResultChars` taken: about 100 million characters, far past any model's context. */
export const MAX_RESULT_CHARS_LIMIT = 100_000_000

const OPTIONS_PLACE = codeModeErrorPlace('CODE_MODE_INVALID_OPTIONS', 'Code Mode options')

/** A call may overlap others when the tool says so, or when it declares itself read-only. */
function isConcurrencySafe(tool: CodeModeTool): boolean {
  return tool.concurrencySafe ?? tool.annotations?.readOnlyHint === true
}

/** The session options `createCodeMode` takes: `true`, or an object of `CodeSessionOptions`. */
function readSessionOption(session: CodeModeOptions['session']): CodeSessionOptions | undefined {
  if (session === undefined || session === false) return undefined
  if (session === true) return {}
  if (typeof session !== 'object' || session === null || Array.isArray(session)) {
    refuseConfigField(OPTIONS_PLACE, 'session', 'must be true, false or the options of a session', session)
  }
  return session
}

/** A run's result with the approval decisions on its calls. */
type ApprovedRunResult = Omit<CodeRunResult, 'calls'> & { readonly calls: readonly ToolCallRecord[] }

/** The structured outcome for a caller: `{ logs, result?, error?, calls, usage }`. */
function structureRunResult(result: ApprovedRunResult): RunCodeOutput['structured'] {
  const { logs, calls, usage } = result
  if (result.error !== undefined) return { logs, error: result.error, calls, usage }
  return 'value' in result && result.value !== undefined
    ? { logs, result: result.value, calls, usage }
    : { logs, calls, usage }
}

/** The run's result with each approval decision on its call. */
function withApprovals(result: CodeRunResult, approvals: RunApprovals): ApprovedRunResult {
  return { ...result, calls: approvals.annotate(result.calls) }
}

/**
 * The result as the text shows it: a failure that came while calls waited for a person says so
 * (a wall ceiling that expired while waiting, most often). The structured output keeps the
 * runtime's message and carries the fact as `waitingForApproval` instead.
 */
function withApprovalWaitSaid(result: ApprovedRunResult, waitingAtEnd: readonly string[]): ApprovedRunResult {
  if (result.error === undefined || waitingAtEnd.length === 0) return result
  const note = ` This happened while ${waitingAtEnd.join(', ')} waited for a person's approval.`
  return { ...result, error: { ...result.error, message: result.error.message + note } }
}

/**
 * Builds Code Mode over `tools`.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL`, `CODE_MODE_DUPLICATE_TOOL_NAME` or
 *   `CODE_MODE_INVALID_OPTIONS`, naming the field at fault.
 * @example
 * const codeMode = createCodeMode({ tools, runtime })
 * const prompt = codeMode.sdk.text
 * const output = await codeMode.tool.execute({ code: 'return await tools.add({ a: 1, b: 2 })', description: 'add' })
 */
export function createCodeMode(options: CodeModeOptions): CodeMode {
  const { namespace, errorClassName } = resolveSdkEmitterOptions(
    options.namespace === undefined && options.errorClassName === undefined
      ? undefined
      : {
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
          ...(options.errorClassName === undefined ? {} : { errorClassName: options.errorClassName }),
        },
  )
  if (typeof options.runtime?.run !== 'function') {
    refuseConfigField(OPTIONS_PLACE, 'runtime', 'must be a code runtime with a run() method', options.runtime)
  }
  const limits = { maxParallel: options.maxParallel, maxResultChars: options.maxResultChars }
  const maxParallel = readIntegerField(OPTIONS_PLACE, limits, 'maxParallel', {
    default: DEFAULT_MAX_PARALLEL,
    min: 1,
    max: 1_000,
  })
  const maxResultChars = readIntegerField(OPTIONS_PLACE, limits, 'maxResultChars', {
    default: DEFAULT_MAX_RESULT_CHARS,
    min: 200,
    max: MAX_RESULT_CHARS_LIMIT,
  })
  const typeCheck = options.typeCheck ?? DEFAULT_TYPE_CHECK_MODE
  if (!TYPE_CHECK_MODES.includes(typeCheck))
    refuseConfigField(OPTIONS_PLACE, 'typeCheck', "must be 'off', 'calls' or 'strict'", options.typeCheck)
  if (options.approve !== undefined && typeof options.approve !== 'function') {
    refuseConfigField(OPTIONS_PLACE, 'approve', 'must be a function (request, { signal }) => decision', options.approve)
  }
  const approve = options.approve
  const tracingPlace = nestConfigLabel(OPTIONS_PLACE, 'tracing')
  const tracing = {
    recordContent: readBooleanField(
      tracingPlace,
      readConfigObject(tracingPlace, options.tracing, ['recordContent']),
      'recordContent',
      false,
    ),
  }
  const descriptions = parseToolDescriptions(options.tools)
  const sdk = emitParsedSdk(descriptions, { namespace, errorClassName })
  for (const tool of options.tools) {
    if (typeof tool.execute !== 'function') {
      throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${tool.name}.execute must be a function.`, {
        field: `${tool.name}.execute`,
      })
    }
  }
  const tools = options.tools.map((tool, index) => {
    const description = descriptions[index] as ParsedToolDescription
    return {
      tool,
      member: sdk.memberNames.get(tool.name) as string,
      inputSchema: description.inputSchema,
      check: argumentValidatorOf(description),
      isConcurrencySafe: isConcurrencySafe(tool),
      needsApproval: toolNeedsApproval(description),
    }
  })
  const runtime = options.runtime
  const isolation: unknown = runtime.isolation
  const traceFacts = { backend: typeof isolation === 'string' ? isolation : undefined, typeCheck }
  const sessionOptions = readSessionOption(options.session)
  if (sessionOptions !== undefined && !hasSessions(runtime)) {
    refuseConfigField(
      OPTIONS_PLACE,
      'runtime',
      'must have openSession() for a session (a started CodeRuntime has it)',
      runtime,
    )
  }
  const ownSession =
    sessionOptions === undefined ? undefined : new RunCodeSession(runtime as Required<CodeModeRuntime>, sessionOptions)
  let disposed = false

  // Built in the process's checker child on the first check and kept warm there for the Code
  // Mode's life (shared with every Code Mode of the same SDK); TypeScript loads only then.
  let checker: SdkChecker | undefined
  function sdkChecker(): SdkChecker {
    // The runtime validates only the arguments of tools whose schema compiled: only those can certainly fail.
    const schemas = new Map<string, JsonSchema>(
      tools.filter(entry => entry.check !== undefined).map(entry => [entry.member, entry.inputSchema]),
    )
    checker ??= sharedCheckerProcess().checkerFor({ declarations: sdk.declarations, namespace, schemas })
    return checker
  }

  /** The check of a program (of `session`, knowing the names it kept), and what it keeps, typed. */
  async function checkInSession(
    code: string,
    session: RunCodeSession | undefined,
  ): Promise<{ check: ProgramCheck; kept: ReadonlyMap<string, string> }> {
    if (typeCheck === 'off') return { check: UNCHECKED_PROGRAM, kept: new Map() }
    try {
      if (session === undefined) return { check: await sdkChecker().check(code, typeCheck), kept: new Map() }
      return await sdkChecker().checkInSession(code, typeCheck, session.names)
    } catch (error) {
      throw new CodeModeError('CODE_MODE_CHECK_FAILED', error instanceof Error ? error.message : String(error))
    }
  }

  // With a bound session, a check knows what its runs kept, as the check before a run does.
  const check = async (code: string): Promise<ProgramCheck> => (await checkInSession(code, ownSession)).check

  /** The session a run goes to: its own option's, else the Code Mode's. */
  function sessionOf(runOptions: RunCodeOptions): RunCodeSession | undefined {
    const chosen = runOptions.session ?? ownSession
    if (chosen === undefined || chosen instanceof RunCodeSession) return chosen
    throw new CodeModeError(
      'CODE_MODE_INVALID_OPTIONS',
      'Invalid run options: session must come from createCodeModeSession().',
      { field: 'session' },
    )
  }

  async function run(code: string, runOptions: RunCodeOptions = {}): Promise<RunCodeOutput> {
    if (disposed)
      throw new CodeModeError('CODE_MODE_SESSION_CLOSED', 'This Code Mode was disposed; it runs no more programs.')
    const session = sessionOf(runOptions)
    // Started under the caller's active span; a session's run includes its wait in the queue.
    const runTrace = new RunTrace(code, traceFacts, tracing)
    const queuedAt = performance.now()
    try {
      const output =
        session === undefined
          ? await runChecked(code, runOptions, undefined, runTrace)
          : // Check, run and what the run kept, one program at a time: the next check must know its names.
            await session.enqueue(async () => {
              recordQueueWait((performance.now() - queuedAt) / 1_000)
              if (runOptions.reset === true) await session.reset()
              return runChecked(code, runOptions, session, runTrace)
            })
      const { error, usage, calls } = output.structured
      runTrace.end({ errorKind: error?.kind, usage, calls: calls.length })
      return output
    } catch (error) {
      runTrace.threw(error)
      throw error
    }
  }

  async function runChecked(
    code: string,
    runOptions: RunCodeOptions,
    session: RunCodeSession | undefined,
    runTrace: RunTrace,
  ): Promise<RunCodeOutput> {
    // A checker that cannot answer (a check past its time or heap limit, a program that overflows
    // the compiler's stack, TypeScript missing) must not stop a run: the runtime checks arguments
    // again, so it runs unchecked, and its output says why once.
    //
    // Outside a session, with a warm checker, the run starts while the check is in flight (its
    // tool calls wait for the verdict), so a passed program pays the longer of the two, not their
    // sum. A session's run waits for the check: a refused program must not change what the session
    // holds. So does a run whose checker is still starting: the seconds that takes would count
    // against the run's wall budget.
    const overlapped = session === undefined && typeCheck !== 'off' && checker?.isWarm() === true
    const checkTrace = typeCheck === 'off' ? undefined : runTrace.check()
    const checking: Promise<{ check: ProgramCheck; kept: ReadonlyMap<string, string>; uncheckedBecause?: string }> =
      checkInSession(code, session).then(
        checked => {
          checkTrace?.answered(checked.check)
          return checked
        },
        (error: unknown) => {
          checkTrace?.unanswered()
          return {
            check: UNCHECKED_PROGRAM,
            kept: new Map<string, string>(),
            uncheckedBecause: error instanceof Error ? error.message : String(error),
          }
        },
      )
    const gate = overlapped ? new VerdictGate(runOptions.onLog) : undefined
    if (gate === undefined) {
      const { check: programCheck, kept } = await checking
      if (programCheck.refused) return refusedRunOutput(programCheck.errors, maxResultChars)
      if (session !== undefined) {
        let fresh = 0
        for (const name of kept.keys()) if (!session.names.has(name)) fresh++
        if (fresh > 0 && session.names.size + fresh > session.maxKeptNames)
          return keptNamesLimitOutput(fresh, session.names.size, session.maxKeptNames, maxResultChars)
      }
    }
    const executeTrace = runTrace.execute()
    const scheduler = new ToolCallScheduler(maxParallel, runOptions.signal)
    const approvals = new RunApprovals(runOptions.approve ?? approve, runOptions.description)
    const wrap = runOptions.wrapToolCall
    const functions: Record<string, CodeBindingFunction> = {}
    for (const { tool, member, check, isConcurrencySafe: safe, needsApproval } of tools) {
      functions[member] = async (received, call) => {
        const callTrace = executeTrace.toolCall(tool.name, call?.index)
        // The step a failure came from, for the call span's error.type.
        let step: 'refused' | 'invalid_arguments' | 'approval' | 'tool' = 'refused'
        try {
          await gate?.beforeCall()
          step = 'invalid_arguments'
          const checked = check === undefined ? { ok: true as const, value: received } : await check(received)
          if (!checked.ok) throw new Error(`${namespace}.${member}: ${checked.error}.`)
          const args = checked.value
          callTrace.arguments(args)
          // Waits before the dispatch queue: an unanswered call holds up no other call.
          if (needsApproval) {
            step = 'approval'
            const request =
              tool.annotations === undefined
                ? { tool: tool.name, member, args }
                : { tool: tool.name, member, args, annotations: tool.annotations }
            await callTrace.approval(
              () => approvals.require(request, call?.index, `${namespace}.${member}`, scheduler.signal),
              () => (call === undefined ? undefined : approvals.decisionOf(call.index)),
            )
          }
          step = 'tool'
          // The scheduler may start a call from another call's continuation: the call's own span
          // is made active here, whatever context the start comes from.
          const execute = (signal: AbortSignal): Promise<unknown> => tool.execute(args, { signal })
          const value = await scheduler.submit(safe, signal =>
            callTrace.run(() =>
              wrap === undefined ? execute(signal) : wrap({ tool: tool.name, args, signal }, () => execute(signal)),
            ),
          )
          // A tool that resolves nothing has still succeeded; the program sees null.
          const returned = (value === undefined ? null : value) as CodeJsonValue
          callTrace.succeed(returned)
          return returned
        } catch (error) {
          callTrace.fail(
            step !== 'tool' && step !== 'approval'
              ? step
              : scheduler.signal.aborted || error instanceof RunEndedError
                ? 'cancelled'
                : step === 'approval'
                  ? 'declined'
                  : errorTypeOf(error),
          )
          throw error
        }
      }
    }
    const binding: CodeBindingNamespace = {
      global: namespace,
      functions,
      errorClass: { name: errorClassName, memberNameProperty: TOOL_NAME_PROPERTY },
    }
    const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = { program: code, bindings: [binding] }
    if (gate !== undefined)
      request.signal = runOptions.signal === undefined ? gate.signal : AbortSignal.any([runOptions.signal, gate.signal])
    else if (runOptions.signal !== undefined) request.signal = runOptions.signal
    if (gate !== undefined) request.onLog = gate.log
    else if (runOptions.onLog !== undefined) request.onLog = runOptions.onLog
    if (runOptions.recordCallValues !== undefined) request.recordCallValues = runOptions.recordCallValues
    let result: CodeRunResult
    let ended: 'lost' | 'expired' | undefined
    let waitingAtEnd: readonly string[] = []
    try {
      if (session === undefined) {
        const running = executeTrace.activeDuring(() => runtime.run(request))
        // Read below; a rejection while the verdict is awaited is not unhandled.
        running.catch(() => undefined)
        if (gate !== undefined) {
          const { check: verdict } = await checking
          if (verdict.refused) {
            // What it computed or printed so far is dropped with it; it called no tool.
            gate.refuse()
            await running.catch(() => undefined)
            executeTrace.failed('refused')
            return refusedRunOutput(verdict.errors, maxResultChars)
          }
          gate.pass()
        }
        result = await running
        // Every live log reaches the caller before run() resolves.
        gate?.flush()
      } else {
        const outcome = await executeTrace.activeDuring(() => session.run(request))
        result = outcome.result
        ended = outcome.ended
        runTrace.inSession(outcome.sessionId)
        if (ended === undefined) session.keep(outcome.generation, (await checking).kept)
      }
      executeTrace.ended(result)
      waitingAtEnd = approvals.waiting
    } catch (error) {
      executeTrace.failed(errorTypeOf(error))
      throw error
    } finally {
      // However the run ended, no tool call outlives it: in-flight ones are aborted and awaited.
      await scheduler.drain(new Error('The run ended before this tool call finished.'))
    }
    const { check: programCheck, uncheckedBecause } = await checking
    const approved = withApprovals(result, approvals)
    const waitedForApproval = result.error === undefined ? [] : waitingAtEnd
    const structured = {
      ...structureRunResult(approved),
      ...(waitedForApproval.length === 0 ? {} : { waitingForApproval: waitedForApproval }),
      ...(ended === undefined ? {} : { sessionEnded: ended }),
      ...(uncheckedBecause === undefined ? {} : { uncheckedBecause }),
    }
    const uncheckedNote = uncheckedBecause === undefined ? '' : `\n${uncheckedBecause}`
    if (result.error === undefined)
      return {
        text: renderRunResult(approved, maxResultChars - uncheckedNote.length) + uncheckedNote,
        structured,
        isError: false,
      }
    const note = uncheckedNote + (ended === undefined ? '' : `\n${sessionEndedNote(ended)}`)
    const hints = typeHintsBlock(programCheck.hints, maxResultChars - note.length)
    return {
      text:
        renderRunResult(
          withApprovalWaitSaid(approved, waitedForApproval),
          maxResultChars - hints.length - note.length,
        ) +
        hints +
        note,
      structured: programCheck.hints.length === 0 ? structured : { ...structured, diagnostics: programCheck.hints },
      isError: true,
    }
  }

  const isBound = ownSession !== undefined
  const tool: RunCodeTool = {
    ...listRunCode(describeRunCode(sdk.text, isBound), { session: isBound }),
    async execute(input, executeOptions = {}) {
      const read = safeParseRunCodeInput(input)
      if (!read.ok) return { text: read.error, structured: { logs: [], calls: [] }, isError: true }
      const withDescription = { ...executeOptions, description: read.value.description }
      return run(read.value.code, read.value.reset ? { ...withDescription, reset: true } : withDescription)
    },
  }
  return {
    sdk,
    tool,
    run,
    check,
    session: ownSession,
    resetSession: async () => {
      await ownSession?.reset()
    },
    async dispose() {
      disposed = true
      await ownSession?.dispose()
    },
  }
}
