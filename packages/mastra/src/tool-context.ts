/**
 * The execution context a Mastra tool gets when a program calls it: the context Mastra gave
 * `run_code` (request context, tracing, workspace, memory, the agent's ids...), with the call's
 * own abort signal and without the means to suspend, which a program cannot resume from.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { noopObserve, type ToolExecutionContext } from '@mastra/core/tools'

/** The context Mastra passed to one `run_code` execution. */
export type RunCodeToolContext = ToolExecutionContext

// A program's calls reach the tools through Code Mode's dispatch, which carries only a signal:
// the run's Mastra context rides along in async-local storage, set around each call.
const runContext = new AsyncLocalStorage<RunCodeToolContext>()

/** Runs `call` (one tool call of a program) with the Mastra context of the run that made it. */
export function withRunContext<T>(context: RunCodeToolContext, call: () => T): T {
  return runContext.run(context, call)
}

/** A `suspend` for tools called from a program: it rejects, so the program sees why. */
function refuseSuspend(toolName: string): () => Promise<never> {
  return () =>
    Promise.reject(
      new Error(
        `${toolName} tried to suspend, which a tool called from run_code cannot do; give it to the agent beside run_code instead.`,
      ),
    )
}

/**
 * The context for one call of `toolName` from a program: the run's Mastra context, with
 * `abortSignal` the call's signal (aborted when the run ends or is cancelled) and any suspend or
 * resume state removed, since Mastra's execute would otherwise treat the call as a resumption.
 */
export function toolCallContext(toolName: string, signal: AbortSignal): ToolExecutionContext {
  const outer = runContext.getStore()
  const suspend = refuseSuspend(toolName)
  const {
    suspend: _suspend,
    resumeData: _resumeData,
    suspendPayload: _suspendPayload,
    ...rest
  } = outer ?? { observe: noopObserve }
  const context: ToolExecutionContext = { ...rest, abortSignal: signal, suspend }
  if (rest.agent !== undefined) {
    const {
      resumeData: _agentResumeData,
      suspendPayload: _agentSuspendPayload,
      suspendedToolRunId: _agentRunId,
      ...agent
    } = rest.agent
    context.agent = { ...agent, suspend }
  }
  if (rest.workflow !== undefined) {
    const {
      resumeData: _workflowResumeData,
      suspendPayload: _workflowSuspendPayload,
      suspendedToolRunId: _workflowRunId,
      ...workflow
    } = rest.workflow
    context.workflow = { ...workflow, suspend }
  }
  return context
}
