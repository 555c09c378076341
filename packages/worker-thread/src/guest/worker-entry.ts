/**
 * The worker thread's main module: prepares a fresh context before any program arrives, tells
 * the host it is ready, and relays messages between the host's port and the guest session.
 */
import { parentPort } from 'node:worker_threads'
import { GuestSession } from './guest-runtime.js'
import { hardenRealm } from './harden-realm.js'

const port = parentPort
if (port === null) throw new Error('worker-entry must run in a worker thread')

// A program's forgotten rejection is its own business; in Node's default mode it would crash
// the substrate and hide the program's real outcome.
process.on('unhandledRejection', () => {})

const session = new GuestSession({
  send(message) {
    try {
      port.postMessage(message)
    } catch {
      // Only plain data is ever sent; a failure here means the port is closing.
    }
  },
})
hardenRealm()
port.on('message', (raw: unknown) => session.receive(raw))
port.postMessage({ kind: 'guest-ready' })
