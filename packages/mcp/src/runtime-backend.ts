/**
 * Which code runtime runs the programs. `container` (the default on Linux) and `process` live in
 * `@code-runtime/process`, an optional peer dependency loaded only when chosen; `worker-thread` is
 * the faster choice where a fatal error in a program may take the server down with it, and the
 * default elsewhere (both others need Linux). The product defaults to the one backend that is a
 * security boundary against a malicious program, bubblewrap's sandbox; where it cannot run (no
 * bubblewrap, no user namespaces) it says so in one line and falls back to `process`, whose
 * Node permission model is not such a boundary by Node's own account, then to worker threads.
 */
import type * as Nats from '@code-runtime/nats'
import type { NatsConnectionConfig } from '@code-runtime/nats'
import {
  CodeRuntimeError,
  startCodeRuntime,
  type CodeRuntime,
  type CodeRuntimeBackend,
  type StartedCodeRuntime,
} from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import type { NatsCliConnection } from './cli/cli-arguments.js'
import { McpProxyError } from './errors.js'

/** The backends `--backend` accepts. */
export const BACKEND_NAMES = ['worker-thread', 'process', 'container'] as const
export type BackendName = (typeof BACKEND_NAMES)[number]

/**
 * The backend used when none is chosen: on Linux a bubblewrap container per run (its own mount,
 * PID and network namespaces: a program that escapes its context still sees no host path), which
 * also keeps a V8 crash from taking the server down. The worker-thread backend trades both for
 * speed.
 */
export const DEFAULT_BACKEND: BackendName = process.platform === 'linux' ? 'container' : 'worker-thread'

/** What each backend falls back to when it is the default and cannot work here, and what that means. */
const FALLBACKS: Readonly<
  Record<BackendName, { readonly backend: BackendName; readonly meaning: string } | undefined>
> = {
  container: {
    backend: 'process',
    meaning:
      "Running programs in child processes under Node's permission model instead, which by Node's own account is not a security boundary against malicious code; make bubblewrap work (as above) for the container backend, or pass --backend to choose.",
  },
  process: {
    backend: 'worker-thread',
    meaning:
      'Running programs in worker threads instead (contained, but a V8 crash would stop code-runtime); pass --backend to choose.',
  },
  'worker-thread': undefined,
}

/** Budgets every backend understands. */
export interface BackendBudgets {
  /** Wall-clock ceiling of one run, in milliseconds. */
  readonly maxWallMs: number
  /** CPU-time ceiling of one run, in milliseconds; the backend's default (60 000) when absent. */
  readonly computeMs?: number
  /** Cap on a run's output, in bytes; the backend's default (64 MiB) when absent. */
  readonly maxOutputBytes?: number
}

/** An optional peer dependency: installed by whoever wants the process or container backend. */
export const PROCESS_PACKAGE = '@code-runtime/process'
const PROCESS_EXPORTS: Readonly<Record<Exclude<BackendName, 'worker-thread'>, string>> = {
  process: 'ProcessCodeRuntime',
  container: 'ContainerCodeRuntime',
}

/** Loads a package by name; the seam a test replaces to see the loader's failures. */
export type PackageImporter = (specifier: string) => Promise<Record<string, unknown>>

// A variable specifier: the package is optional and must not be resolved at build time.
const importPackage: PackageImporter = async specifier => (await import(specifier)) as Record<string, unknown>

/** True when `error` says that `specifier` itself cannot be found (not one of its own imports). */
function isPackageMissing(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${specifier}'`)
}

/**
 * The backend class for `process` or `container`, from `@code-runtime/process`, imported only now:
 * the package is optional, and an installation that only uses worker threads need not have it.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` naming the package to install when it is
 *   missing, or saying it failed to load (with the cause) when it is there but broken.
 */
export async function loadProcessBackend(
  name: Exclude<BackendName, 'worker-thread'>,
  importModule: PackageImporter = importPackage,
): Promise<CodeRuntimeBackend<unknown, CodeRuntime>> {
  let module: Record<string, unknown>
  try {
    module = await importModule(PROCESS_PACKAGE)
  } catch (error) {
    const message = isPackageMissing(error, PROCESS_PACKAGE)
      ? `--backend ${name} needs ${PROCESS_PACKAGE}, which is not installed: run \`npm install ${PROCESS_PACKAGE}\` beside @code-runtime/mcp, or use --backend worker-thread.`
      : `--backend ${name}: ${PROCESS_PACKAGE} is installed but failed to load (${error instanceof Error ? error.message : String(error)}); reinstall or rebuild it, or use --backend worker-thread.`
    throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', message, { value: name, cause: error })
  }
  const Backend = module[PROCESS_EXPORTS[name]]
  if (typeof Backend !== 'function') {
    throw new McpProxyError(
      'MCP_PROXY_BACKEND_UNAVAILABLE',
      `--backend ${name}: this version of ${PROCESS_PACKAGE} has no ${PROCESS_EXPORTS[name]}; update it, or use --backend worker-thread.`,
      { value: name },
    )
  }
  return Backend as CodeRuntimeBackend<unknown, CodeRuntime>
}

/**
 * Starts the chosen backend with `budgets`.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when it is not installed or cannot
 *   work on this machine (no bubblewrap, say); the message says what to do.
 */
export async function startBackend(
  name: BackendName,
  budgets: BackendBudgets,
): Promise<StartedCodeRuntime<CodeRuntime>> {
  return await startNamedBackend(name, budgets)
}

/** A started backend and its name, which differs from the one asked for after a fallback. */
export type StartedBackend = StartedCodeRuntime<CodeRuntime> & { readonly backend: BackendName }

