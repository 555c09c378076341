/**
 * The `session` workload's columns: a backend's runtime whose sampled runs go to one open
 * session, after a first run that is not measured. So each sample is a session's second (or
 * later) `return 1`: no spawn and no context to prepare on its path, what a REPL-style caller pays
 * per run, beside the one-shot `trivial` row of the same backend.
 */
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime } from './backends.js'

/** Opens a session on `runtime`, runs its first program, and serves every later run from it. */
export async function inSession(
  runtime: BenchRuntime,
  openSession: NonNullable<BenchRuntime['openSession']>,
): Promise<BenchRuntime> {
  const session = await openSession()
  const first = await session.run({ program: 'return 1', bindings: [] })
  if (first.error !== undefined) {
    await session.dispose()
    throw new Error(`the session's first run failed (${first.error.kind}: ${first.error.message})`)
  }
  return {
    run: (request: CodeRunRequest): Promise<CodeRunResult> => session.run(request),
    dispose: async () => {
      await session.dispose()
      await runtime.dispose()
    },
  }
}
