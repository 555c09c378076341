/**
 * A peer measured in the same run: a runner built on `isolated-vm` (a V8 isolate in the host
 * process, no thread or process spawn). Each run gets a fresh `ivm.Isolate` and a fresh context,
 * disposed after the run. Programs are type-stripped like the in-thread floor; each binding is
 * one `ivm.Reference` to a host function, called from the isolate with `apply` (result as a
 * promise) and its value carried as one JSON string each way; console lines go out with
 * `applyIgnored`. `computeMs` is the script's synchronous timeout, and `abort()` disposes the
 * isolate. It is a peer to compare against, not a sandbox of ours: it has none of our limits.
 */
import type {
  CodeBindingNamespace,
  CodeJsonValue,
  CodeRunFailure,
  CodeRunOutcome,
  CodeRunRequest,
  CodeRunResult,
} from '@code-runtime/core'
import type IsolatedVm from 'isolated-vm'
import type { BenchRuntime, BenchRuntimeConfig, BenchStarter } from './backends.js'
import { stripToScript, timedResult } from './baseline-floor.js'

type Ivm = typeof IsolatedVm

/** Heap cap of each run's isolate, in MiB: room for the big value twice over. */
const ISOLATE_MEMORY_MIB = 256

/** The guest's side: a global object per namespace whose functions call the host, and a console. */
const GUEST_SETUP = `
const [call, log, namespacesJson] = [$0, $1, $2]
for (const [global, names] of Object.entries(JSON.parse(namespacesJson))) {
  const namespace = {}
  for (const name of names) {
    namespace[name] = (args) => call
      .apply(undefined, [global, name, JSON.stringify(args === undefined ? null : args)], { result: { promise: true } })
      .then((json) => JSON.parse(json))
  }
  globalThis[global] = namespace
}
const text = (value) => (typeof value === 'string' ? value : JSON.stringify(value))
const line = (...values) => log.applyIgnored(undefined, [values.map(text).join(' ')])
globalThis.console = { log: line, info: line, warn: line, error: line, debug: line }
`

function functionOf(
  bindings: readonly CodeBindingNamespace[],
  global: string,
  name: string,
): ((args: CodeJsonValue) => Promise<CodeJsonValue>) | undefined {
  const namespace = bindings.find(candidate => candidate.global === global)
  return namespace === undefined || !Object.hasOwn(namespace.functions, name) ? undefined : namespace.functions[name]
}

function failureOf(error: unknown, isAborted: boolean): CodeRunFailure {
  const message = error instanceof Error ? error.message : String(error)
  if (isAborted) return { kind: 'abort', message }
  if (/timed out/i.test(message)) return { kind: 'timeout', message }
  return { kind: 'exception', message }
}

class IsolatedVmRuntime implements BenchRuntime {
  readonly #ivm: Ivm
  readonly #computeMs: number | undefined

  constructor(ivm: Ivm, config: BenchRuntimeConfig) {
    this.#ivm = ivm
    this.#computeMs = config.computeMs
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    return timedResult(() => this.#outcome(request))
  }

  async #outcome(request: CodeRunRequest): Promise<CodeRunOutcome> {
    const logs: string[] = []
    const isolate = new this.#ivm.Isolate({ memoryLimit: ISOLATE_MEMORY_MIB })
    let isAborted = false
    const onAbort = (): void => {
      isAborted = true
      if (!isolate.isDisposed) isolate.dispose()
    }
    request.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const context = await isolate.createContext()
      const call = new this.#ivm.Reference(async (global: string, name: string, argsJson: string) => {
        const target = functionOf(request.bindings, global, name)
        if (target === undefined) throw new Error(`${global}.${name} is not a binding`)
        return JSON.stringify(await target(JSON.parse(argsJson) as CodeJsonValue))
      })
      const log = new this.#ivm.Reference((line: string) => {
        logs.push(line)
      })
      const namespaces = JSON.stringify(
        Object.fromEntries(request.bindings.map(namespace => [namespace.global, Object.keys(namespace.functions)])),
      )
      await context.evalClosure(GUEST_SETUP, [call, log, namespaces])
      const options =
        this.#computeMs === undefined
          ? ({ promise: true, copy: true } as const)
          : ({ promise: true, copy: true, timeout: this.#computeMs } as const)
      const value = (await context.eval(stripToScript(request.program), options)) as CodeJsonValue | undefined
      return value === undefined ? { logs } : { logs, value }
    } catch (error) {
      return { logs, error: failureOf(error, isAborted) }
    } finally {
      request.signal?.removeEventListener('abort', onAbort)
      if (!isolate.isDisposed) isolate.dispose()
    }
  }

  async dispose(): Promise<void> {}
}

/**
 * Imports `isolated-vm` and returns the peer's starter.
 * @throws when the native addon cannot be loaded on this machine (the caller skips the column).
 */
export async function loadIsolatedVmPeer(): Promise<BenchStarter> {
  const specifier: string = 'isolated-vm'
  const ivm = ((await import(specifier)) as { default: Ivm }).default
  return { start: config => Promise.resolve(new IsolatedVmRuntime(ivm, config)) }
}
