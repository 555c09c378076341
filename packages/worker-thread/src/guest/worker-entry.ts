/**
 * The worker thread's main module: prepares a fresh context before any program arrives, tells
 * the host it is ready, and relays messages between the host's port and the guest session. It
 * also enforces the array-buffer budget and, in the opt-in reuse mode, refuses to be recycled
 * once a program armed work that could run after its run ended.
 */
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'
import type vm from 'node:vm'
import { ARRAY_BUFFER_EXIT_CODE, collectGarbage, externalMemoryBytes } from '../array-buffer-budget.js'
import { readWorkerLimits } from '../worker-limits.js'
import { readContextCodeCaches } from './bundle-code-cache.js'
import { readCodeCacheHandoff } from './code-cache-handoff.js'
import {
  GuestSession,
  hardenRealm,
  installContextGuards,
  useContextScriptCodeCaches,
  type GuestChannel,
} from '@code-runtime/engine/guest'

// The build reads the caches after preparing one context, to write the file read below; a test
// checks that a fresh worker's in-context scripts accept theirs.
export { contextScriptCodeCaches, rejectedContextScriptCodeCaches } from '@code-runtime/engine/guest'

const port = parentPort
if (port === null) throw new Error('worker-entry must run in a worker thread')
const limits = readWorkerLimits(workerData)

// A program's forgotten rejection is its own business; in Node's default mode it would crash
// the substrate and hide the program's real outcome.
process.on('unhandledRejection', () => {})

// The in-context scripts compile from the code caches made earlier in this process when the host
// hands them over (code-cache-handoff.ts), else from those the build wrote beside this bundle
// (none beside the unbundled module, which then compiles them plainly).
useContextScriptCodeCaches(
  readCodeCacheHandoff(workerData).caches?.contexts ?? readContextCodeCaches(fileURLToPath(import.meta.url)),
)

/**
 * Over the budget, the worker ends itself at once, even deep inside a synchronous loop of the
 * program (termination cannot be caught); the host reads the exit code and names the budget.
 * The measurement counts dropped buffers V8 has not collected yet (it lets them add up to about
 * 64 MiB or more before it does), so a reading over the budget is confirmed after a collection:
 * a program churning through short-lived buffers is not stopped for its garbage.
 */
function checkArrayBuffers(pendingBytes: number): void {
  const pending = pendingBytes > 0 ? pendingBytes : 0
  const overBudget = (): boolean => externalMemoryBytes() + pending > limits.maxArrayBufferBytes
  if (!overBudget()) return
  if (collectGarbage() && !overBudget()) return
  process.exit(ARRAY_BUFFER_EXIT_CODE)
}

/** Set once any program on this worker armed a FinalizationRegistry or Atomics.waitAsync. */
let deferredWorkArmed = false
const prepareContext = (context: vm.Context): void => {
  installContextGuards(context, {
    checkArrayBuffers,
    reportDeferredWork: () => {
      deferredWorkArmed = true
    },
  })
}

function post(message: unknown): void {
  try {
    port?.postMessage(message)
  } catch {
    // Only plain data is ever sent; a failure here means the port is closing.
  }
}
const channel: GuestChannel = {
  // A log line goes as a bare string: no envelope to serialize on the busiest path.
  send: message => post(message.kind === 'log-line' ? message.text : message),
}
let session = new GuestSession(channel, { prepareContext })
hardenRealm()
/** Message-time checks are spaced out: 10 000 tool results in a burst must not pay 10 000 of them. */
const MESSAGE_CHECK_INTERVAL_MS = 10
let lastMessageCheck = Number.NEGATIVE_INFINITY
port.on('message', (raw: unknown) => {
  // Buffers allocated by paths the in-context guard does not see are caught whenever the
  // program lets the worker handle a message (a tool result, the next run).
  const now = performance.now()
  if (now - lastMessageCheck >= MESSAGE_CHECK_INTERVAL_MS) {
    lastMessageCheck = now
    checkArrayBuffers(0)
  }
  // In the opt-in reuse mode the host asks for a fresh context after a run that ended cleanly;
  // every other message belongs to the current session.
  if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'recycle') {
    // The old context's promise reactions have drained (this handler is a task of its own), so
    // only engine-armed work can still run its code later: then this worker must not serve
    // another run. Exiting makes the host replace it.
    if (deferredWorkArmed) process.exit(0)
    session = new GuestSession(channel, { prepareContext })
    port.postMessage({ kind: 'guest-ready' })
    return
  }
  session.receive(raw)
})
port.postMessage({ kind: 'guest-ready' })
