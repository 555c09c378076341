/**
 * The worker thread's main module: a small loader that runs the guest bundle (`worker-entry.cjs`,
 * the real entry) through a code cache: one made earlier in this process when the host hands it
 * over, else the one the build left beside the bundle (see bundle-code-cache.ts and
 * code-cache-handoff.ts). Asked for it, it hands the caches it made back to the host.
 */
import { fileURLToPath } from 'node:url'
import { workerData } from 'node:worker_threads'
import { runBundle, type RanBundle } from './bundle-code-cache.js'
import { readCodeCacheHandoff } from './code-cache-handoff.js'

const handoff = readCodeCacheHandoff(workerData)
const bundle = runBundle(fileURLToPath(new URL('./worker-entry.cjs', import.meta.url)), true, handoff.caches?.bundle)

/** The bundle's own caches, made now: see code-cache-handoff.ts for why now is safe. */
function offerCodeCaches(ran: RanBundle): unknown {
  const { contextScriptCodeCaches } = ran.exports as { contextScriptCodeCaches?: () => Map<string, Uint8Array> }
  return { bundle: ran.script.createCachedData(), contexts: contextScriptCodeCaches?.() ?? new Map() }
}

// Still in the bundle's synchronous start: this worker has handled no message, so no program ran.
if (handoff.port !== undefined) {
  try {
    handoff.port.postMessage(offerCodeCaches(bundle))
  } finally {
    handoff.port.close()
  }
}

/**
 * Whether V8 refused the caches this worker was offered: the bundle's, and the in-context scripts'
 * compiled so far by filename. Read by a test that loads this module in a worker of its own.
 */
export function codeCacheReport(): {
  readonly bundleRejected: boolean
  readonly rejectedContextScripts: readonly string[]
} {
  const { rejectedContextScriptCodeCaches } = bundle.exports as { rejectedContextScriptCodeCaches?: () => string[] }
  return { bundleRejected: bundle.cacheRejected, rejectedContextScripts: rejectedContextScriptCodeCaches?.() ?? [] }
}
