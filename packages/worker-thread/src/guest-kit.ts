// The guest half of a substrate backend: the in-substrate runtime that prepares a fresh context,
// runs one program and talks to the host through a channel. A backend's entry module wires it
// to its transport (a worker port, a child process pipe).
export { GuestSession, type GuestChannel } from './guest/guest-runtime.js'
export { hardenRealm } from './guest/harden-realm.js'
