/**
 * Code Mode for Mastra in one call: an Agent's tools in, one Mastra tool (`run_code`) out, whose
 * description is the SDK the model writes programs against and whose execution runs them.
 */
import {
  CodeModeError,
  createCodeMode,
  type CodeModeOptions,
  type CodeModeRuntime,
  type RunCodeInput,
  type RunCodeOptions,
  type RunCodeOutput,
} from '@code-runtime/code-mode'
import { refuseConfigField, refuseUnknownConfigFields, type ConfigPlace } from '@code-runtime/core/internal'
import type { ToolsInput } from '@mastra/core/agent'
import { toStandardSchema, type PublicSchema } from '@mastra/core/schema'
import { createTool, type Tool } from '@mastra/core/tools'
import { readMastraTools } from './mastra-tools.js'
import { withRunContext, type RunCodeToolContext } from './tool-context.js'

/** Options of {@link codeModeTool}. */
export interface CodeModeToolOptions extends Omit<CodeModeOptions, 'tools'> {
  /** The tools programs may call: a record as `new Agent({ tools })` takes it; the keys are the names in the SDK. */
  readonly tools: ToolsInput
  /** Where programs run, e.g. a started `WorkerThreadCodeRuntime`. */
  readonly runtime: CodeModeRuntime
  /** The Mastra tool id of `run_code`; default `run_code`. The model sees the Agent's record key. */
  readonly id?: string
  /** Live logs: each line a program prints, as it prints it. */
  readonly onLog?: (text: string) => void
}

/** The `run_code` tool: a Mastra tool whose input is `{ code, description }` and whose output is Code Mode's. */
export type RunCodeMastraTool = Tool<RunCodeInput, RunCodeOutput>

/** The default Mastra id of the tool {@link codeModeTool} returns. */
export const RUN_CODE_TOOL_ID = 'run_code'

const KNOWN_OPTIONS = [
  'tools',
  'runtime',
  'id',
  'namespace',
  'errorClassName',
  'maxParallel',
  'maxResultChars',
  'typeCheck',
  'session',
  'onLog',
] as const

const INVALID_OPTIONS: ConfigPlace = {
  refuse: ({ field, rule, value, text }) =>
    new CodeModeError('CODE_MODE_INVALID_OPTIONS', `Invalid codeModeTool options: ${text}.`, {
      ...(field === undefined ? {} : { field }),
      value,
      rule,
    }),
}

function readOptions(options: CodeModeToolOptions): { id: string; onLog?: (text: string) => void } {
  if (typeof options !== 'object' || options === null)
    refuseConfigField(INVALID_OPTIONS, 'options', 'must be an object { tools, runtime, ... }', options)
  refuseUnknownConfigFields(INVALID_OPTIONS, options as unknown as Readonly<Record<string, unknown>>, KNOWN_OPTIONS)
  const { id = RUN_CODE_TOOL_ID, onLog } = options
  if (typeof id !== 'string' || id === '') refuseConfigField(INVALID_OPTIONS, 'id', 'must be a non-empty string', id)
  if (onLog !== undefined && typeof onLog !== 'function')
    refuseConfigField(INVALID_OPTIONS, 'onLog', 'must be a function', onLog)
  return onLog === undefined ? { id } : { id, onLog }
}

/** What the model reads of a run: its text, marked as a failure when the run failed. */
function modelOutputOf(output: RunCodeOutput): { type: 'text' | 'error-text'; value: string } {
  return { type: output.isError ? 'error-text' : 'text', value: output.text }
}

/**
 * Turns Mastra tools into one `run_code` Mastra tool: its description is the SDK (rules and
 * TypeScript declarations of the tools), its input `{ code, description }` (plus `reset` with a
 * session), and each run's result is Code Mode's `RunCodeOutput`, of which the model reads `text`.
 * Tools that need approval or suspend are left out: give them to the Agent beside `run_code`.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming a tool a program cannot run (a provider
 *   or AI SDK tool, no `execute`, an unreadable schema); `CODE_MODE_INVALID_OPTIONS` for a bad option.
 * @example
 * const agent = new Agent({ id: 'shop', name: 'shop', instructions, model, tools: { run_code: codeModeTool({ tools: { getOrder, refund }, runtime }) } })
 */
export function codeModeTool(options: CodeModeToolOptions): RunCodeMastraTool {
  const { id, onLog } = readOptions(options)
  const { tools: _tools, id: _id, onLog: _onLog, ...codeModeOptions } = options
  const tools = readMastraTools(options.tools)
  const codeMode = createCodeMode({ ...codeModeOptions, tools })
  // Mastra wraps a JSON Schema in its own checker; the schema is code-mode's, so the input the
  // model is told about and the one run_code reads are one.
  const inputSchema = toStandardSchema(codeMode.tool.inputSchema as PublicSchema<RunCodeInput>)
  return createTool({
    id,
    description: codeMode.tool.description,
    inputSchema,
    // Typed `unknown` by Mastra for a tool without an outputSchema. run_code has none on purpose:
    // Mastra would check every result against it, and the model never reads it.
    toModelOutput: output => modelOutputOf(output as RunCodeOutput),
    async execute(input, context): Promise<RunCodeOutput> {
      const runContext: RunCodeToolContext = context
      const runOptions: RunCodeOptions = {
        ...(context.abortSignal === undefined ? {} : { signal: context.abortSignal }),
        ...(onLog === undefined ? {} : { onLog }),
        wrapToolCall: (_call, execute) => withRunContext(runContext, execute),
      }
      return codeMode.tool.execute(input, runOptions)
    },
  }) as RunCodeMastraTool
}
