// @code-runtime/engine, the host half: what a backend author builds a CodeRuntime from. A backend
// supplies a SubstrateFactory (how a substrate starts, talks and dies); the RunEngine does the rest
// of a run (validate, transform, budgets, the binding bridge, the output ledger, the result).

// The engine a backend's `run()` delegates to, and how a backend's config becomes its limits
export {
  RunEngine,
  runLimitsOf,
  type RunEngineOptions,
  type RunLimits,
  type RunLimitsConfig,
} from './host/run-engine.js'
export { DEFAULT_IDLE_LIMITS, type IdleLimits } from './host/idle-substrates.js'

// What a backend implements
export type { SpawnOptions, Substrate, SubstrateExit, SubstrateFactory, SubstrateListener } from './host/substrate.js'

// The messages between host and guest, for a backend's transport to carry (the engine's session
// and the guest runtime decode and check them; a transport passes them on as they came)
export type { GuestToHostMessage, HostToGuestMessage } from './protocol/messages.js'

// Where the guest half lives, for a backend that starts it somewhere else (a child, a container)
export { GUEST_MODULE_URLS } from './guest-files.js'

// The transform step on its own (for example to check a program before running it)
export { transformProgram, type TransformResult } from './host/transform.js'
