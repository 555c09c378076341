/**
 * When the Code Mode server's catalog is ready to be listed: once every upstream server has
 * connected or failed, or once the wait is over, whichever comes first. A server that is slow
 * or dead delays the first listing by at most the wait, never for good.
 */
import type { UpstreamServer } from '../upstream/upstream-clients.js'

/**
 * How long `tools/list` and `tools/call` wait for upstream servers still connecting, by default:
 * well past how long a server installed from npm takes to start on a loaded machine (beside a CPU
 * hog, 5 s was not enough), and well inside the minute MCP clients give a request.
 */
export const DEFAULT_CATALOG_WAIT_MS = 20_000
/** The longest wait taken: ten minutes. */
export const MAX_CATALOG_WAIT_MS = 600_000

/** Resolves once every server has settled, or after `waitMs`, whichever comes first. */
export function catalogSettled(upstreams: readonly UpstreamServer[], waitMs: number): Promise<void> {
  if (upstreams.every(server => !server.isConnecting)) return Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    Promise.all(upstreams.map(server => server.settled)).then(() => undefined),
    new Promise<void>(resolve => {
      timer = setTimeout(resolve, waitMs)
      // The wait alone never keeps a process alive that has nothing else to do.
      timer.unref()
    }),
  ]).finally(() => clearTimeout(timer))
}
