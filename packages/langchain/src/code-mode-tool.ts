/**
 * `codeModeTool`: LangChain tools in, one LangChain tool (`run_code`) out. Its description is the
 * Code Mode SDK (rules and typed declarations), its input `{ code, description }`, and it answers
 * with `content_and_artifact`: the text for the model as the ToolMessage's content, the
 * structured outcome (logs, result, error, calls, usage) as its artifact, for the app.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import {
  createCodeMode,
  type CodeMode,
  type CodeModeOptions,
  type RunCodeInput,
  type RunCodeOutput,
} from '@code-runtime/code-mode'
import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager'
import { patchConfig, type RunnableConfig } from '@langchain/core/runnables'
import { DynamicStructuredTool, type ClientTool, type ToolRunnableConfig } from '@langchain/core/tools'
import type { JSONSchema } from '@langchain/core/utils/json_schema'
import { toCodeModeTools } from './code-mode-tools.js'

/** The artifact of run_code's ToolMessage: the run's structured outcome. */
export type RunCodeArtifact = RunCodeOutput['structured']

/** What run_code's function returns: `[content, artifact]`, as `content_and_artifact` asks. */
export type RunCodeToolOutput = [string, RunCodeArtifact]

/** The run_code tool: a LangChain `DynamicStructuredTool`, plus the Code Mode behind it. */
export type CodeModeLangChainTool = DynamicStructuredTool<JSONSchema, RunCodeInput, RunCodeInput, RunCodeToolOutput> & {
  /** The Code Mode it runs: `sdk` for prompts, `run`, and `resetSession`/`dispose` with a session. */
  readonly codeMode: CodeMode
}

/** Options of {@link codeModeTool}. */
export interface CodeModeToolOptions extends Omit<CodeModeOptions, 'tools'> {
  /**
   * The LangChain tools programs may call (LangChain's `ClientTool`: tools it runs itself):
   * `tool()`, `DynamicStructuredTool`, `DynamicTool`, `StructuredTool` subclasses, `runnable.asTool()`.
   */
  readonly tools: readonly ClientTool[]
  /** The tool's name; default `run_code`. */
  readonly name?: string
  /** Receives each log line of a program as it is printed. */
  readonly onLog?: (text: string) => void
}

/**
 * Builds Code Mode over LangChain tools and returns its run_code tool, for `createAgent({ tools:
 * [runCode] })` or `model.bindTools([runCode])`. The config it is invoked with reaches every inner
 * tool call (callbacks nest under run_code), and its `signal` aborts the run.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming a tool Code Mode cannot run or read,
 *   `CODE_MODE_DUPLICATE_TOOL_NAME`, or `CODE_MODE_INVALID_OPTIONS`.
 * @example
 * const runCode = codeModeTool({ tools: [getWeather, convertUnits], runtime })
 * const agent = createAgent({ model, tools: [runCode] })
 */
export function codeModeTool(options: CodeModeToolOptions): CodeModeLangChainTool {
  const { tools, name = 'run_code', onLog, ...codeModeOptions } = options
  // Code Mode calls a tool with its arguments and signal only; the config of the run_code
  // invocation reaches it through this store, entered around each call of that invocation's run,
  // so concurrent invocations (parallel agent branches) keep their own callbacks and context.
  const runConfig = new AsyncLocalStorage<ToolRunnableConfig>()
  const codeMode = createCodeMode({ ...codeModeOptions, tools: toCodeModeTools(tools, runConfig) })

  async function func(
    input: RunCodeInput,
    runManager?: CallbackManagerForToolRun,
    config?: RunnableConfig,
  ): Promise<RunCodeToolOutput> {
    // The inner tools' runs nest under this one, as tool() does for the tools it wraps.
    const childConfig: ToolRunnableConfig =
      runManager === undefined ? (config ?? {}) : patchConfig(config, { callbacks: runManager.getChild() })
    const output = await codeMode.tool.execute(input, {
      ...(config?.signal === undefined ? {} : { signal: config.signal }),
      ...(onLog === undefined ? {} : { onLog }),
      wrapToolCall: (_call, execute) => runConfig.run(childConfig, execute),
    })
    return [output.text, output.structured]
  }

  const runCode = new DynamicStructuredTool<JSONSchema, RunCodeInput, RunCodeInput, RunCodeToolOutput>({
    name,
    description: codeMode.tool.description,
    // A copy: providers' converters may rewrite a tool's schema in place, and Code Mode's is frozen.
    schema: structuredClone(codeMode.tool.inputSchema) as JSONSchema,
    responseFormat: 'content_and_artifact',
    func,
  })
  return Object.assign(runCode, { codeMode })
}
