/**
 * The conformance suite of `@code-runtime/core`: every rule of docs/CONTRACT.md that can be
 * observed from outside a backend, as `node:test` checks a backend's own tests register. Each
 * title ends with the anchor of the rule it checks (`[#failure-kinds]`).
 *
 * @example
 * ```ts
 * import { startCodeRuntime } from '@code-runtime/core'
 * import { runConformanceSuite } from '@code-runtime/core/conformance'
 * import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
 *
 * runConformanceSuite({
 *   name: 'worker-thread',
 *   isolation: 'worker-thread',
 *   start: (config) => startCodeRuntime(WorkerThreadCodeRuntime, config),
 * })
 * ```
 */
import { describeBuiltinLimits } from './builtin-limits.js'
import { describeCallSitePositions } from './call-site-positions.js'
import { describeDeepValues } from './deep-values.js'
import { describeFailureKinds } from './failure-kinds.js'
import { describeLifecycle } from './lifecycle.js'
import { describeObservability } from './observability.js'
import { describeLosslessJson } from './lossless-json.js'
import { describeOutputCap } from './output-cap.js'
import { describePoisonedRealm } from './poisoned-realm.js'
import { describeProgramBindings } from './program-bindings.js'
import { describeProgramGlobals } from './program-globals.js'
import { describePrograms } from './programs.js'
import { describeSeam } from './seam.js'
import { describeSessions } from './sessions.js'
import { describeStackPrivacy } from './stack-privacy.js'
import type { ConformanceTarget } from './target.js'

export type { ConformanceRuntimeConfig, ConformanceTarget } from './target.js'
export { describeHostMemory, type HostMemoryConfig, type HostMemoryTarget } from './host-memory.js'

/**
 * Registers the conformance checks for `target` as `describe`/`it` blocks of `node:test`. Call
 * it at the top level of a test file. Each block starts its own runtimes and disposes them in
 * `after`. With `runsPrograms: false` only the checks that need no program run are registered.
 */
export function runConformanceSuite(target: ConformanceTarget): void {
  const runsPrograms = target.runsPrograms ?? true
  describeSeam(target, runsPrograms)
  if (!runsPrograms) return
  describeFailureKinds(target)
  describePrograms(target)
  describeCallSitePositions(target)
  describeStackPrivacy(target)
  describeProgramBindings(target)
  describeProgramGlobals(target)
  describeLosslessJson(target)
  describeDeepValues(target)
  describePoisonedRealm(target)
  describeBuiltinLimits(target)
  describeOutputCap(target)
  describeLifecycle(target)
  describeObservability(target)
  describeSessions(target)
}
