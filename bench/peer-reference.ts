/**
 * A peer measured in the same run: the seed's reference, `@deepseek-ai/dsh-code-runtime-worker-thread`
 * from npm (one fresh worker per run, no pool). It is a cordis plugin: it is started in a fresh
 * cordis `Context`, and its `codeRuntime` service takes the same request shape as ours. It needs
 * Node ≥ 22.13 (`node:module`'s `stripTypeScriptTypes`): on an older Node it runs in a child
 * process of the Node binary named by `BENCH_PEER_NODE`, and without one the column is skipped
 * with a note that names the Node it needs.
 */
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import { execFileSync } from 'node:child_process'
import type { BenchRuntime, BenchStarter } from './backends.js'
import { remotePeerStarter } from './peer-remote.js'

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
 * Imports the reference into this process and returns its starter; it reads `computeMs` and
 * ignores `spawnAhead` (it has no pool). Needs a Node the reference runs on.
 */
export async function startReferenceInProcess(): Promise<BenchStarter> {
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
      return { run: request => runtime.run(request), dispose: () => fiber.dispose() }
    },
  }
}

/** The environment variable naming another Node binary to run the reference on. */
export const PEER_NODE_VARIABLE = 'BENCH_PEER_NODE'

/** Where the reference runs: in this process, in a child of another Node binary, or nowhere (why). */
export type ReferencePlacement =
  | { readonly where: 'in-process' }
  | { readonly where: 'child'; readonly nodeBinary: string }
  | { readonly where: 'nowhere'; readonly reason: string }

/**
 * Decides where the reference runs: here when this Node is new enough, else on the binary named by
 * `BENCH_PEER_NODE` when that one is (`peerNodeVersion` is its `--version`, or `undefined` when it
 * would not start).
 */
export function placeReference(
  ownVersion: string,
  peerNode: string | undefined,
  peerNodeVersion: string | undefined,
): ReferencePlacement {
  const needs = `needs Node ≥ ${REFERENCE_MIN_NODE.join('.')}`
  if (isNodeAtLeast(ownVersion, REFERENCE_MIN_NODE)) return { where: 'in-process' }
  if (peerNode === undefined || peerNode === '') {
    return {
      where: 'nowhere',
      reason: `${needs} (this run: Node ${ownVersion}); set ${PEER_NODE_VARIABLE} to such a Node binary to run it in a child process, or run the bench on that Node`,
    }
  }
  if (peerNodeVersion === undefined)
    return { where: 'nowhere', reason: `${PEER_NODE_VARIABLE}=${peerNode} did not start` }
  if (!isNodeAtLeast(peerNodeVersion, REFERENCE_MIN_NODE))
    return { where: 'nowhere', reason: `${needs}, and ${PEER_NODE_VARIABLE}=${peerNode} is Node ${peerNodeVersion}` }
  return { where: 'child', nodeBinary: peerNode }
}

function versionOf(nodeBinary: string | undefined): string | undefined {
  if (nodeBinary === undefined || nodeBinary === '') return undefined
  try {
    return execFileSync(nodeBinary, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim()
  } catch {
    return undefined
  }
}

/**
 * The reference's starter: in this process on a Node it runs on, else in a child process of the
 * Node binary named by `BENCH_PEER_NODE` (peer-remote.ts).
 * @throws when neither is possible, or the package cannot be imported; the message says why.
 */
export async function loadReferencePeer(): Promise<BenchStarter> {
  const peerNode = process.env[PEER_NODE_VARIABLE]
  const placement = placeReference(
    process.version,
    peerNode,
    isNodeAtLeast(process.version, REFERENCE_MIN_NODE) ? undefined : versionOf(peerNode),
  )
  switch (placement.where) {
    case 'in-process':
      return startReferenceInProcess()
    case 'child':
      return remotePeerStarter(placement.nodeBinary)
    case 'nowhere':
      throw new Error(placement.reason)
  }
}
