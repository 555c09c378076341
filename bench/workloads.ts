/**
 * What the benchmark runs: each workload of issue 3 as a program, the bindings it calls, the
 * config it needs, how one run becomes a number, and how to tell a run that did the work from one
 * that failed (a failed run is reported, never silently timed).
 */
import type { CodeBindingNamespace, CodeJsonValue, CodeRunFailureKind, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntimeConfig } from './backends.js'

/** Every workload, in report order. */
export const WORKLOAD_NAMES = [
  'trivial',
  'trivial-b2b',
  'session',
  'ts',
  'seq100',
  'par100',
  'calls10k',
  'bigvalue',
  'logs',
  'hotloop',
  'abort',
  'throughput1',
  'throughput',
  'memory',
] as const

export type WorkloadName = (typeof WORKLOAD_NAMES)[number]

/**
 * How one sampled run becomes a number: the caller's elapsed time, the elapsed time past the
 * compute budget, or the time from `abort()` to the settled result.
 */
export type SampleMetric = 'elapsed' | 'overshoot' | 'abort-settle'

/** Returns what went wrong with a run's result, or `undefined` when the run did the work. */
export type ResultCheck = (result: CodeRunResult) => string | undefined

interface WorkloadBase {
  readonly name: WorkloadName
  /** One line for the report. */
  readonly description: string
  readonly program: string
  readonly check: ResultCheck
  /** When set, the cold-spawn baseline is not run for this workload, for this reason. */
  readonly coldSkipReason?: string
}

/** Runs one at a time and reports median and p90 of the samples, in milliseconds. */
export interface SampledWorkload extends WorkloadBase {
  readonly kind: 'sampled'
  readonly metric: SampleMetric
  /** Config on top of the subject's own (for example a compute budget). */
  readonly config: BenchRuntimeConfig
  /** For `abort-settle`: how long after the run starts to abort it. */
  readonly abortAfterMs?: number
  /**
   * Runs follow one another with no pause, and each column is measured alone (interleaving would
   * give a pool the other columns' runs as time to refill): what a stream of callers sees.
   */
  readonly isBackToBack?: boolean
  /** Every sampled run goes to one open session, after a first run that is not measured (session-runs.ts). */
  readonly inSession?: boolean
}

/** Concurrent callers running the program back to back; reports runs per second. */
export interface ThroughputWorkload extends WorkloadBase {
  readonly kind: 'throughput'
  /** Concurrent callers; absent: the plan's `callers`. */
  readonly callers?: number
}

/** Host RSS after a first batch of runs and after many more. */
export interface MemoryWorkload extends WorkloadBase {
  readonly kind: 'memory'
}

export type Workload = SampledWorkload | ThroughputWorkload | MemoryWorkload

/** The compute budget of the `hotloop` workload, in milliseconds. */
export const HOTLOOP_COMPUTE_MS = 1_000

/** How long into a run the `abort` workload aborts it, in milliseconds. */
export const ABORT_AFTER_MS = 100

/** The size the `bigvalue` binding's result is built to, in bytes of compact JSON. */
export const BIG_VALUE_TARGET_BYTES = 5 * 1024 * 1024

/** The `bigvalue` binding's result: an array of small records, built once per process. */
export interface BigValue {
  readonly rows: CodeJsonValue[]
  /** Bytes of its compact JSON. */
  readonly jsonBytes: number
}

let bigValue: BigValue | undefined

/** Builds (once) the ~5 MB array the `bigvalue` binding resolves with. */
export function buildBigValue(): BigValue {
  if (bigValue !== undefined) return bigValue
  const rows: CodeJsonValue[] = []
  // The array's brackets, then each row plus its separating comma.
  let jsonBytes = 2
  for (let id = 0; jsonBytes < BIG_VALUE_TARGET_BYTES; id++) {
    const row: CodeJsonValue = {
      id,
      sku: `SKU-${String(id).padStart(6, '0')}`,
      name: `Item number ${id}`,
      price: Math.round(id * 7.31) / 100,
      inStock: id % 3 !== 0,
      tags: ['bench', id % 2 === 0 ? 'even' : 'odd'],
      warehouse: { region: 'eu-west', shelf: id % 97 },
    }
    rows.push(row)
    jsonBytes += Buffer.byteLength(JSON.stringify(row)) + (rows.length > 1 ? 1 : 0)
  }
  bigValue = { rows, jsonBytes }
  return bigValue
}

