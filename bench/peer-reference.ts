/**
 * A peer measured in the same run: the seed's reference, `@deepseek-ai/dsh-code-runtime-worker-thread`
 * from npm (one fresh worker per run, no pool). It is a cordis plugin: it is started in a fresh
 * cordis `Context`, and its `codeRuntime` service takes the same request shape as ours. It needs
 * Node ≥ 22.13 (`node:module`'s `stripTypeScriptTypes`); on an older Node the column is skipped
 * with a note that names the Node it needs.
 */
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime, BenchStarter } from './backends.js'

export const REFERENCE_PACKAGE = '@deepseek-ai/dsh-code-runtime-worker-thread'

/** The oldest Node the reference runs on, as [major, minor]. */
export const REFERENCE_MIN_NODE: readonly [number, number] = [22, 13]

/** Whether `version` (as `process.version`, `v22.13.0`) is at least `[major, minor]`. */
export function isNodeAtLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [actualMajor = 0, actualMinor = 0] = version.replace(/^v/, '').split('.').map(Number)
  return actualMajor > major || (actualMajor === major && actualMinor >= minor)
}

/** The parts of cordis the bench uses: a context, a plugin's fiber, and a service by name. */
interface CordisFiber {
  await(): Promise<unknown>
  dispose(): Promise<void>
}
interface CordisContext {
  plugin(plugin: unknown, config: unknown): CordisFiber
  get(name: string): unknown
}
interface ReferenceRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
}

async function importExport(specifier: string, name: string): Promise<unknown> {
  const exports = (await import(specifier)) as Record<string, unknown>
  const exported = exports[name]
  if (exported === undefined) throw new Error(`${specifier} has no export ${name}`)
  return exported
}

/**
 * Imports the reference and returns its starter; it reads `computeMs` and ignores `spawnAhead`
 * (it has no pool).
 * @throws when this Node is older than the reference needs, or the package cannot be imported.
 */
export async function loadReferencePeer(): Promise<BenchStarter> {
  if (!isNodeAtLeast(process.version, REFERENCE_MIN_NODE)) {
    throw new Error(`needs Node ≥ ${REFERENCE_MIN_NODE.join('.')} (this run: Node ${process.version}); run the bench on that Node to measure it`)
  }
  const Context = (await importExport('@deepseek-ai/cordis', 'Context')) as new () => CordisContext
  const Runtime = await importExport(REFERENCE_PACKAGE, 'WorkerThreadCodeRuntime')
  return {
    async start(config): Promise<BenchRuntime> {
      const context = new Context()
      const fiber = context.plugin(Runtime, config.computeMs === undefined ? {} : { computeMs: config.computeMs })
      await fiber.await()
      const runtime = context.get('codeRuntime') as ReferenceRuntime | undefined
      if (runtime === undefined) {
        await fiber.dispose()
        throw new Error('the plugin started but provides no codeRuntime service')
      }
      return { run: (request) => runtime.run(request), dispose: () => fiber.dispose() }
    },
  }
}
