/**
 * The reuse columns: a backend with a reuse mode is measured twice more, with `reuseWorkers: true`
 * and no key (every run may share a worker), and with a `reuseKey` per caller (the multi-tenant
 * setting: 4 callers are 4 tenants, so at most one worker per caller is recycled). Backends
 * without a reuse mode get no such columns.
 */
import type { BenchRuntimeConfig, BenchStarter } from './backends.js'
import { WORKLOAD_NAMES, type WorkloadName } from './workloads.js'

/** One reuse column of a backend. */
export interface ReuseVariant {
  /** Appended to the backend's name: `worker-thread reuse`. */
  readonly suffix: 'reuse' | 'reuse-key'
  readonly config: BenchRuntimeConfig
  /** Whether each request carries the key of its caller. */
  readonly isKeyedPerCaller: boolean
}

export const REUSE_VARIANTS: readonly ReuseVariant[] = [
  { suffix: 'reuse', config: { reuseWorkers: true }, isKeyedPerCaller: false },
  { suffix: 'reuse-key', config: { reuseWorkers: true }, isKeyedPerCaller: true },
]

/**
 * Workloads the reuse columns skip: hotloop and abort end with the worker stopped, so reuse cannot
 * change them (and hotloop costs a second per run); a session never takes a recycled worker.
 */
const NOT_REUSED: readonly WorkloadName[] = ['hotloop', 'abort', 'session']

/** The workloads the reuse columns run. */
export const REUSE_WORKLOADS: readonly WorkloadName[] = WORKLOAD_NAMES.filter(name => !NOT_REUSED.includes(name))

/** The peer the reuse columns are compared to: the target is its throughput. */
export const REUSE_TARGET_PEER = 'isolated-vm'

/** The `reuseKey` caller `caller` sends: one tenant per concurrent caller. */
export function reuseKeyOf(caller: number | undefined): string {
  return `tenant-${caller ?? 0}`
}

/** `starter`, with every request of its runtimes carrying its caller's `reuseKey`. */
export function keyedPerCaller(starter: BenchStarter): BenchStarter {
  return {
    async start(config) {
      const runtime = await starter.start(config)
      return {
        run: (request, caller) => runtime.run({ ...request, reuseKey: reuseKeyOf(caller) }, caller),
        dispose: () => runtime.dispose(),
      }
    },
  }
}
