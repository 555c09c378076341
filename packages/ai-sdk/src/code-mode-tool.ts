/**
 * Code Mode for the Vercel AI SDK: a `ToolSet` in, one `run_code` tool of the SDK's own kind out.
 * The model reads the tools as a typed TypeScript SDK in run_code's description and calls them
 * from one program; every call runs the SDK tool's own `execute`, with its arguments checked by
 * the tool's own validator first.
 */
import { jsonSchema, tool, type generateText, type JSONSchema7, type Tool, type ToolSet } from 'ai'
import {
  CodeModeError,
  createCodeMode,
  type ApproveToolCall,
  type CodeMode,
  type CodeModeOptions,
  type CodeModeTool,
  type CodeModeToolAnnotations,
  type RunCodeInput,
} from '@code-runtime/code-mode'
import { streamRun } from './live-logs.js'
import { needsApproval, readToolSet, type SdkToolEntry } from './read-tool-set.js'
import { modelOutputOf, type CodeModeToolOutput } from './run-code-output.js'
import { RunCalls } from './tool-call-options.js'

/** `toolsContext` as `generateText` types it for `TOOLS`: `never` when no tool has a typed context. */
type ToolsContextOf<TOOLS extends ToolSet> = NonNullable<Parameters<typeof generateText<TOOLS>>[0]['toolsContext']>

/**
 * The context run_code takes (its entry of `toolsContext`): each tool's context under the tool's
 * name, exactly as `toolsContext` would hold it if the tools were given to the SDK directly. It is
 * required when a tool's `contextSchema` requires one; when no tool has a typed context it is the
 * SDK's untyped context, which `toolsContext` does not ask for.
 */
export type RunCodeToolsContext<TOOLS extends ToolSet> = [ToolsContextOf<TOOLS>] extends [never]
  ? Record<string, unknown>
  : ToolsContextOf<TOOLS>

/** Options of {@link codeModeTool}. */
export interface CodeModeToolOptions<TOOLS extends ToolSet = ToolSet> extends Pick<
  CodeModeOptions,
  'runtime' | 'namespace' | 'errorClassName' | 'maxParallel' | 'maxResultChars' | 'typeCheck' | 'session'
> {
  /** The tools programs may call, as you would give them to `generateText`; the key is the tool's name. */
  readonly tools: TOOLS
  /**
   * Hints per tool name, since AI SDK tools carry none: `readOnlyHint: true` marks a tool `@readOnly`
   * in the SDK and lets its calls overlap (up to `maxParallel`); other calls run one at a time.
   */
  readonly toolAnnotations?: { readonly [NAME in keyof TOOLS & string]?: CodeModeToolAnnotations }
  /** Live logs beside the preliminary results: each log entry as the program prints it, with the run_code call it belongs to. */
  readonly onLog?: (text: string, call: { readonly toolCallId: string }) => void
  /**
   * Asks a person about a call of a tool that has `needsApproval`, while the program waits (see
   * Code Mode's approvals). With it, such tools are in the SDK (marked `@needsApproval`), and a
   * `needsApproval` function is asked first, per call, whether this call needs it. Without it they
   * are left out (see {@link toolsNeedingApproval}).
   */
  readonly approve?: ApproveToolCall
}

/** The run_code tool {@link codeModeTool} returns. */
export type CodeModeAiTool<TOOLS extends ToolSet = ToolSet> = Tool<
  RunCodeInput,
  CodeModeToolOutput,
  RunCodeToolsContext<TOOLS>
>

const OPTION_NAMES = new Set([
  'tools',
  'runtime',
  'namespace',
  'errorClassName',
  'maxParallel',
  'maxResultChars',
  'typeCheck',
  'session',
  'toolAnnotations',
  'onLog',
  'approve',
])

const codeModes = new WeakMap<object, CodeMode>()

function refuseUnknownOptions(options: object): void {
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.has(key)) {
      throw new CodeModeError(
        'CODE_MODE_INVALID_OPTIONS',
        `Invalid codeModeTool options: unknown option ${JSON.stringify(key)}; the options are ${[...OPTION_NAMES].join(', ')}.`,
        { field: key },
      )
    }
  }
}

function codeModeToolOf(entry: SdkToolEntry): CodeModeTool {
  // The SDK tool's own flag decides (a tool with one is here only when an approver is given): a
  // `destructiveHint` given in toolAnnotations marks the tool, it does not make calls wait.
  // Every call runs through run_code's wrapToolCall, which knows what only the run_code call
  // knows (its id, the messages, the context); this execute is never reached.
  return {
    ...entry.description,
    needsApproval: entry.needsApproval !== undefined,
    execute: async () => {
      throw new Error(`${entry.name} runs only inside a run_code call.`)
    },
  }
}

