/**
 * Code caches made in this process, for the fresh workers it spawns next. V8 accepts a code cache
 * only from a process with the same V8 flags (those V8 folds into its cache check: `--expose-gc`
 * or `--stack-size` on every version, on Node 20 even a `--max-old-space-size` in `NODE_OPTIONS`),
 * so the caches the build wrote beside the bundle are rejected as soon as the host runs with one, and every fresh worker then compiles the bundle and its in-context scripts
 * from scratch (measured: a cold `return 1` 20 → 30 ms). So the host asks one worker to hand back
 * the caches it made for itself, and gives them to every later worker.
 *
 * Trust: V8 does not verify a cache's contents (a corrupted one can crash the worker), so a cache
 * must come from code as trusted as the bundle. The worker makes it and posts it on a port of its
 * own right after the bundle's synchronous start, then closes the port: at that moment it has
 * handled no message, so no program has run in it (a program only arrives in a later message).
 * The host takes one message from that port, checks its shape and sizes, and keeps it in memory
 * only; each worker gets its own copy, so no worker can change what another one reads.
 */
import type { MessagePort } from 'node:worker_threads'

/** The caches one worker made: the bundle's, and each in-context script's by filename. */
export interface ProcessCodeCaches {
  readonly bundle: Uint8Array
  readonly contexts: ReadonlyMap<string, Uint8Array>
}

/** What `workerData` carries about code caches: the caches to use, or a port to hand them back on. */
export interface CodeCacheHandoff {
  readonly caches?: ProcessCodeCaches
  readonly port?: MessagePort
}

/** Far above the real sizes (about 35 KB for the bundle, 80 KB for all the in-context scripts). */
const MAX_CACHE_BYTES = 16 * 1024 * 1024
const MAX_CONTEXT_SCRIPTS = 256
const MAX_FILENAME_LENGTH = 256

function isCacheBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.byteLength > 0 && value.byteLength <= MAX_CACHE_BYTES
}

/** The caches in `value` when it has exactly the expected shape and sizes; undefined otherwise. Never throws. */
export function readProcessCodeCaches(value: unknown): ProcessCodeCaches | undefined {
  try {
    return readCachesOf(value)
  } catch {
    return undefined
  }
}

function readCachesOf(value: unknown): ProcessCodeCaches | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { bundle, contexts } = value as { bundle?: unknown; contexts?: unknown }
  if (!isCacheBytes(bundle) || !(contexts instanceof Map) || contexts.size > MAX_CONTEXT_SCRIPTS) return undefined
  const read = new Map<string, Uint8Array>()
  for (const [filename, cache] of contexts as Map<unknown, unknown>) {
    if (typeof filename !== 'string' || filename.length > MAX_FILENAME_LENGTH || !isCacheBytes(cache)) return undefined
    read.set(filename, cache)
  }
  return { bundle, contexts: read }
}

/** The code-cache part of a worker's `workerData`. Never throws. */
export function readCodeCacheHandoff(workerData: unknown): CodeCacheHandoff {
  if (typeof workerData !== 'object' || workerData === null) return {}
  const { codeCaches, codeCachePort } = workerData as { codeCaches?: unknown; codeCachePort?: unknown }
  const caches = readProcessCodeCaches(codeCaches)
  const port =
    typeof codeCachePort === 'object' &&
    codeCachePort !== null &&
    typeof (codeCachePort as MessagePort).postMessage === 'function'
      ? (codeCachePort as MessagePort)
      : undefined
  return { ...(caches === undefined ? {} : { caches }), ...(port === undefined ? {} : { port }) }
}
