/**
 * The child process's main module: the shared guest runtime of the worker-thread backend,
 * wired to the framed pipe instead of a worker port. It prepares a fresh context before any
 * program arrives, tells the host it is ready, and relays messages both ways.
 *
 * The bundle of this module is also the entry of the child's startup snapshot
 * (`startup-snapshot.ts`): built with `--build-snapshot`, its top level only defines the guest
 * runtime and leaves {@link startGuest} to run in each child restored from the blob, so nothing
 * of one child (its arguments, its wire, its session) is in the snapshot.
 */
import { startupSnapshot } from 'node:v8'
import { GuestSession, hardenRealm } from '@code-runtime/engine/guest'
import { openChildChannel } from './child-channel.js'

function startGuest(): void {
  // A program's forgotten rejection is its own business; in Node's default mode it would crash
  // the substrate and hide the program's real outcome.
  process.on('unhandledRejection', () => {})

  // First of all: no descriptor of the host's survives into anything the program can reach.
  const channel = openChildChannel(process.argv)
  const session = new GuestSession({ send: message => channel.send(message) })
  hardenRealm()
  channel.attach({ receive: message => session.receive(message) })
  channel.send({ kind: 'guest-ready' })
}

if (startupSnapshot.isBuildingSnapshot()) startupSnapshot.setDeserializeMainFunction(startGuest)
else startGuest()
