// The host half of a substrate backend, for other backends of this project to build on (the
// process and container backends add only their transport and substrate). Not a stable API for
// third parties.
export { RunEngine, runLimitsOf, type RunEngineOptions, type RunLimits, type RunLimitsConfig } from './run-engine.js'
export type { Substrate, SubstrateExit, SubstrateFactory, SubstrateListener } from './substrate.js'
export { computeTimeoutMessage, wallTimeoutMessage, type RunBudgetLimits } from './budgets.js'
export {
  decodeGuestMessage,
  decodeHostMessage,
  type CallRequestMessage,
  type CallResultMessage,
  type Decoded,
  type GuestReadyMessage,
  type GuestToHostMessage,
  type HostToGuestMessage,
  type LogLineMessage,
  type NamespaceSpec,
  type RunEndMessage,
  type RunStartMessage,
} from './protocol.js'
