/**
 * The peers measured beside our backends in the same run, so a claim of "faster" is a ratio from
 * one run: the seed's reference and an isolated-vm based runner. A peer that cannot load here is
 * skipped with its reason; a workload a peer cannot run is shown as n/a with the reason.
 */
import { describeError, type BenchStarter } from './backends.js'
import { loadIsolatedVmPeer } from './peer-isolated-vm.js'
import { loadReferencePeer } from './peer-reference.js'
import type { WorkloadName } from './workloads.js'

/** One peer: its column name, what it is, and how to load it. */
export interface PeerEntry {
  readonly name: string
  /** One line for the report. */
  readonly description: string
  load(): Promise<BenchStarter>
  /** Workloads the peer does not run, each with why. */
  readonly notApplicable: Readonly<Partial<Record<WorkloadName, string>>>
}

const MEMORY_NOT_WIRED =
  'the memory workload runs in a fresh Node process that starts backends from the backend table only'

export const PEERS: readonly PeerEntry[] = [
  {
    name: 'reference',
    description:
      "the seed's reference, `@deepseek-ai/dsh-code-runtime-worker-thread` from npm: a fresh worker per run, no pool",
    load: loadReferencePeer,
    notApplicable: { memory: MEMORY_NOT_WIRED },
  },
  {
    name: 'isolated-vm',
    description:
      'a runner on `isolated-vm` (pinned): a fresh `ivm.Isolate` + context per run in the host process, bindings as `ivm.Reference`s called with `apply` (JSON string each way), `computeMs` as the script timeout, abort by disposing the isolate',
    load: loadIsolatedVmPeer,
    notApplicable: { memory: MEMORY_NOT_WIRED },
  },
]

/** The outcome of loading a peer. */
export type PeerLoad =
  | { readonly ok: true; readonly peer: PeerEntry; readonly starter: BenchStarter }
  | { readonly ok: false; readonly name: string; readonly reason: string }

/** Loads a peer; never throws. */
export async function loadPeer(peer: PeerEntry): Promise<PeerLoad> {
  try {
    return { ok: true, peer, starter: await peer.load() }
  } catch (error) {
    return { ok: false, name: peer.name, reason: describeError(error) }
  }
}
