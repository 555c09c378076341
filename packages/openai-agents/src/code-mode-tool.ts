/**
 * Code Mode for the OpenAI Agents SDK: the Agent's function tools in, one `run_code` function
 * tool out, whose programs call those tools through their own `invoke` in a code-runtime sandbox.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import {
  getCurrentTraceContext,
  RunContext,
  tool,
  type FunctionTool,
  type Tool,
  type UnknownContext,
} from '@openai/agents'
import {
  createCodeMode,
  CodeModeError,
  type CodeModeOptions,
  type CodeModeRuntime,
  type CodeModeTool,
  type RunCodeOutput,
} from '@code-runtime/code-mode'
import { readAgentsTools } from './read-agents-tools.js'
import { callFunctionTool, type FunctionToolCallContext } from './call-function-tool.js'
import { PendingRunCodeOutputs } from './run-code-output.js'

/** JSON Schema parameters of a strict function tool, as the SDK types them. */
type StrictParameters = Extract<FunctionTool['parameters'], { additionalProperties: false }>

/** One `run_code` call, as {@link CodeModeToolOptions.onResult} sees it. */
export interface RunCodeCall<TContext = UnknownContext> {
  /** The run context the Runner gave `run_code` (and, through it, each tool the program called). */
  readonly runContext: RunContext<TContext>
  /** The model's id of the `run_code` call; absent when `invoke` was called without one. */
  readonly callId?: string
}

/** Options of {@link codeModeTool}: the tools, the runtime, and the createCodeMode options. */
export interface CodeModeToolOptions<TContext = UnknownContext> extends Pick<
  CodeModeOptions,
  'namespace' | 'errorClassName' | 'maxParallel' | 'maxResultChars' | 'typeCheck' | 'session'
> {
  /** The Agent's tools the programs may call: function tools (`tool()`); see the README for what is refused. */
  readonly tools: readonly Tool<TContext>[]
  /** Where programs run, e.g. a started `WorkerThreadCodeRuntime`. */
  readonly runtime: CodeModeRuntime
  /** The function tool's name; default `run_code`. */
  readonly name?: string
  /** Each log entry a program prints, as it prints it. */
  readonly onLog?: (text: string) => void
  /**
   * Every run's outcome once it ends, also runs whose run item the Runner never records (a run
   * aborted through its signal). The run item of a finished call carries it too (`readRunCodeOutput`).
   */
  readonly onResult?: (output: RunCodeOutput, call: RunCodeCall<TContext>) => void
}

const DEFAULT_NAME = 'run_code'

/**
 * Builds one `run_code` function tool over the Agent's function tools: its description is the
 * SDK text (rules and TypeScript declarations), its parameters `{ code, description }` (and
 * `reset` with a session), and each run's text is the tool output the model reads.
 * Tools whose `needsApproval` may ask for approval are left out: give them to the Agent beside it.
 * @throws {CodeModeError} (as a rejection) `CODE_MODE_INVALID_TOOL` naming a tool Code Mode
 *   cannot run (hosted, computer, shell, apply_patch, guardrails, a timeout returned as a result)
 *   and what to do; `CODE_MODE_DUPLICATE_TOOL_NAME`; `CODE_MODE_INVALID_OPTIONS`.
 * @example
 * const runCode = await codeModeTool({ tools: [getWeather, convert], runtime })
 * const agent = new Agent({ name: 'Assistant', instructions, model, tools: [runCode] })
 */
export async function codeModeTool<TContext = UnknownContext>(
  options: CodeModeToolOptions<TContext>,
): Promise<FunctionTool<TContext, StrictParameters, string>> {
  const { tools, runtime, name = DEFAULT_NAME, onLog, onResult, ...passed } = options
  const { runnable } = await readAgentsTools(tools)
  // Each call runs in the run_code call that made it; the dispatch reaches a tool from the
  // sandbox's messages, outside that call's async context, so the context travels explicitly.
  const calls = new AsyncLocalStorage<FunctionToolCallContext<TContext>>()
  const codeModeTools: CodeModeTool[] = runnable.map(agentsTool => ({
    name: agentsTool.name,
    description: agentsTool.description,
    // The SDK keeps no Zod schema on a tool, only the JSON Schema it sends the model; the
    // tool's own parser still runs inside invoke, and a refusal there fails the call.
    inputSchema: agentsTool.parameters,
    ...(agentsTool.outputSchema === undefined ? {} : { outputSchema: agentsTool.outputSchema }),
    async execute(args, { signal }) {
      const context = calls.getStore()
      if (context === undefined) throw new Error('this tool can only be called from a program run_code runs')
      return callFunctionTool(agentsTool, args, context, signal)
    },
  }))
  const codeMode = createCodeMode({ tools: codeModeTools, runtime, ...definedOptions(passed) })
  const pending = new PendingRunCodeOutputs()
  return tool<StrictParameters, TContext, string>({
    name,
    description: codeMode.tool.description,
    // Strict fits: code and description are required and nothing else is allowed; a session's
    // optional reset is made required-or-null by the SDK, which drops the null before execute.
    parameters: codeMode.tool.inputSchema as StrictParameters,
    strict: true,
    async execute(input, runContext, details) {
      const call: FunctionToolCallContext<TContext> = {
        runContext: runContext ?? new RunContext<TContext>(),
        trace: getCurrentTraceContext(),
      }
      const output = await codeMode.tool.execute(input, {
        ...(details?.signal === undefined ? {} : { signal: details.signal }),
        ...(onLog === undefined ? {} : { onLog }),
        wrapToolCall: (_start, execute) => calls.run(call, execute),
      })
      const callId = details?.toolCall?.callId
      if (callId !== undefined) pending.keep(call.runContext, callId, output)
      onResult?.(
        output,
        callId === undefined ? { runContext: call.runContext } : { runContext: call.runContext, callId },
      )
      return output.text
    },
    customDataExtractor: ({ runContext, toolCall }) => pending.take(runContext, toolCall.callId),
  })
}

/** The createCodeMode options that were given, without `undefined` ones (exact optional types). */
function definedOptions(
  passed: Omit<CodeModeToolOptions<never>, 'tools' | 'runtime' | 'name' | 'onLog' | 'onResult'>,
): Omit<CodeModeOptions, 'tools' | 'runtime'> {
  const known = ['namespace', 'errorClassName', 'maxParallel', 'maxResultChars', 'typeCheck', 'session'] as const
  for (const key of Object.keys(passed)) {
    if (!(known as readonly string[]).includes(key)) {
      throw new CodeModeError(
        'CODE_MODE_INVALID_OPTIONS',
        `Invalid Code Mode options: ${key} is not an option of codeModeTool (options: tools, runtime, name, onLog, onResult, ${known.join(', ')}).`,
        { field: key },
      )
    }
  }
  return Object.fromEntries(Object.entries(passed).filter(([, value]) => value !== undefined))
}
