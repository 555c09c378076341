/**
 * The physical floor: the same program run in the host thread, in a fresh `vm` context per run,
 * with the same type strip (amaro, strip-only) and the same async-function wrapper as the
 * backends, plain async binding functions and a captured console. No isolation, no copies, no
 * messages: what is left is transform + context + the program itself.
 */
import { format } from 'node:util'
import vm from 'node:vm'
import { transformSync } from 'amaro'
import type { CodeJsonValue, CodeRunFailure, CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime, BenchRuntimeConfig, BenchStarter } from './backends.js'

const WRAPPER_HEAD = '(async function () {\n'
// Called inside the script, so `computeMs` (a vm timeout) covers the program's synchronous start.
const WRAPPER_TAIL = '\n})()'

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const

function captureConsole(logs: string[]): Record<string, (...values: unknown[]) => void> {
  const captured: Record<string, (...values: unknown[]) => void> = {}
  for (const method of CONSOLE_METHODS) {
    captured[method] = (...values) => {
      logs.push(format(...values))
    }
  }
  return captured
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const onAbort = (): void => reject(new FloorAbort(String(signal.reason)))
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
}

class FloorAbort extends Error {}

function failureOf(error: unknown): CodeRunFailure {
  if (error instanceof FloorAbort) return { kind: 'abort', message: error.message }
  if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
    return { kind: 'timeout', message: String(error) }
  }
  return { kind: 'exception', message: String(error) }
}

class FloorRuntime implements BenchRuntime {
  readonly #computeMs: number | undefined

  constructor(config: BenchRuntimeConfig) {
    this.#computeMs = config.computeMs
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    const logs: string[] = []
    try {
      const { code } = transformSync(WRAPPER_HEAD + request.program + WRAPPER_TAIL, { mode: 'strip-only' })
      const globals: Record<string, unknown> = { console: captureConsole(logs) }
      for (const namespace of request.bindings) globals[namespace.global] = { ...namespace.functions }
      const context = vm.createContext(globals)
      const script = new vm.Script(code, { filename: 'program.ts' })
      const options = this.#computeMs === undefined ? {} : { timeout: this.#computeMs }
      const completion = script.runInContext(context, options) as Promise<unknown>
      const signal = request.signal
      const value = signal === undefined ? await completion : await Promise.race([completion, untilAborted(signal)])
      return value === undefined ? { logs } : { logs, value: value as CodeJsonValue }
    } catch (error) {
      return { logs, error: failureOf(error) }
    }
  }

  async dispose(): Promise<void> {}
}

/** Starts the in-thread floor; it reads `computeMs` (as a vm timeout) and ignores `spawnAhead`. */
export const floorStarter: BenchStarter = {
  start: (config) => Promise.resolve(new FloorRuntime(config)),
}
