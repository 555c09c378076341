/**
 * What Code Mode's OpenTelemetry spans cost (issue 34): in three fresh processes, one with no SDK
 * registered (the spans are the API's no-op) and two with the SDK's in-memory exporter (each span
 * exported as it ends, and batched), a trivial Code Mode run on the worker-thread backend
 * (`return 1`, check off, after the pool's refill pause), a run of 200 sequential tool calls (the
 * cost per call is its difference from the trivial run, over 200), and the span code alone: one
 * run's spans and one call's, built and ended in a loop with no runtime at all (their metrics are
 * recorded there too, into no meter provider). The goals: with no SDK, the span code under 1 % of
 * the median trivial run and under 2 µs per call.
 *
 * On its own: `node bench/dist/tracing.js --sdk none|simple|batch [--runs N] [--json]`.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { createCodeMode } from '@code-runtime/code-mode'
import type * as RunTraceModule from '../packages/code-mode/dist/src/run/run-trace.js'
import type * as AcquireSpanModule from '../packages/engine/dist/src/host/acquire-span.js'
import { formatMs, summarizeSamples } from './statistics.js'

/** No SDK; the SDK exporting each span as it ends (as the tests do); the SDK batching (as OTLP export does). */
type SdkMode = 'none' | 'simple' | 'batch'
const SDK_MODES: readonly SdkMode[] = ['none', 'simple', 'batch']

/** One process's figures. */
export interface TracingColumn {
  readonly sdk: SdkMode
  /** Median wall time of a trivial run, in ms. */
  readonly trivialMs: number
  /** Median wall time of the run of {@link CALLS} calls, in ms. */
  readonly callsMs: number
  /** The span code alone, per run (run_code, execute, their ends), in µs. */
  readonly spanCodePerRunUs: number
  /** The span code alone, per call (execute_tool, its context, its end), in µs. */
  readonly spanCodePerCallUs: number
}

export type TracingSection = { readonly columns: readonly TracingColumn[] } | { readonly failed: string }

const CALLS = 200
const REFILL_PAUSE_MS = 30
export const TRACING_GOALS = { runShare: 0.01, perCallUs: 2 } as const

function registerInMemorySdk(sdk: 'simple' | 'batch'): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  const exporter = new InMemorySpanExporter()
  const processor = sdk === 'simple' ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }))
  // The exporter keeps every span: emptied now and then, so memory does not grow through the loops.
  setInterval(() => exporter.reset(), 200).unref()
}

/**
 * µs per round of `round`, after a warm-up. The loop yields to the event loop every 200 rounds,
 * as a server does between requests: a batching processor exports then (its cost is counted), and
 * does not fill its queue and drop what it cannot hold.
 */
async function microseconds(rounds: number, round: () => void): Promise<number> {
  const loop = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      round()
      if (index % 200 === 199) await new Promise(resolve => setImmediate(resolve))
    }
  }
  await loop(rounds / 10)
  const start = performance.now()
  await loop(rounds)
  return ((performance.now() - start) * 1_000) / rounds
}

async function measureSpanCode(rounds: number): Promise<{ perRunUs: number; perCallUs: number }> {
  // The span code on its own, from the build (from bench/dist): not part of the package's surface.
  const { RunTrace } = (await import(
    new URL('../../packages/code-mode/dist/src/run/run-trace.js', import.meta.url).href
  )) as typeof RunTraceModule
  const { AcquireSpan } = (await import(
    new URL('../../packages/engine/dist/src/host/acquire-span.js', import.meta.url).href
  )) as typeof AcquireSpanModule
  const facts = { backend: 'worker-thread', typeCheck: 'off' }
  const result = { logs: [], calls: [], usage: { wallMs: 1, busyMs: 1, bindingCalls: 0, outputBytes: 1 } }
  const oneRun = (calls: number): void => {
    const run = new RunTrace('return 1', facts, {})
    const execute = run.execute()
    // The engine's wait for its substrate, made under the run's execute span as a run makes it.
    execute.activeDuring(() => new AcquireSpan(false)).acquired('ready')
    for (let index = 0; index < calls; index++) {
      const call = execute.toolCall('noop', index)
      call.arguments({})
      call.run(() => null)
      call.succeed(null)
    }
    execute.ended(result)
    run.end({ errorKind: undefined, usage: result.usage, calls })
  }
  const perRunUs = await microseconds(rounds, () => oneRun(0))
  const perCallUs = ((await microseconds(rounds, () => oneRun(10))) - perRunUs) / 10
  return { perRunUs, perCallUs }
}

