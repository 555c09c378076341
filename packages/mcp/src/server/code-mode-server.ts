/**
 * The Code Mode MCP server for one connection: `code-runtime serve` on stdio, or an embedder's own
 * long-lived transport. It is the service (code-mode-service.ts: the catalog, the runtime, the
 * sessions, the handlers) with one connection served through the SDK's serving entry, which
 * answers both protocol revisions (see served-connection.ts). The connection's client keeps one
 * session; it ends with the connection. A shared server over HTTP serves the same service to
 * many callers instead (see ../http/).
 */
import type { Transport } from '@modelcontextprotocol/server'
import { McpProxyError } from '../errors.js'
import type { ToolCatalog } from '../upstream/tool-catalog.js'
import { createCodeModeService, type CodeModeServiceOptions, type ServiceCaller } from './code-mode-service.js'
import { ServedConnection } from './served-connection.js'

/** Options of {@link createCodeModeServer}: the service's. */
export type CodeModeServerOptions = CodeModeServiceOptions

/**
 * A running Code Mode MCP server. It serves one connection: a client, over the transport given
 * to `connect`; serve another client with another `createCodeModeServer` (over the same runtime
 * and upstreams, if you like).
 */
export interface CodeModeServer {
  /** The tools as they are now (none of a server still connecting). */
  readonly catalog: ToolCatalog
  /** Settles once the catalog and the runtime are ready; rejects when the runtime failed to start. */
  readonly ready: Promise<void>
  /** Rebuilds the catalog from the upstreams; tells the client when its tool list changed. */
  refresh(): void
  /**
   * Serves one client over `transport`, a long-lived message stream (over stdio, a
   * `BoundedStdioServerTransport`), in whichever revision the client opens with; resolves once the
   * transport has started. A second call rejects (`MCP_PROXY_USAGE`).
   */
  connect(transport: Transport): Promise<void>
  /** Aborts runs in flight, ends every session, then closes the connection. Upstream servers stay the caller's to close. */
  close(): Promise<void>
}

/** The one caller of a connection: whoever started the process, in one session. */
const CONNECTION_CALLER: ServiceCaller = { sessions: 'connection' }

/**
 * Creates the server; call `connect` with a transport to serve.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` for `maxParallel` or `maxResultChars` out of
 *   Code Mode's ranges, or a `typeCheck` that is not a mode.
 * @throws {McpProxyError} `MCP_PROXY_USAGE` for a `catalogWaitMs` that is not a whole number of
 *   milliseconds from 0 to 600 000.
 * @example
 * const codeModeServer = createCodeModeServer({ upstreams, runtime })
 * await codeModeServer.connect(new BoundedStdioServerTransport())
 */
export function createCodeModeServer(options: CodeModeServerOptions): CodeModeServer {
  const service = createCodeModeService(options)
  /** The connection served, once `connect` has started it; `opening` while it starts. */
  let connection: ServedConnection | undefined
  let opening: Promise<ServedConnection> | undefined
  let isClosed = false
  service.onToolsChanged(() => connection?.notifyToolsChanged())
  return {
    get catalog() {
      return service.catalog
    },
    ready: service.ready,
    refresh: () => service.refresh(),
    async connect(transport) {
      if (opening !== undefined || isClosed) {
        throw new McpProxyError(
          'MCP_PROXY_USAGE',
          'A Code Mode server serves one connection, and this one is already connected or closed; create another server for another client.',
        )
      }
      opening = ServedConnection.open(transport, {
        build: () => service.buildServer(CONNECTION_CALLER),
        // The client went away (end of stdin, a closed transport): its variables go with it.
        onEnd: () => void service.endConnection(CONNECTION_CALLER),
      })
      connection = await opening
    },
    async close() {
      isClosed = true
      const closing = service.close()
      await (await opening?.catch(() => undefined))?.close()
      await closing
    },
  }
}
