/**
 * The benchmark's command line: `--only <workload,...>`, `--backend <name,...>`, `--quick`,
 * `--help`. Names are checked against the known ones, and a wrong one is refused with the list.
 */
import { parseArgs } from 'node:util'
import { WORKLOAD_NAMES, type WorkloadName } from './workloads.js'

/** Sections measured once, beside the table rather than per backend: `--only` names them like workloads. */
export const SECTION_NAMES = ['typecheck', 'nats', 'serve', 'tracing'] as const

export type SectionName = (typeof SECTION_NAMES)[number]

/** The parsed, checked command line. */
export interface BenchOptions {
  readonly isHelp: boolean
  readonly isQuick: boolean
  /** Selected workloads, in report order. */
  readonly workloads: readonly WorkloadName[]
  /** Selected sections (`typecheck`: the type check of Code Mode, in a child process; `nats`: the NATS backend beside the local one; `serve`: the MCP product path from a real client; `tracing`: what Code Mode's spans cost, with no SDK and with one). */
  readonly sections: readonly SectionName[]
  /** Selected backend names, in table order. */
  readonly backends: readonly string[]
  /** Whether `--only` or `--backend` narrowed the run. */
  readonly isSelection: boolean
}

export const USAGE = `Usage: npm run bench -- [--only <workload,...>] [--backend <name,...>] [--quick]

  --only      run only these workloads (${WORKLOAD_NAMES.join(', ')})
              or sections (${SECTION_NAMES.join(', ')})
  --backend   run only these backends (the in-thread floor always runs)
  --quick     fewer runs and shorter phases, for a smoke run
  --help      print this text

A full run (no --quick, --only or --backend) writes bench/RESULTS.md and bench/results.json;
any other run writes them to a fresh scratch directory under the system's temporary directory
and prints its path, so a partial run never replaces the committed results.`

/** A command line the benchmark cannot run; the message says what to change. */
export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError'
}

function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value
    .split(',')
    .map(part => part.trim())
    .filter(part => part !== '')
}

function selectNames<Name extends string>(
  flag: string,
  requested: readonly string[] | undefined,
  known: readonly Name[],
): Name[] {
  if (requested === undefined) return [...known]
  const unknown = requested.filter(name => !(known as readonly string[]).includes(name))
  if (unknown.length > 0)
    throw new BenchUsageError(
      `${flag}: unknown name ${unknown.map(name => `'${name}'`).join(', ')}; choose from ${known.join(', ')}.`,
    )
  if (requested.length === 0) throw new BenchUsageError(`${flag}: name at least one of ${known.join(', ')}.`)
  return known.filter(name => requested.includes(name))
}

/**
 * Parses the benchmark's arguments.
 * @throws {BenchUsageError} for an unknown flag, workload or backend name.
 */
export function parseBenchOptions(argv: readonly string[], backendNames: readonly string[]): BenchOptions {
  let values: { only?: string; backend?: string; quick?: boolean; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      options: {
        only: { type: 'string' },
        backend: { type: 'string' },
        quick: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error))
  }
  const selected: readonly string[] = selectNames('--only', splitList(values.only), [
    ...WORKLOAD_NAMES,
    ...SECTION_NAMES,
  ])
  return {
    isHelp: values.help === true,
    isQuick: values.quick === true,
    workloads: WORKLOAD_NAMES.filter(name => selected.includes(name)),
    sections: SECTION_NAMES.filter(name => selected.includes(name)),
    backends: selectNames('--backend', splitList(values.backend), backendNames),
    isSelection: values.only !== undefined || values.backend !== undefined,
  }
}

/** Whether a run with `options` is a full run, the only kind whose results replace the committed ones. */
export function isFullRun(options: BenchOptions): boolean {
  return !options.isQuick && !options.isSelection
}
