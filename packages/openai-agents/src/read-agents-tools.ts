/**
 * The Agents SDK's tools as Code Mode can take them: function tools it can run, split from the
 * ones that need a person's approval; everything else refused by name with what to do instead.
 */
import { RunContext, type FunctionTool, type Tool } from '@openai/agents'
import { CodeModeError } from '@code-runtime/code-mode'

/** A function tool of any context, parameters and result: what `tool()` returns. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own spelling of "any function tool"
export type AnyFunctionTool<TContext> = FunctionTool<TContext, any, any>

/** The tools split: those programs may call, and the names of those left out for approval. */
export interface ReadAgentsTools<TContext> {
  readonly runnable: readonly AnyFunctionTool<TContext>[]
  readonly needApproval: readonly string[]
}

const BESIDE = 'give it to the Agent beside run_code'

/** What a tool that is not a function tool is, in a refusal's words. */
function describeKind<TContext>(tool: Tool<TContext>): string {
  switch (tool.type) {
    case 'hosted_tool':
      return 'a hosted tool (the model provider runs it, e.g. web search, file search or a hosted MCP server)'
    case 'computer':
      return 'a computer tool'
    case 'shell':
      return 'a shell tool'
    case 'apply_patch':
      return 'an apply_patch tool'
    default:
      return `a tool of type ${JSON.stringify((tool as { type?: unknown }).type)}`
  }
}

function refuse(index: number, message: string): never {
  throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${message}.`, { field: `tools[${index}]` })
}

/** The tool's own name, for messages, whatever the value is. */
function nameOf(tool: unknown, index: number): string {
  const name = typeof tool === 'object' && tool !== null ? (tool as { name?: unknown }).name : undefined
  return typeof name === 'string' && name !== '' ? name : `tools[${index}]`
}

/**
 * Refuses what Code Mode cannot run faithfully, so a tool never silently loses a behaviour the
 * SDK gives it when the Runner calls it.
 */
function checkFunctionTool<TContext>(tool: AnyFunctionTool<TContext>, index: number): void {
  const name = JSON.stringify(tool.name)
  if (typeof tool.invoke !== 'function')
    refuse(index, `${name} has no invoke function, so Code Mode cannot run it; build it with tool() of @openai/agents`)
  // Guardrails run in the Runner around a call, never inside invoke: a program's calls would skip them.
  if ((tool.inputGuardrails?.length ?? 0) > 0 || (tool.outputGuardrails?.length ?? 0) > 0) {
    refuse(index, `${name} has tool guardrails, which only the Runner applies, around calls it makes itself; ${BESIDE}`)
  }
  // A timeout of behaviour error_as_result resolves with a timeout message as if the tool had
  // succeeded, which a program cannot tell from a result; raise_exception rejects the call.
  if (tool.timeoutMs !== undefined && tool.timeoutBehavior !== 'raise_exception') {
    refuse(
      index,
      `${name} has timeoutMs with timeoutBehavior 'error_as_result', so a timed-out call would look like a result to the program; set timeoutBehavior: 'raise_exception' (the call then fails in the program), or ${BESIDE}`,
    )
  }
}

/**
 * Whether a function tool may need approval. `tool()` stores `needsApproval: true | false`
 * (and its absence) as a function of no parameters that ignores the call, and a policy as the
 * caller's own function: a function that reads the call (declares parameters) may need approval
 * for some calls, so only a no-parameter function that answers `false` is taken as "never".
 */
async function mayNeedApproval<TContext>(tool: AnyFunctionTool<TContext>): Promise<boolean> {
  const { needsApproval } = tool
  if (typeof needsApproval !== 'function') return needsApproval !== undefined && needsApproval !== false
  if (needsApproval.length > 0) return true
  // A policy that fails to answer is not taken as "never".
  return (
    (await Promise.resolve()
      .then(() => needsApproval(new RunContext<TContext>(), {}, undefined))
      .catch(() => true)) !== false
  )
}

/**
 * Reads the tools given to `codeModeTool`.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` (as a rejection) naming the tool and what to do,
 *   for a tool that is not a function tool or has a behaviour a program's call would lose.
 */
export async function readAgentsTools<TContext>(tools: readonly Tool<TContext>[]): Promise<ReadAgentsTools<TContext>> {
  if (!Array.isArray(tools)) {
    throw new CodeModeError('CODE_MODE_INVALID_TOOL', 'Invalid tool: tools must be an array of Agents SDK tools.', {
      field: 'tools',
    })
  }
  const functionTools: AnyFunctionTool<TContext>[] = []
  tools.forEach((tool: Tool<TContext>, index) => {
    if (typeof tool !== 'object' || tool === null) refuse(index, `${nameOf(tool, index)} is not an Agents SDK tool`)
    if (tool.type !== 'function') {
      refuse(
        index,
        `${JSON.stringify(nameOf(tool, index))} is ${describeKind(tool)}: Code Mode runs only function tools (tool() of @openai/agents); ${BESIDE}`,
      )
    }
    checkFunctionTool(tool, index)
    functionTools.push(tool)
  })
  const approvals = await Promise.all(functionTools.map(async tool => mayNeedApproval(tool)))
  return {
    runnable: functionTools.filter((_tool, index) => approvals[index] === false),
    needApproval: functionTools.filter((_tool, index) => approvals[index] === true).map(tool => tool.name),
  }
}
