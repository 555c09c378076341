/**
 * Mastra tools, as an Agent takes them (a record whose keys are the names the model sees), read
 * into Code Mode tools: each runs through Mastra's own execute (its input, request-context and
 * output checks) with the run's Mastra context. What a program cannot run is refused by name;
 * what needs a person (approval, suspend and resume) is left out of the SDK.
 */
import type { CodeModeTool, CodeModeToolAnnotations } from '@code-runtime/code-mode'
import { CodeModeError } from '@code-runtime/code-mode'
import { isPlainObject, joinConfigPath, refuseConfigField, type ConfigPlace } from '@code-runtime/core/internal'
import type { ToolsInput } from '@mastra/core/agent'
import {
  isProviderDefinedTool,
  isValidationError,
  isVercelTool,
  MASTRA_TOOL_MARKER,
  type Tool,
} from '@mastra/core/tools'
import { mastraInputSchema, mastraOutputSchema } from './mastra-tool-schema.js'
import { toolCallContext } from './tool-context.js'

const INVALID_TOOL: ConfigPlace = {
  refuse: ({ field, rule, value, text }) =>
    new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${text}.`, {
      ...(field === undefined ? {} : { field }),
      value,
      rule,
    }),
}

const BESIDE = 'pass it to the Agent beside run_code'

function refuse(field: string, message: string): never {
  throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${field} ${message}.`, { field })
}

/** A Mastra tool made with `createTool` (or `new Tool`), recognised across duplicate installs by Mastra's own marker. */
function isMastraTool(value: object): value is Tool {
  return MASTRA_TOOL_MARKER in value
}

/** True for a tool a person must approve or resume: Code Mode has no way to ask one yet. */
function needsPerson(tool: Tool): boolean {
  return (
    tool.requireApproval === true ||
    typeof tool.requireApproval === 'function' ||
    typeof tool.needsApprovalFn === 'function' ||
    tool.suspendSchema !== undefined ||
    tool.resumeSchema !== undefined
  )
}

/** Reads one entry of the record, refusing what a program cannot call. */
function readMastraTool(field: string, value: unknown): Tool {
  if (typeof value !== 'object' || value === null)
    refuseConfigField(
      INVALID_TOOL,
      field,
      'must be a Mastra tool made with createTool() from @mastra/core/tools',
      value,
    )
  if (isProviderDefinedTool(value)) {
    refuse(field, `is a provider-defined tool (${value.id}), which the model's provider runs, not a program: ${BESIDE}`)
  }
  if (!isMastraTool(value)) {
    if (isVercelTool(value)) {
      refuse(
        field,
        `is an AI SDK tool; Code Mode runs Mastra tools: make it with createTool() from @mastra/core/tools (its description, schema and execute), or ${BESIDE}`,
      )
    }
    refuse(
      field,
      `is not a Mastra tool: make it with createTool() from @mastra/core/tools (provider placeholders such as webSearchTool run at the model's provider: ${BESIDE})`,
    )
  }
  if (typeof value.execute !== 'function') {
    refuse(
      field,
      `has no execute function, so a program cannot run it (a client-side tool runs in the app): give it an execute, or ${BESIDE}`,
    )
  }
  return value
}

function toCodeModeTool(name: string, field: string, tool: Tool, execute: NonNullable<Tool['execute']>): CodeModeTool {
  const annotations: CodeModeToolAnnotations | undefined = tool.mcp?.annotations
  return {
    name,
    description: tool.description,
    inputSchema: mastraInputSchema(field, tool.id, tool.inputSchema),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: mastraOutputSchema(field, tool.outputSchema) }),
    ...(annotations === undefined ? {} : { annotations }),
    async execute(args, { signal }) {
      const output = await execute(args, toolCallContext(name, signal))
      // Mastra's execute reports a failed check (of the output, of the request context) as a
      // value; the program must see it as the call's failure, not as what the tool returned.
      if (isValidationError(output)) throw new Error(output.message)
      return output
    },
  }
}

/**
 * Reads the tools of an Agent's `tools` record into those programs may call, leaving out those
 * that need a person. The key is the tool's name in the SDK, as it is the name the model sees when
 * Mastra offers the tool directly.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the tool (`tools.search`) and what to do,
 *   for a value that is not a record, a provider or AI SDK tool, a tool without `execute`, or a
 *   schema without a JSON Schema form.
 */
export function readMastraTools(tools: ToolsInput): CodeModeTool[] {
  if (!isPlainObject(tools)) {
    refuseConfigField(
      INVALID_TOOL,
      'tools',
      'must be a record of Mastra tools, as Agent takes them ({ search: searchTool })',
      tools,
    )
  }
  const read: CodeModeTool[] = []
  for (const [name, value] of Object.entries(tools)) {
    const field = joinConfigPath('tools', name)
    const tool = readMastraTool(field, value)
    // Left for the Agent to offer beside run_code, where Mastra's approval and resume flow applies.
    if (needsPerson(tool)) continue
    read.push(toCodeModeTool(name, field, tool, tool.execute as NonNullable<Tool['execute']>))
  }
  return read
}
