/**
 * The type check's speed (issue 15, item 5): a realistic 60-line program checked against the SDK
 * of the 109-tool corpus (the five servers of packages/code-mode/test/fixtures/corpus). Measured in
 * a fresh Node process, so the first check pays what it pays after a start: importing TypeScript,
 * parsing the ES2022 library and the SDK, then checking. Then warm checks, each of a slightly
 * different program (a changed literal), as a model's successive programs are. Reports the
 * median and p90 of the warm check, the first check, and the resident set of the checker's process.
 *
 * On its own: `node --expose-gc bench/dist/type-check.js [--checks N] [--json]`.
 * `npm run bench` runs it in a child process (see {@link measureTypeCheckInChild}).
 */
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { createCodeMode, type CodeModeToolDescription } from '@code-runtime/code-mode'
import { formatMs, summarizeSamples, type SampleSummary } from './statistics.js'

/** What one measurement gives. */
export interface TypeCheckMeasurement {
  /** Tools in the SDK the program is checked against. */
  readonly tools: number
  /** Lines of the program. */
  readonly programLines: number
  /** Whether the program passed with no diagnostic at all (it should: the bench measures the common case). */
  readonly isClean: boolean
  /** The first check after the process started, TypeScript's import included, in ms. */
  readonly firstMs: number
  /** Warm checks, each of a new program text. */
  readonly warmChecks: number
  /** The warm checks' times, in ms. */
  readonly warm: SampleSummary
  /**
   * The same checks' CPU time of this process and of Code Mode's checker child (user + system,
   * every thread: V8's garbage collector helpers too), in ms: what a check costs the machine,
   * whatever else runs on it.
   */
  readonly warmCpu: SampleSummary
  readonly firstCpuMs: number
  /** The checker child's resident set after the warm checks, in MiB; NaN where it cannot be read (no /proc). */
  readonly checkerRssMiB: number
}

export const TYPE_CHECK_GOALS = { warmMedianMs: 30, firstMs: 1_000 } as const

const CORPUS_SERVERS = ['everything', 'filesystem', 'memory', 'sequential-thinking', 'synthetic']

function readCorpus(): CodeModeToolDescription[] {
  return CORPUS_SERVERS.flatMap(server => {
    const url = new URL(`../../packages/code-mode/test/fixtures/corpus/${server}.json`, import.meta.url)
    return (JSON.parse(readFileSync(url, 'utf8')) as { tools: CodeModeToolDescription[] }).tools
  })
}

/** A program as a model writes one: reads, a graph update, parallel calls, a summary. `variant` changes a literal. */
export function benchProgram(variant: number): string {
  return `// Review the notes under /data/notes and record what they mention in the memory graph.
const root = '/data/notes'
const listing = await tools.list_directory({ path: root })
const names = listing.content
  .split('\\n')
  .filter((line) => line.startsWith('[FILE]') && line.endsWith('.md'))
  .map((line) => line.slice('[FILE] '.length).trim())
console.log(\`found \${names.length} notes\`)

interface Mention { readonly file: string; readonly person: string; readonly line: number }

const files = await tools.read_multiple_files({ paths: names.map((name) => \`\${root}/\${name}\`) })
const mentions: Mention[] = []
for (const block of files.content.split('\\n---\\n')) {
  const [header, ...lines] = block.split('\\n')
  const file = header?.replace(/:$/, '') ?? 'unknown'
  lines.forEach((text, index) => {
    for (const match of text.matchAll(/@([A-Z][a-z]+)/g)) {
      mentions.push({ file, person: match[1] ?? '', line: index + 1 })
    }
  })
}

const byPerson = new Map<string, Mention[]>()
for (const mention of mentions) {
  const list = byPerson.get(mention.person) ?? []
  list.push(mention)
  byPerson.set(mention.person, list)
}

const graph = await tools.search_nodes({ query: 'person' })
const known = new Set(graph.entities.map((entity) => entity.name))
const fresh = [...byPerson.keys()].filter((person) => !known.has(person))
if (fresh.length > 0) {
  await tools.create_entities({
    entities: fresh.map((name) => ({ name, entityType: 'person', observations: [\`first seen in run ${variant}\`] })),
  })
}
const observations = [...byPerson.entries()].map(([entityName, list]) => ({
  entityName,
  contents: list.slice(0, ${3 + (variant % 5)}).map((mention) => \`mentioned in \${mention.file}:\${mention.line}\`),
}))
const added = await tools.add_observations({ observations })
const relations = mentions
  .filter((mention, index) => index > 0 && mentions[index - 1]?.file === mention.file)
  .map((mention, index) => ({ from: mention.person, to: mentions[index]?.person ?? mention.person, relationType: 'co-mentioned' }))
await tools.create_relations({ relations })

const [info, sum] = await Promise.all([
  tools.get_file_info({ path: root }),
  tools.get_sum({ a: mentions.length, b: fresh.length }),
])
const summary = {
  notes: names.length,
  people: byPerson.size,
  added: added.results.reduce((total, result) => total + result.addedObservations.length, 0),
  info: info.content.split('\\n')[0],
  sum,
}
return summary
`
}

