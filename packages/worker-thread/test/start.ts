/** Test support: start a worker-thread runtime and common bindings. */
import {
  startCodeRuntime,
  type CodeBindingNamespace,
  type CodeRuntime,
  type CodeJsonValue,
  type CodeRunResult,
  type StartedCodeRuntime,
} from '@code-runtime/core'
import { WorkerThreadCodeRuntime, type WorkerThreadConfigInput } from '@code-runtime/worker-thread'

export function startWorkerRuntime(
  config: WorkerThreadConfigInput = {},
): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, config)
}

/** `tools.echo(x)` resolves `x`; `tools.fail(x)` rejects with `x.message`. */
export const echoTools: CodeBindingNamespace = {
  global: 'tools',
  functions: {
    echo: async (args: unknown) => args as CodeJsonValue,
    fail: async (args: unknown) => {
      throw new Error(String((args as { message?: unknown }).message))
    },
  },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}

/** Counts worker threads created in this process from now on (Node emits `worker` on process). */
export function countWorkerSpawns(): { readonly count: number; stop(): void } {
  let count = 0
  const listener = (): void => {
    count++
  }
  process.on('worker', listener)
  return {
    get count() {
      return count
    },
    stop: () => process.off('worker', listener),
  }
}

/** The part of a result CONTRACT section #result-shape speaks about before usage and calls: logs, value, error. */
export function outcomeOf(result: CodeRunResult): Pick<CodeRunResult, 'logs' | 'value' | 'error'> {
  const { logs, error } = result
  if (error !== undefined) return { logs, error }
  return 'value' in result ? { logs, value: result.value as CodeJsonValue } : { logs }
}

/**
 * A small budget for a check that needs the program's first statements (a log line) to reach
 * the host before the budget runs out. On a loaded machine the worker or the host can wait for a
 * core longer than any fixed budget, so it is measured now: ten times the slowest of three
 * exchanges with a running program on `runtime` (the host answers a call, the program logs and
 * ends, the host settles), never below `floorMs`.
 */
export async function measureSmallBudgetMs(runtime: CodeRuntime, floorMs: number): Promise<number> {
  let slowestMs = 0
  for (let run = 0; run < 3; run++) {
    let calledAt = 0
    const ping = async (): Promise<null> => {
      calledAt = performance.now()
      return null
    }
    const result = await runtime.run({
      program: "await tools.ping({})\nconsole.log('measuring')\nreturn 1",
      bindings: [{ global: 'tools', functions: { ping } }],
    })
    if (result.error !== undefined) throw new Error(`a trivial run failed: ${result.error.message}`)
    slowestMs = Math.max(slowestMs, performance.now() - calledAt)
  }
  return Math.max(floorMs, Math.ceil(slowestMs * 10))
}
