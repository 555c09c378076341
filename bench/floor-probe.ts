/**
 * The spawn and context floors under every backend, measured in the same run: what a bare thread,
 * a bare child process and a fresh `vm` context cost on this machine right now, with nothing of
 * ours in them. Each floor is its own module; this one holds their common shape and takes their
 * samples interleaved, so all floors see the same minutes of the machine.
 */
import type { MeasurePlan } from './measure.js'
import { summarizeSamples, type SampleSummary } from './statistics.js'

/** The floors, by the name the report and the backend table use. */
export type FloorName = 'bare-worker' | 'bare-child' | 'bare-bwrap-child' | 'live-worker-vm'

/** One timed round of a floor. */
export interface FloorRound {
  /** Wall time from the start to the first message, in ms. */
  readonly wallMs: number
  /** CPU time of somebody other than the host process (a child's own), in ms, when the floor can tell. */
  readonly otherCpuMs?: number
}

/** A floor ready to be timed, round after round. */
export interface FloorProbe {
  readonly name: FloorName
  /** One line for the report: what a round does. */
  readonly description: string
  /** What the host's CPU per round covers, for the report. */
  readonly cpuCovers: string
  /** What the other CPU per round covers, when the floor reports one. */
  readonly otherCpuCovers?: string
  round(): Promise<FloorRound>
  dispose(): Promise<void>
}

/** One floor's measurement. */
export interface FloorResult {
  readonly name: FloorName
  readonly description: string
  readonly wallMs: SampleSummary
  readonly samples: readonly number[]
  /** Host process CPU (all its threads) per round, in ms, including a round's teardown. */
  readonly hostCpuMsPerRound: number
  readonly cpuCovers: string
  readonly otherCpuMsPerRound?: number
  readonly otherCpuCovers?: string
}

/**
 * Times every probe `plan.warmupRuns` + `plan.runs` times, one round of each in turn; the warm-up
 * rounds are discarded. Host CPU is read around each round (nothing else of the bench runs then).
 */
export async function measureFloors(probes: readonly FloorProbe[], plan: MeasurePlan): Promise<FloorResult[]> {
  const walls = probes.map((): number[] => [])
  const hostCpu = probes.map(() => 0)
  const otherCpu = probes.map(() => 0)
  for (let index = 0; index < plan.warmupRuns + plan.runs; index++) {
    for (const [probeIndex, probe] of probes.entries()) {
      const cpuAtStart = process.cpuUsage()
      const round = await probe.round()
      const cpu = process.cpuUsage(cpuAtStart)
      if (index < plan.warmupRuns) continue
      walls[probeIndex]?.push(round.wallMs)
      hostCpu[probeIndex] = (hostCpu[probeIndex] ?? 0) + (cpu.user + cpu.system) / 1_000
      otherCpu[probeIndex] = (otherCpu[probeIndex] ?? 0) + (round.otherCpuMs ?? 0)
    }
  }
  return probes.map((probe, probeIndex) => {
    const samples = walls[probeIndex] ?? []
    const result: FloorResult = {
      name: probe.name,
      description: probe.description,
      wallMs: summarizeSamples(samples),
      samples,
      hostCpuMsPerRound: (hostCpu[probeIndex] ?? 0) / plan.runs,
      cpuCovers: probe.cpuCovers,
    }
    return probe.otherCpuCovers === undefined
      ? result
      : { ...result, otherCpuMsPerRound: (otherCpu[probeIndex] ?? 0) / plan.runs, otherCpuCovers: probe.otherCpuCovers }
  })
}
