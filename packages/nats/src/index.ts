// Runs on a fleet of runners over NATS: the caller's backend, the runner, their config and the subjects they use.

// The caller's backend (ctx.codeRuntime)
export { NatsCodeRuntime } from './nats-runtime.js'
export type { AdoptableSession } from './remote-session.js'
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LOST_AFTER_MS,
  DEFAULT_MAX_QUEUE_MS,
  resolveNatsRuntimeConfig,
  type NatsConnectionConfig,
  type NatsRuntimeConfig,
  type NatsRuntimeConfigInput,
  type NatsTlsConfig,
} from './config.js'
// The runner
export { startRunner, type Runner, type RunnerLoad, type RunnerOptions, type StartLocalBackend } from './runner.js'
// The bus between the callers of one deployment (gateway nodes)
export { connectPeerBus, PeerFailed, PeerUnreachable, type PeerBus, type PeerBusOptions } from './peer-bus.js'
// Whether a connection config authenticates (what the CLI's --nats requires unless --insecure-no-auth)
export { hasNatsCredentials } from './connection.js'
export type { RunBudgets } from './protocol.js'
// The subject layout, for deployments that set permissions
export { DEFAULT_SUBJECT_PREFIX } from './subjects.js'