/**
 * Starts the backend the user asked for, or, when they asked for none, the default (starting it
 * is its probe), falling back where the default cannot work on this machine: container to
 * process, process to worker threads, each with one line through `warn` saying what that means.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when the chosen backend cannot work.
 */
export async function startChosenBackend(
  name: BackendName,
  isChosen: boolean,
  budgets: BackendBudgets,
  warn: (line: string) => void,
  start: typeof startBackend = startNamedBackend,
): Promise<StartedBackend> {
  try {
    return { ...(await start(name, budgets)), backend: name }
  } catch (error) {
    const fallback = FALLBACKS[name]
    if (
      isChosen ||
      fallback === undefined ||
      !McpProxyError.is(error) ||
      error.code !== 'MCP_PROXY_BACKEND_UNAVAILABLE'
    )
      throw error
    warn(`${error.message} ${fallback.meaning}`)
    return await startChosenBackend(fallback.backend, false, budgets, warn, start)
  }
}

/** NATS credentials from the environment (never the command line, where `ps` shows them). */
export function natsCredentialsFromEnvironment(): { user?: string; pass?: string; token?: string } {
  return {
    ...(process.env.NATS_USER === undefined ? {} : { user: process.env.NATS_USER, pass: process.env.NATS_PASS ?? '' }),
    ...(process.env.NATS_TOKEN === undefined ? {} : { token: process.env.NATS_TOKEN }),
  }
}

/** `@code-runtime/nats` and its client, loaded only with `--nats` (they would slow every start). */
function importNats(): Promise<typeof Nats> {
  return import('@code-runtime/nats')
}

/** How NATS said no to a start without credentials: the fix, and the flag that accepts the risk. */
const NO_CREDENTIALS =
  'refuses to connect to NATS without credentials: set NATS_USER and NATS_PASS, or NATS_TOKEN, or give --nats-creds <file> or --nats-cert/--nats-key; on a bus nobody else can reach, --insecure-no-auth connects without'

/**
 * The connection fields of `--nats`: the environment's credentials, the creds file, TLS files and
 * inbox prefix. Secure by default: without credentials it refuses, unless `--insecure-no-auth`,
 * which is warned (`warn`) on every start, since anyone on such a bus reads programs and poses as a runner.
 * @throws {McpProxyError} `MCP_PROXY_USAGE` without credentials or `--insecure-no-auth`.
 */
export async function natsConnectionFields(
  connection: NatsCliConnection | undefined,
  warn: (line: string) => void,
): Promise<Omit<NatsConnectionConfig, 'servers' | 'subjectPrefix'>> {
  const { hasNatsCredentials } = await importNats()
  const fields = {
    ...natsCredentialsFromEnvironment(),
    ...(connection?.credsFile === undefined ? {} : { credsFile: connection.credsFile }),
    ...(connection?.tls === undefined ? {} : { tls: connection.tls }),
    ...(connection?.inboxPrefix === undefined ? {} : { inboxPrefix: connection.inboxPrefix }),
  }
  if (!hasNatsCredentials(fields)) {
    if (connection?.insecureNoAuth !== true) throw new McpProxyError('MCP_PROXY_USAGE', `--nats ${NO_CREDENTIALS}.`)
    warn(
      '--insecure-no-auth: connecting to NATS without credentials; any client on this bus can read programs and their binding calls, and pose as a runner.',
    )
  }
  return fields
}

/**
 * Starts the NATS backend: runs go to runners on `servers`, with `budgets`; with `adoptionKey`,
 * its sessions can be taken over by another gateway node that holds the same key.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when NATS cannot be reached; `MCP_PROXY_USAGE` without credentials (natsConnectionFields).
 */
export async function startRemoteBackend(
  servers: readonly string[],
  budgets: BackendBudgets,
  connection?: NatsCliConnection,
  adoptionKey?: Uint8Array,
): Promise<StartedCodeRuntime<CodeRuntime>> {
  const fields = await natsConnectionFields(connection, line => process.stderr.write(`code-runtime: ${line}\n`))
  const { NatsCodeRuntime } = await importNats()
  try {
    return await startCodeRuntime(NatsCodeRuntime, {
      servers,
      maxWallMs: budgets.maxWallMs,
      ...(budgets.computeMs === undefined ? {} : { computeMs: budgets.computeMs }),
      ...(adoptionKey === undefined ? {} : { adoptionKey }),
      ...fields,
    })
  } catch (error) {
    if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE') {
      throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', `--nats: ${error.message}`, {
        value: servers.join(','),
        cause: error,
      })
    }
    throw error
  }
}

async function startNamedBackend(name: BackendName, budgets: BackendBudgets): Promise<StartedCodeRuntime<CodeRuntime>> {
  const Backend =
    name === 'worker-thread'
      ? (WorkerThreadCodeRuntime as CodeRuntimeBackend<unknown, CodeRuntime>)
      : await loadProcessBackend(name)
  try {
    const computeMs = budgets.computeMs === undefined ? {} : { computeMs: budgets.computeMs }
    const maxOutputBytes = budgets.maxOutputBytes === undefined ? {} : { maxOutputBytes: budgets.maxOutputBytes }
    return await startCodeRuntime(Backend, { maxWallMs: budgets.maxWallMs, ...computeMs, ...maxOutputBytes })
  } catch (error) {
    if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_UNAVAILABLE') {
      throw new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', `--backend ${name}: ${error.message}`, {
        value: name,
        cause: error,
      })
    }
    throw error
  }
}
