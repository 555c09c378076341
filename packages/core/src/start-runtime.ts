/**
 * Plain use without cordis: one call gives a ready runtime and the function that disposes it.
 */
import { Context } from '@deepseek-ai/cordis'
import type { CodeRuntime } from './code-runtime.js'

/** A backend class as `ctx.plugin()` loads it. */
export type CodeRuntimeBackend<Config, Runtime extends CodeRuntime> = new (ctx: Context, config: Config) => Runtime

/** A runtime started by {@link startCodeRuntime}. */
export interface StartedCodeRuntime<Runtime extends CodeRuntime> {
  /** The ready runtime; call `run()` on it. */
  readonly runtime: Runtime
  /** Settles in-flight runs as `abort`, stops every substrate and resolves once they exited. */
  dispose(): Promise<void>
}

/**
 * Starts `Backend` with `config` in a private cordis context.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` when the config is invalid, or
 *   `CODE_RUNTIME_UNAVAILABLE` when the backend cannot work on this machine.
 * @example
 * ```ts
 * const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, { computeMs: 5_000 })
 * try {
 *   console.log(await runtime.run({ program: 'return 6 * 7', bindings: [] }))
 * } finally {
 *   await dispose()
 * }
 * ```
 */
export async function startCodeRuntime<Config, Runtime extends CodeRuntime>(
  Backend: CodeRuntimeBackend<Config, Runtime>,
  config: Config,
): Promise<StartedCodeRuntime<Runtime>> {
  const root = new Context()
  const fiber = root.plugin(Backend, config)
  try {
    await fiber
  } catch (error) {
    await root.fiber.dispose()
    throw error
  }
  const runtime = root.get('codeRuntime') as Runtime | undefined
  if (runtime === undefined) {
    await root.fiber.dispose()
    throw new TypeError(`${Backend.name} did not register itself as codeRuntime; does it extend CodeRuntime?`)
  }
  let disposal: Promise<void> | undefined
  return {
    runtime,
    dispose: () => (disposal ??= root.fiber.dispose()),
  }
}