/** Measures in this process, with or without the SDK: call it in a fresh one. */
export async function measureTracingColumn(sdk: SdkMode, runs: number): Promise<TracingColumn> {
  if (sdk !== 'none') registerInMemorySdk(sdk)
  const started = await startCodeRuntime(WorkerThreadCodeRuntime, {})
  try {
    const noop = {
      name: 'noop',
      inputSchema: { type: 'object' },
      concurrencySafe: true,
      execute: () => Promise.resolve(null),
    }
    const codeMode = createCodeMode({ tools: [noop], runtime: started.runtime, typeCheck: 'off' })
    const timed = async (code: string): Promise<number[]> => {
      const samples: number[] = []
      for (let index = 0; index < runs + 2; index++) {
        await sleep(REFILL_PAUSE_MS)
        const start = performance.now()
        const output = await codeMode.run(code)
        if (output.isError) throw new Error(output.text)
        if (index >= 2) samples.push(performance.now() - start)
      }
      return samples
    }
    const trivialMs = summarizeSamples(await timed('return 1')).median
    const callsMs = summarizeSamples(await timed(`for (let i = 0; i < ${CALLS}; i++) await tools.noop({})`)).median
    // A recorded span costs the SDK tens of µs: fewer rounds, the same precision.
    const spanCode = await measureSpanCode(sdk === 'none' ? 50_000 : 2_000)
    return { sdk, trivialMs, callsMs, spanCodePerRunUs: spanCode.perRunUs, spanCodePerCallUs: spanCode.perCallUs }
  } finally {
    await started.dispose()
  }
}

/** Every column, each in a fresh process (a registered SDK cannot be taken back); a failure is reported, not thrown. */
export async function measureTracingSection(
  isQuick: boolean,
  progress: (line: string) => void,
): Promise<TracingSection> {
  const script = fileURLToPath(import.meta.url)
  const columns: TracingColumn[] = []
  try {
    for (const sdk of SDK_MODES) {
      progress(`tracing: measuring with sdk ${sdk} in a child process`)
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [script, '--json', '--sdk', sdk, '--runs', isQuick ? '10' : '40'],
        { maxBuffer: 1024 * 1024 },
      )
      columns.push(JSON.parse(stdout) as TracingColumn)
    }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
  return { columns }
}

const SDK_LABELS: Readonly<Record<SdkMode, string>> = {
  none: 'no SDK registered',
  simple: 'SDK, in-memory exporter, each span exported as it ends',
  batch: 'SDK, in-memory exporter, batched (as OTLP export is)',
}

export function renderTracingSection(section: TracingSection): string {
  if ('failed' in section) return `## Tracing\n\nNot measured: ${section.failed}\n`
  const perCallMs = (column: TracingColumn): number => (column.callsMs - column.trivialMs) / CALLS
  const rows = section.columns.map(
    column =>
      `| ${SDK_LABELS[column.sdk]} | ${formatMs(column.trivialMs)} ms | ${(perCallMs(column) * 1_000).toFixed(1)} µs | ${column.spanCodePerRunUs.toFixed(2)} µs | ${column.spanCodePerCallUs.toFixed(2)} µs |`,
  )
  const lines = [
    '## Tracing',
    '',
    `Code Mode on worker-thread, check off: a trivial run (\`return 1\`, median, after a ${REFILL_PAUSE_MS} ms refill pause), the cost of one tool call (a run of ${CALLS} sequential calls minus the trivial run, over ${CALLS}), and the span code alone (one run's spans and metrics, one call's, built, ended and recorded in a loop with no runtime; with an SDK that includes the SDK's own work for each span it records), each column in a fresh process.`,
    '',
    '| | trivial run | per call | span code per run | span code per call |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ]
  const off = section.columns.find(column => column.sdk === 'none')
  if (off !== undefined) {
    const share = off.spanCodePerRunUs / 1_000 / off.trivialMs
    const met = (isMet: boolean): string => (isMet ? 'met' : 'not met')
    lines.push(
      `With no SDK, the span code is ${(share * 100).toFixed(3)} % of the median trivial run (goal < ${TRACING_GOALS.runShare * 100} %: ${met(share < TRACING_GOALS.runShare)}) and ${off.spanCodePerCallUs.toFixed(2)} µs per call (goal < ${TRACING_GOALS.perCallUs} µs: ${met(off.spanCodePerCallUs < TRACING_GOALS.perCallUs)}).`,
      '',
    )
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      sdk: { type: 'string', default: 'none' },
      runs: { type: 'string', default: '40' },
      json: { type: 'boolean', default: false },
    },
  })
  const sdk = SDK_MODES.find(mode => mode === values.sdk) ?? 'none'
  const column = await measureTracingColumn(sdk, Number(values.runs))
  process.stdout.write(
    values.json === true ? `${JSON.stringify(column)}\n` : renderTracingSection({ columns: [column] }),
  )
  // The in-memory SDK's interval and the runtime are gone; nothing else keeps the process.
}
