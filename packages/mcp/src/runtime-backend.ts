/**
 * Which code runtime runs the programs. `process` (the default on Linux) and `container` live in
 * `@code-runtime/process`, loaded only when chosen; `worker-thread` is the faster choice where a
 * fatal error in a program may take the server down with it, and the default elsewhere (the
 * process backend measures CPU time through Linux's /proc).
 */
import { CodeRuntimeError, startCodeRuntime, type CodeRuntime, type CodeRuntimeBackend, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { McpProxyError } from './errors.js'

/** The backends `--backend` accepts. */
export const BACKEND_NAMES = ['worker-thread', 'process', 'container'] as const
export type BackendName = (typeof BACKEND_NAMES)[number]

/**
 * The backend used when none is chosen: a child process per run, so a program that crashes V8
 * (some allocations abort the whole process despite a worker's heap cap) never takes the
 * server down. The worker-thread backend trades that for speed.
 */
export const DEFAULT_BACKEND: BackendName = process.platform === 'linux' ? 'process' : 'worker-thread'

/** Budgets every backend understands. */
export interface BackendBudgets {
  /** Wall-clock ceiling of one run, in milliseconds. */
  readonly maxWallMs: number
  /** CPU-time ceiling of one run, in milliseconds; the backend's default (60 000) when absent. */
  readonly computeMs?: number
}

const PROCESS_PACKAGE = '@code-runtime/process'
const PROCESS_EXPORTS: Readonly<Record<Exclude<BackendName, 'worker-thread'>, string>> = {
  process: 'ProcessCodeRuntime',
  container: 'ContainerCodeRuntime',
}

async function loadProcessBackend(name: Exclude<BackendName, 'worker-thread'>): Promise<CodeRuntimeBackend<unknown, CodeRuntime>> {
  let module: Record<string, unknown>
  try {
    // A variable specifier: the package is optional and must not be resolved at build time.
    const specifier: string = PROCESS_PACKAGE
    module = (await import(specifier)) as Record<string, unknown>
  } catch (error) {
    throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE',
      `--backend ${name} needs ${PROCESS_PACKAGE}, which is not installed or not built; install it, or use --backend worker-thread.`,
      { value: name, cause: error })
  }
  const Backend = module[PROCESS_EXPORTS[name]]
  if (typeof Backend !== 'function') {
    throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE',
      `--backend ${name}: this version of ${PROCESS_PACKAGE} has no ${PROCESS_EXPORTS[name]}; update it, or use --backend worker-thread.`,
      { value: name })
  }
  return Backend as CodeRuntimeBackend<unknown, CodeRuntime>
}

/**
 * Starts the chosen backend with `budgets`.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when it is not installed or cannot
 *   work on this machine (no bubblewrap, say); the message says what to do.
 */
export async function startBackend(name: BackendName, budgets: BackendBudgets): Promise<StartedCodeRuntime<CodeRuntime>> {
  return await startNamedBackend(name, budgets)
}

/**
 * Starts the backend the user asked for, or, when they asked for none, the default, falling back
 * to worker threads (with a note through `warn`) where the default cannot work on this machine.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when the chosen backend cannot work.
 */
export async function startChosenBackend(name: BackendName, isChosen: boolean, budgets: BackendBudgets,
  warn: (line: string) => void, start: typeof startBackend = startNamedBackend): Promise<StartedCodeRuntime<CodeRuntime>> {
  try {
    return await start(name, budgets)
  } catch (error) {
    if (isChosen || name === 'worker-thread' || !McpProxyError.is(error) || error.code !== 'MCP_PROXY_BACKEND_UNAVAILABLE') throw error
    warn(`${error.message} Running programs in worker threads instead (contained, but a V8 crash would stop code-runtime); pass --backend to choose.`)
    return await start('worker-thread', budgets)
  }
}

async function startNamedBackend(name: BackendName, budgets: BackendBudgets): Promise<StartedCodeRuntime<CodeRuntime>> {
  const Backend = name === 'worker-thread' ? WorkerThreadCodeRuntime as CodeRuntimeBackend<unknown, CodeRuntime> : await loadProcessBackend(name)
  try {
    const computeMs = budgets.computeMs === undefined ? {} : { computeMs: budgets.computeMs }
    return await startCodeRuntime(Backend, { maxWallMs: budgets.maxWallMs, ...computeMs })
  } catch (error) {
    if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE') {
      throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', `--backend ${name}: ${error.message}`, { value: name, cause: error })
    }
    throw error
  }
}
