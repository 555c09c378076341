// examples/minimal-entry.ts: the guest's entry module, the worker's main module
import { parentPort } from 'node:worker_threads'
import { GuestSession, hardenRealm } from '@code-runtime/engine/guest'

const port = parentPort!
process.on('unhandledRejection', () => {}) // a program's forgotten rejection is its own business
const session = new GuestSession({ send: message => port.postMessage(message) })
hardenRealm()
port.on('message', raw => session.receive(raw))
port.postMessage({ kind: 'guest-ready' })