/**
 * Builds the run_code tool over an AI SDK `ToolSet`: its description is the SDK text (rules and
 * declarations), its input `{ code, description }` (plus `reset` with a session). Its execute
 * yields progress outputs with the logs so far (the SDK's preliminary results, seen by
 * `streamText`), then the run's result ({@link CodeModeToolResult}); the model reads its `text`.
 * Tools that need approval are left out: pass them beside run_code (see {@link toolsNeedingApproval}).
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the tool and what to do, for a provider
 *   tool, a tool without `execute`, a schema the SDK cannot read or write as JSON Schema;
 *   `CODE_MODE_INVALID_OPTIONS` for an unknown or invalid option.
 * @example
 * const result = await generateText({
 *   model,
 *   prompt: 'How warm is Rome in Fahrenheit?',
 *   tools: { run_code: codeModeTool({ tools: { getWeather, convert }, runtime }) },
 *   stopWhen: stepCountIs(3),
 * })
 */
export function codeModeTool<TOOLS extends ToolSet>(options: CodeModeToolOptions<TOOLS>): CodeModeAiTool<TOOLS> {
  refuseUnknownOptions(options)
  const { tools, toolAnnotations, onLog, approve, ...codeModeOptions } = options
  if (approve !== undefined && typeof approve !== 'function') {
    throw new CodeModeError(
      'CODE_MODE_INVALID_OPTIONS',
      'Invalid codeModeTool options: approve must be a function (request, { signal }) => decision.',
      { field: 'approve' },
    )
  }
  const entries = readToolSet(
    tools,
    toolAnnotations as Readonly<Record<string, CodeModeToolAnnotations | undefined>> | undefined,
    approve !== undefined,
  )
  const byName = new Map(entries.map(entry => [entry.name, entry]))
  const codeMode = createCodeMode({ ...codeModeOptions, tools: entries.map(codeModeToolOf) })

  const runCode = tool<RunCodeInput, CodeModeToolOutput, RunCodeToolsContext<TOOLS>>({
    description: codeMode.tool.description,
    inputSchema: jsonSchema<RunCodeInput>(codeMode.tool.inputSchema as JSONSchema7),
    execute: (input, { toolCallId, messages, abortSignal, context, experimental_sandbox: sandbox }) => {
      const calls = new RunCalls({ toolCallId, messages, context, sandbox })
      return streamRun(
        (log, signal) =>
          codeMode.tool.execute(input, {
            signal,
            ...(approve === undefined ? {} : { approve: askUnlessNotNeeded(approve, byName, calls) }),
            onLog:
              onLog === undefined
                ? log
                : text => {
                    log(text)
                    onLog(text, { toolCallId })
                  },
            wrapToolCall: async call => {
              const entry = byName.get(call.tool)
              if (entry === undefined) throw new Error(`${call.tool} could not be called.`)
              return calls.call(entry, call.args, call.signal)
            },
          }),
        abortSignal,
      )
    },
    toModelOutput: ({ output }) => modelOutputOf(output),
  })
  codeModes.set(runCode, codeMode)
  return runCode
}

/**
 * The run's approver: a tool whose `needsApproval` is a function is asked first whether this call
 * needs approval (with the options the SDK would give it); only then is the person asked.
 */
function askUnlessNotNeeded(
  approve: ApproveToolCall,
  byName: ReadonlyMap<string, SdkToolEntry>,
  calls: RunCalls,
): ApproveToolCall {
  return async (request, context) => {
    const decides = byName.get(request.tool)?.needsApproval
    if (typeof decides === 'function' && !(await decides(request.args, calls.approvalOptions(request.tool))))
      return { action: 'allow' }
    return approve(request, context)
  }
}

/**
 * Ends the session of a run_code tool made with the `session` option (its variables are gone, later
 * runs fail with `CODE_MODE_SESSION_CLOSED`); without a session, it only stops later runs. Idempotent.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` for a tool {@link codeModeTool} did not make.
 */
export async function disposeCodeModeTool(runCode: Tool): Promise<void> {
  const codeMode = codeModes.get(runCode)
  if (codeMode === undefined)
    throw new CodeModeError('CODE_MODE_INVALID_OPTIONS', 'disposeCodeModeTool() takes a tool made by codeModeTool().', {
      field: 'tool',
    })
  await codeMode.dispose()
}

/**
 * The tools of `tools` that need a person's approval (`needsApproval`), which {@link codeModeTool}
 * leaves out of the SDK: give them to the model beside run_code, so the SDK's approval flow
 * applies to them: `tools: { run_code: codeModeTool({ tools, runtime }), ...toolsNeedingApproval(tools) }`.
 */
export function toolsNeedingApproval<TOOLS extends ToolSet>(tools: TOOLS): Partial<TOOLS> {
  return Object.fromEntries(
    Object.entries(tools).filter(
      ([, candidate]) => typeof candidate === 'object' && candidate !== null && needsApproval(candidate),
    ),
  ) as Partial<TOOLS>
}