/**
 * The one namespace every workload gets, so the run-start message is the same size everywhere:
 * `tools.echo(args)` resolves with its argument, `tools.bigValue()` with the big value,
 * `tools.never()` never settles.
 */
export function benchBindings(): CodeBindingNamespace[] {
  return [
    {
      global: 'tools',
      functions: {
        echo: args => Promise.resolve(args as CodeJsonValue),
        bigValue: () => Promise.resolve(buildBigValue().rows),
        never: () => new Promise<CodeJsonValue>(() => {}),
      },
    },
  ]
}

function describeFailure(result: CodeRunResult): string | undefined {
  if (result.error === undefined) return undefined
  return `${result.error.kind}: ${result.error.message.slice(0, 200)}`
}

function expectValue(expected: () => CodeJsonValue): ResultCheck {
  return result => {
    const failure = describeFailure(result)
    if (failure !== undefined) return failure
    if (result.value === expected()) return undefined
    return `returned ${JSON.stringify(result.value)?.slice(0, 80) ?? 'nothing'}, expected ${JSON.stringify(expected())}`
  }
}

function expectFailure(kind: CodeRunFailureKind): ResultCheck {
  return result =>
    result.error?.kind === kind
      ? undefined
      : `expected a '${kind}' failure, got ${describeFailure(result) ?? 'a value'}`
}

const TYPED_PROGRAM = `interface Item {
  readonly id: number
  readonly name: string
  readonly price: number
  readonly tags: readonly Tag[]
}

type Tag = 'red' | 'green' | 'blue'

interface Summary<K extends string> {
  readonly count: number
  readonly total: number
  readonly byTag: Record<K, number>
  readonly cheapest: Item | undefined
}

function groupBy<T, K extends string>(items: readonly T[], keysOf: (item: T) => readonly K[]): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    for (const key of keysOf(item)) {
      const group: T[] = groups.get(key) ?? []
      group.push(item)
      groups.set(key, group)
    }
  }
  return groups
}

function summarize<K extends string>(items: readonly Item[], keysOf: (item: Item) => readonly K[]): Summary<K> {
  const byTag = {} as Record<K, number>
  for (const [key, group] of groupBy<Item, K>(items, keysOf)) byTag[key] = group.length
  let cheapest: Item | undefined
  for (const item of items) if (cheapest === undefined || item.price < cheapest.price) cheapest = item
  return { count: items.length, total: items.reduce((sum: number, item: Item) => sum + item.price, 0), byTag, cheapest }
}

const palette: readonly Tag[] = ['red', 'green', 'blue']
const items: Item[] = []
for (let id = 0; id < 50; id++) {
  items.push({ id, name: \`item-\${id}\`, price: (id * 37) % 101, tags: [palette[id % 3] as Tag, palette[(id + 1) % 3] as Tag] })
}
const summary = summarize<Tag>(items, (item) => item.tags)
return { ...summary, average: summary.total / summary.count } as const`

function expectTypedSummary(result: CodeRunResult): string | undefined {
  const failure = describeFailure(result)
  if (failure !== undefined) return failure
  const count = (result.value as { count?: unknown } | undefined)?.count
  return count === 50
    ? undefined
    : `returned ${JSON.stringify(result.value)?.slice(0, 80) ?? 'nothing'}, expected an object with count 50`
}

const COLD_MEMORY_SKIP = 'thousands of cold spawns would take minutes; the cold baseline is not run for memory'