/** The pid of this process's one child, Code Mode's checker, once it runs; undefined where `ps` cannot tell. */
function checkerPid(): number | undefined {
  try {
    // `ps` is a child too while it lists them: only the Node ones count.
    const listed = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    const pids = listed
      .split('\n')
      .map(line => line.trim().split(/\s+/))
      .filter(([, command]) => command === 'node')
      .map(([pid]) => Number(pid))
    return pids.length === 1 ? pids[0] : undefined
  } catch {
    return undefined
  }
}

/** CPU time of `pid` so far (user + system), in ms, from /proc; 0 when it cannot be read. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / 100
  } catch {
    return 0
  }
}

function residentMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kib === undefined ? Number.NaN : Number(kib) / 1024
  } catch {
    return Number.NaN
  }
}

/** Measures in this process: call it in a fresh one, or the first check is not a first check. */
export async function measureTypeCheck(warmChecks: number): Promise<TypeCheckMeasurement> {
  const tools = readCorpus().map(tool => ({ ...tool, execute: () => Promise.resolve(null) }))
  const codeMode = createCodeMode({ tools, runtime: { run: () => Promise.reject(new Error('the bench only checks')) } })
  const ownCpuMs = (): number => {
    const own = process.cpuUsage()
    return (own.user + own.system) / 1_000
  }
  const firstStart = performance.now()
  const firstCpuStart = ownCpuMs()
  const first = await codeMode.check(benchProgram(0))
  const firstMs = performance.now() - firstStart
  // The checker child's CPU counts too: all of it for the first check, which started it.
  const child = checkerPid()
  const firstCpuMs = ownCpuMs() - firstCpuStart + processCpuMs(child)
  const cpuNow = (): number => ownCpuMs() + processCpuMs(child)
  const samples: number[] = []
  const cpuSamples: number[] = []
  for (let index = 1; index <= warmChecks; index++) {
    const start = performance.now()
    const cpuStart = cpuNow()
    await codeMode.check(benchProgram(index))
    samples.push(performance.now() - start)
    cpuSamples.push(cpuNow() - cpuStart)
  }
  return {
    tools: tools.length,
    programLines: benchProgram(0).split('\n').length - 1,
    isClean: !first.refused && first.hints.length === 0,
    firstMs,
    warmChecks,
    warm: summarizeSamples(samples),
    warmCpu: summarizeSamples(cpuSamples),
    firstCpuMs,
    checkerRssMiB: residentMiB(child),
  }
}

/** Runs the measurement in a fresh Node process and reads its JSON. */
export async function measureTypeCheckInChild(warmChecks: number): Promise<TypeCheckMeasurement> {
  const script = fileURLToPath(import.meta.url)
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', script, '--json', '--checks', String(warmChecks)],
    { maxBuffer: 1024 * 1024 },
  )
  return JSON.parse(stdout) as TypeCheckMeasurement
}

/** The report's section: one table and what it measured. */
export function renderTypeCheckSection(measurement: TypeCheckMeasurement): string[] {
  const { warm, warmCpu, firstMs, firstCpuMs, checkerRssMiB } = measurement
  const met = (value: number, goal: number): string => (value <= goal ? 'met' : 'not met')
  return [
    '## Type check',
    '',
    `A ${measurement.programLines}-line program checked against the SDK of the ${measurement.tools}-tool corpus (mode \`calls\`), in a fresh process: the first check includes importing TypeScript and parsing the library and the SDK; then ${measurement.warmChecks} warm checks, each of a program with one literal changed.${measurement.isClean ? '' : ' ⚠ The program did not pass clean.'}`,
    '',
    '| | warm median | warm p90 | warm min | first check | RSS of the checker process |',
    '|---|---|---|---|---|---|',
    `| wall | ${formatMs(warm.median)} ms (goal ≤ ${TYPE_CHECK_GOALS.warmMedianMs}: ${met(warm.median, TYPE_CHECK_GOALS.warmMedianMs)}) | ${formatMs(warm.p90)} ms | ${formatMs(warm.min)} ms | ${formatMs(firstMs)} ms (goal ≤ ${TYPE_CHECK_GOALS.firstMs}: ${met(firstMs, TYPE_CHECK_GOALS.firstMs)}) | ${Number.isNaN(checkerRssMiB) ? 'n/a' : `${checkerRssMiB.toFixed(1)} MiB`} |`,
    `| CPU | ${formatMs(warmCpu.median)} ms | ${formatMs(warmCpu.p90)} ms | ${formatMs(warmCpu.min)} ms | ${formatMs(firstCpuMs)} ms | |`,
    '',
    "Wall time is what a caller waits: on a shared machine it includes waiting for a core, and the min is the closest to an idle machine. CPU time counts this process and the checker's child process, every thread of each (the garbage collector's helpers too), so it can exceed the wall time of the single-threaded check; the first check's includes the child's start.",
    '',
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { checks: { type: 'string', default: '60' }, json: { type: 'boolean', default: false } },
  })
  const measurement = await measureTypeCheck(Number(values.checks))
  process.stdout.write(
    values.json === true ? `${JSON.stringify(measurement)}\n` : `${renderTypeCheckSection(measurement).join('\n')}\n`,
  )
}
