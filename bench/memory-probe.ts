/**
 * Entry of the fresh process that measures the memory workload for one column: starts the
 * backend (or the floor) named in its one argument, measures, and prints the measurement as one
 * JSON line. Started by measureMemoryInFreshProcess; not meant to be run by hand.
 */
import { BACKENDS, describeError, loadBackend, type BenchStarter } from './backends.js'
import { floorStarter } from './baseline-floor.js'
import { measureMemory, type MemoryProbeRequest } from './measure-memory.js'
import type { Measurement } from './measure.js'
import { keyedPerCaller } from './reuse-variants.js'
import { WORKLOADS, type MemoryWorkload } from './workloads.js'

async function starterFor(backendName: string | null): Promise<BenchStarter> {
  if (backendName === null) return floorStarter
  const entry = BACKENDS.find(backend => backend.name === backendName)
  if (entry === undefined) throw new Error(`unknown backend '${backendName}'`)
  const load = await loadBackend(entry)
  if (!load.ok) throw new Error(load.reason)
  return load.backend
}

async function probe(request: MemoryProbeRequest): Promise<Measurement> {
  const workload = WORKLOADS.find((candidate): candidate is MemoryWorkload => candidate.kind === 'memory')
  if (workload === undefined) throw new Error('no memory workload is defined')
  const starter = await starterFor(request.backend)
  const runtime = await (request.isKeyedPerCaller ? keyedPerCaller(starter) : starter).start(request.config)
  try {
    return await measureMemory(runtime, workload, request.counts, request.callers, request.settleMs)
  } finally {
    await runtime.dispose()
  }
}

let measurement: Measurement
try {
  // The parent is the benchmark itself, so its argument is trusted to be a MemoryProbeRequest.
  measurement = await probe(JSON.parse(process.argv[2] ?? '') as MemoryProbeRequest)
} catch (error) {
  measurement = { kind: 'failed', reason: describeError(error) }
}
process.stdout.write(`${JSON.stringify(measurement)}\n`)
