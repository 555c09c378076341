/**
 * Where the app finds a run's structured outcome: the SDK's own place for data about a tool
 * output that the model never sees, the `customData` of the run item (`RunToolCallOutputItem`),
 * which also survives a serialized `RunState`. The model reads `text` as the tool output.
 */
import type { RunContext, RunItem } from '@openai/agents'
import type { RunCodeOutput } from '@code-runtime/code-mode'
import { isObjectRecord } from '@code-runtime/core/internal'

/** The key of `customData` holding the outcome: `item.customData.codeMode`. */
export const RUN_CODE_CUSTOM_DATA_KEY = 'codeMode'

/** Outcomes waiting for the Runner to build their run item, per run and per tool call id. */
export class PendingRunCodeOutputs {
  // Keyed by run context, so what a failed or aborted run never collects goes with the run.
  readonly #byRun = new WeakMap<object, Map<string, RunCodeOutput>>()

  keep(runContext: RunContext<unknown>, callId: string, output: RunCodeOutput): void {
    let byCall = this.#byRun.get(runContext)
    if (byCall === undefined) {
      byCall = new Map()
      this.#byRun.set(runContext, byCall)
    }
    byCall.set(callId, output)
  }

  /** The outcome of one call as `customData`, once: JSON only (the SDK refuses `undefined`). */
  take(runContext: RunContext<unknown>, callId: string): Record<string, unknown> | undefined {
    const byCall = this.#byRun.get(runContext)
    const output = byCall?.get(callId)
    if (output === undefined) return undefined
    byCall?.delete(callId)
    return { [RUN_CODE_CUSTOM_DATA_KEY]: JSON.parse(JSON.stringify(output)) as unknown }
  }
}

/**
 * The structured outcome of a `run_code` call from its run item (`result.newItems`, a stream's
 * run item events), or `undefined` for any other item.
 * @example
 * const outputs = result.newItems.map(readRunCodeOutput).filter((output) => output !== undefined)
 */
export function readRunCodeOutput(item: RunItem): RunCodeOutput | undefined {
  if (item.type !== 'tool_call_output_item') return undefined
  const data = item.customData?.[RUN_CODE_CUSTOM_DATA_KEY]
  if (
    !isObjectRecord(data) ||
    typeof data.text !== 'string' ||
    !isObjectRecord(data.structured) ||
    typeof data.isError !== 'boolean'
  )
    return undefined
  return data as unknown as RunCodeOutput
}
