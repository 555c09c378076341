// @code-runtime/engine/guest, the guest half: the runtime inside a substrate. A backend's entry
// module (a worker's, a child process's) wires it to its transport: it creates a GuestSession
// with a channel to the host, hardens the realm, and relays the host's messages to the session.
export { GuestSession, type GuestChannel, type GuestSessionOptions } from './guest-runtime.js'
export { hardenRealm } from './harden-realm.js'
// Optional guards a backend installs in each context it prepares (the worker-thread backend does)
export { installContextGuards, type ContextGuardHooks } from './context-guards.js'
// V8 code caches of the in-context scripts, made at build time and offered at start
export {
  contextScriptCodeCaches,
  rejectedContextScriptCodeCaches,
  useContextScriptCodeCaches,
} from './context-script.js'
