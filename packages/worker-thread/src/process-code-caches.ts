/**
 * The host's side of code-cache-handoff.ts: asks one fresh worker for the code caches it made,
 * keeps them in memory, and gives every later worker of this factory a copy (`workerData` is
 * cloned per worker).
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { readProcessCodeCaches, type ProcessCodeCaches } from './guest/code-cache-handoff.js'

/** What the next worker gets: fields for its `workerData`, and what to transfer with them. */
export interface CodeCacheWorkerData {
  readonly data: { readonly codeCaches?: ProcessCodeCaches; readonly codeCachePort?: MessagePort }
  readonly transferList: MessagePort[]
}

export class ProcessCodeCacheStore {
  private caches: ProcessCodeCaches | undefined
  /** A worker holds the port and has not answered yet: no other worker is asked meanwhile. */
  private asking = false
  /** A worker answered with something that is not a cache: no worker is asked again. */
  private refused = false

  /** The caches held so far, if any (for tests and diagnostics). */
  get held(): ProcessCodeCaches | undefined {
    return this.caches
  }

  /** The code-cache part of the next worker's `workerData`. */
  forNextWorker(): CodeCacheWorkerData {
    if (this.caches !== undefined) return { data: { codeCaches: this.caches }, transferList: [] }
    if (this.asking || this.refused) return { data: {}, transferList: [] }
    this.asking = true
    const { port1, port2 } = new MessageChannel()
    let answered = false
    port1.once('message', (offer: unknown) => {
      answered = true
      this.asking = false
      this.caches = readProcessCodeCaches(offer)
      if (this.caches === undefined) this.refused = true
      port1.close()
    })
    // A worker that died before it answered: ask the next one.
    port1.once('close', () => {
      if (!answered) this.asking = false
    })
    port1.unref()
    return { data: { codeCachePort: port2 }, transferList: [port2] }
  }
}