/** Every workload of the issue, in {@link WORKLOAD_NAMES} order. */
export const WORKLOADS: readonly Workload[] = [
  {
    kind: 'sampled',
    name: 'trivial',
    description: '`return 1`',
    program: 'return 1',
    metric: 'elapsed',
    config: {},
    check: expectValue(() => 1),
  },
  {
    kind: 'sampled',
    name: 'trivial-b2b',
    description:
      '`return 1`, back to back: each run starts as soon as the previous one settled, no pause for a pool to refill',
    program: 'return 1',
    metric: 'elapsed',
    config: {},
    isBackToBack: true,
    check: expectValue(() => 1),
  },
  {
    kind: 'sampled',
    name: 'session',
    description:
      '`return 1` as a later run of one open session (no spawn, its context kept), beside trivial, the same one-shot run',
    program: 'return 1',
    metric: 'elapsed',
    config: {},
    inSession: true,
    coldSkipReason: "a session's runs never wait for a spawn; the one-shot cold run is trivial's",
    check: expectValue(() => 1),
  },
  {
    kind: 'sampled',
    name: 'ts',
    description: 'a 40-line typed program (interfaces, generics, `as`) returning an object',
    program: TYPED_PROGRAM,
    metric: 'elapsed',
    config: {},
    check: expectTypedSummary,
  },
  {
    kind: 'sampled',
    name: 'seq100',
    description: '100 sequential `await tools.echo({ i })`',
    program:
      'let sum = 0\nfor (let i = 0; i < 100; i++) sum += (await tools.echo({ i }) as { i: number }).i\nreturn sum',
    metric: 'elapsed',
    config: {},
    check: expectValue(() => 4_950),
  },
  {
    kind: 'sampled',
    name: 'par100',
    description: '100 `tools.echo({ i })` under `Promise.all`',
    program:
      'const echoed = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.echo({ i }) as Promise<{ i: number }>))\nreturn echoed.reduce((sum, { i }) => sum + i, 0)',
    metric: 'elapsed',
    config: {},
    check: expectValue(() => 4_950),
  },
  {
    kind: 'sampled',
    name: 'calls10k',
    description: '10 000 sequential `await tools.echo({ i })` in one run',
    program:
      'let sum = 0\nfor (let i = 0; i < 10_000; i++) sum += (await tools.echo({ i }) as { i: number }).i\nreturn sum',
    metric: 'elapsed',
    config: {},
    check: expectValue(() => 49_995_000),
  },
  {
    kind: 'sampled',
    name: 'bigvalue',
    description: 'a binding resolves a ~5 MB JSON array of objects; the program returns its `length`',
    program: 'const rows = await tools.bigValue({}) as unknown[]\nreturn rows.length',
    metric: 'elapsed',
    config: {},
    check: expectValue(() => buildBigValue().rows.length),
  },
  {
    kind: 'sampled',
    name: 'logs',
    description: '10 000 `console.log` lines',
    program: "for (let i = 0; i < 10_000; i++) console.log('log line', i)",
    metric: 'elapsed',
    config: {},
    check: result =>
      describeFailure(result) ??
      (result.logs.length === 10_000 ? undefined : `kept ${result.logs.length} log lines, expected 10000`),
  },
  {
    kind: 'sampled',
    name: 'hotloop',
    description: `\`while (true) {}\` with computeMs ${HOTLOOP_COMPUTE_MS}: overshoot = elapsed − ${HOTLOOP_COMPUTE_MS} ms`,
    program: 'while (true) {}',
    metric: 'overshoot',
    config: { computeMs: HOTLOOP_COMPUTE_MS },
    check: expectFailure('timeout'),
  },
  {
    kind: 'sampled',
    name: 'abort',
    description: `abort ${ABORT_AFTER_MS} ms into a run awaiting a never-settling binding: time from \`abort()\` to the result`,
    program: 'await tools.never({})\nreturn 1',
    metric: 'abort-settle',
    config: {},
    abortAfterMs: ABORT_AFTER_MS,
    check: expectFailure('abort'),
  },
  {
    kind: 'throughput',
    name: 'throughput1',
    description: 'runs/s of `return 1` from one caller, back to back, no pauses, a fresh substrate per run',
    program: 'return 1',
    callers: 1,
    check: expectValue(() => 1),
  },
  {
    kind: 'throughput',
    name: 'throughput',
    description:
      "runs/s of `return 1` from concurrent callers (the plan's `callers`, 4), back to back, no pauses, a fresh substrate per run",
    program: 'return 1',
    check: expectValue(() => 1),
  },
  {
    kind: 'memory',
    name: 'memory',
    description:
      'host RSS after a first batch of `return 1` runs and after many more (worker threads live in the host process)',
    program: 'return 1',
    check: expectValue(() => 1),
    coldSkipReason: COLD_MEMORY_SKIP,
  },
]
