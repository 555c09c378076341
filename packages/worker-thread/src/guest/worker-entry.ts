/**
 * The worker thread's main module: prepares a fresh context before any program arrives, tells
 * the host it is ready, and relays messages between the host's port and the guest session.
 */
import { parentPort } from 'node:worker_threads'
import { GuestSession, type GuestChannel } from './guest-runtime.js'
import { hardenRealm } from './harden-realm.js'

const port = parentPort
if (port === null) throw new Error('worker-entry must run in a worker thread')

// A program's forgotten rejection is its own business; in Node's default mode it would crash
// the substrate and hide the program's real outcome.
process.on('unhandledRejection', () => {})

function post(message: unknown): void {
  try {
    port?.postMessage(message)
  } catch {
    // Only plain data is ever sent; a failure here means the port is closing.
  }
}
const channel: GuestChannel = {
  // A log line goes as a bare string: no envelope to serialize on the busiest path.
  send: (message) => post(message.kind === 'log-line' ? message.text : message),
}
let session = new GuestSession(channel)
hardenRealm()
port.on('message', (raw: unknown) => {
  // In the opt-in reuse mode the host asks for a fresh context after a run that ended cleanly;
  // every other message belongs to the current session.
  if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'recycle') {
    session = new GuestSession(channel)
    port.postMessage({ kind: 'guest-ready' })
    return
  }
  session.receive(raw)
})
port.postMessage({ kind: 'guest-ready' })
