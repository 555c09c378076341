/**
 * The child process's main module: the shared guest runtime of the worker-thread backend,
 * wired to the framed pipe instead of a worker port. It prepares a fresh context before any
 * program arrives, tells the host it is ready, and relays messages both ways.
 */
import { GuestSession, hardenRealm } from '@code-runtime/engine/guest'
import { openChildChannel } from './child-channel.js'

// A program's forgotten rejection is its own business; in Node's default mode it would crash
// the substrate and hide the program's real outcome.
process.on('unhandledRejection', () => {})

// First of all: no descriptor of the host's survives into anything the program can reach.
const channel = openChildChannel(process.argv)
const session = new GuestSession({ send: (message) => channel.send(message) })
hardenRealm()
channel.attach({ receive: (message) => session.receive(message) })
channel.send({ kind: 'guest-ready' })
