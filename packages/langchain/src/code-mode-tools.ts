/**
 * LangChain tools as Code Mode tools: each keeps its name, description and input schema (read by
 * LangChain's own helpers), and a call runs the tool's own `invoke` with the run's config (so
 * callbacks and tracing see it nested under run_code) and the call's abort signal. What LangChain
 * cannot run here (tool definitions without a function, provider tools) is refused by name.
 */
import type { AsyncLocalStorage } from 'node:async_hooks'
import { CodeModeError, type CodeModeTool } from '@code-runtime/code-mode'
import {
  isRunnableToolLike,
  isStructuredTool,
  isStructuredToolParams,
  type ClientTool,
  type ToolRunnableConfig,
} from '@langchain/core/tools'
import { readInputSchema } from './input-schema.js'
import { programValueOf } from './tool-output.js'

function refuse(field: string, problem: string): never {
  throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${field} ${problem}`, { field })
}

/** `("get_weather")` when the value carries a name, for refusals that must say which tool. */
function nameOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return ''
  const record = value as { name?: unknown; function?: { name?: unknown } }
  const name =
    typeof record.name === 'string'
      ? record.name
      : typeof record.function?.name === 'string'
        ? record.function.name
        : undefined
  return name === undefined ? '' : `(${JSON.stringify(name)})`
}

/** Refuses what is not a LangChain tool Code Mode can run, saying what it is and what to do instead. */
function checkRunnable(field: string, value: unknown): asserts value is ClientTool {
  const named = nameOf(value)
  const refuseTool = (problem: string): never => refuse(field, named === '' ? problem : `${named} ${problem}`)
  const isTool =
    isRunnableToolLike(value) ||
    (typeof value === 'object' && value !== null && isStructuredTool(value as ClientTool & object))
  if (isTool && typeof (value as { invoke?: unknown }).invoke === 'function') return
  if (isStructuredToolParams(value)) {
    refuseTool(
      `is a tool definition without a function: the model can call it but only your app can run it. Give it to the model beside run_code, or make it a tool with tool(func, { name, description, schema }).`,
    )
  }
  if (typeof value === 'object' && value !== null && 'type' in value) {
    refuseTool(
      `is a provider tool or a tool definition (it has \`type\`, no function): the provider or your app runs it, not a program. Give it to the model beside run_code.`,
    )
  }
  refuseTool(
    `is not a LangChain tool: pass tools made with tool(func, { name, description, schema }), DynamicStructuredTool, a StructuredTool subclass or runnable.asTool().`,
  )
}

/**
 * The config a program's tool calls run with: the one run_code was invoked with, minus what
 * belongs to run_code's own tool call (its id would turn the inner tool's output into a
 * ToolMessage addressed to run_code's call), plus the call's own abort signal.
 */
function innerConfig(config: ToolRunnableConfig | undefined, signal: AbortSignal): ToolRunnableConfig {
  if (config === undefined) return { signal }
  const {
    toolCall: _toolCall,
    toolCallId: _toolCallId,
    runId: _runId,
    runName: _runName,
    ...rest
  } = config as ToolRunnableConfig & { toolCallId?: unknown }
  return { ...rest, signal }
}

/**
 * Converts LangChain tools. `runConfig` holds the RunnableConfig of the run_code invocation a
 * call belongs to (set around each call by the run's `wrapToolCall`).
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the tool (`tools[2]`, `tools[2].schema`).
 */
export function toCodeModeTools(
  tools: readonly ClientTool[],
  runConfig: AsyncLocalStorage<ToolRunnableConfig>,
): CodeModeTool[] {
  if (!Array.isArray(tools)) refuse('tools', 'must be an array of LangChain tools.')
  return tools.map((value: unknown, index): CodeModeTool => {
    checkRunnable(`tools[${index}]`, value)
    const tool = value
    if (typeof tool.name !== 'string' || tool.name === '') refuse(`tools[${index}].name`, 'must be a non-empty string.')
    const inputSchema = readInputSchema(`tools[${index}].schema`, tool.name, tool.schema)
    const definition: { -readonly [K in keyof CodeModeTool]: CodeModeTool[K] } = {
      name: tool.name,
      inputSchema,
      async execute(args, { signal }) {
        // The config of the run_code invocation this call belongs to: its run's wrapToolCall entered it.
        const config = innerConfig(runConfig.getStore(), signal)
        // As a tool call without an id: LangChain then takes `args` as they are (never mistaking
        // an argument object for a tool call) and resolves the tool's content, not a ToolMessage.
        const output: unknown = await tool.invoke(
          { type: 'tool_call', name: tool.name, args: args as Record<string, unknown> },
          config,
        )
        return programValueOf(tool.name, output)
      },
    }
    if (typeof tool.description === 'string' && tool.description !== '') definition.description = tool.description
    return definition
  })
}
