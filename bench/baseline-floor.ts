/**
 * The physical floor: the same program run in the host thread, in a fresh `vm` context per run,
 * with the same type strip (amaro, strip-only) and the same async-function wrapper as the
 * backends, plain async binding functions and a captured console. No isolation, no copies, no
 * messages: what is left is transform + context + the program itself. Also the floor under any
 * bridge that copies the big value: one JSON round trip or structured clone of it in-thread.
 */
import { performance } from 'node:perf_hooks'
import { format } from 'node:util'
import vm from 'node:vm'
import { transformSync } from 'amaro'
import type { CodeJsonValue, CodeRunFailure, CodeRunOutcome, CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime, BenchRuntimeConfig, BenchStarter } from './backends.js'
import { summarizeSamples, type SampleSummary } from './statistics.js'

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

/**
 * `program` type-stripped (amaro, strip-only) inside the backends' `(async function () {…})()`
 * wrapper: a script whose completion value is the run's promise. Shared with the isolated-vm peer.
 */
export function stripToScript(program: string): string {
  return transformSync(WRAPPER_HEAD + program + WRAPPER_TAIL, { mode: 'strip-only' }).code
}

/** The result of a runner that keeps no books: the outcome and only its wall time. */
export async function timedResult(outcome: () => Promise<CodeRunOutcome>): Promise<CodeRunResult> {
  const startedAt = performance.now()
  const settled = await outcome()
  return {
    ...settled,
    usage: { wallMs: performance.now() - startedAt, busyMs: 0, bindingCalls: 0, outputBytes: 0 },
    calls: [],
  }
}

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

  // The floor keeps no books (that is what it measures the backends against): wall time only.
  run(request: CodeRunRequest): Promise<CodeRunResult> {
    return timedResult(() => this.#outcome(request))
  }

  async #outcome(request: CodeRunRequest): Promise<CodeRunOutcome> {
    const logs: string[] = []
    try {
      const code = stripToScript(request.program)
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
  start: config => Promise.resolve(new FloorRuntime(config)),
}

/** What copying the big value once costs in the host thread: the floor under any copying bridge. */
export interface CopyFloor {
  /** `JSON.parse(JSON.stringify(value))`, in ms. */
  readonly jsonRoundTripMs: SampleSummary
  /** `structuredClone(value)` (what `postMessage` does), in ms. */
  readonly structuredCloneMs: SampleSummary
}

/** Times one JSON round trip and one structured clone of `value`, `runs` times each. */
export function measureCopyFloor(value: unknown, runs: number): CopyFloor {
  const jsonRoundTrips: number[] = []
  const structuredClones: number[] = []
  for (let index = 0; index < runs; index++) {
    let startedAt = performance.now()
    JSON.parse(JSON.stringify(value))
    jsonRoundTrips.push(performance.now() - startedAt)
    startedAt = performance.now()
    structuredClone(value)
    structuredClones.push(performance.now() - startedAt)
  }
  return { jsonRoundTripMs: summarizeSamples(jsonRoundTrips), structuredCloneMs: summarizeSamples(structuredClones) }
}
