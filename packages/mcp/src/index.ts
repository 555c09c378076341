// What an embedder of the Code Mode MCP server needs, and nothing else: the server, the config
// file it is fed from, the upstream connections it serves, a runtime for its programs, and the
// package's error. How the server names, presents, runs and reports tools is internal; the CLI
// (`code-runtime`) is the other entry point, through the package's `bin`.

// The MCP server: Code Mode in front of MCP servers
export { createCodeModeServer, type CodeModeServer, type CodeModeServerOptions } from './server/code-mode-server.js'
export {
  createCodeModeService,
  type CodeModeService,
  type CodeModeServiceOptions,
  type ServiceCaller,
} from './server/code-mode-service.js'
export { RunAdmission, RunRefusedBusy, type AdmittedRun, type RunAdmissionLimits } from './service/run-admission.js'
// How long its tools/list and tools/call wait for upstream servers still connecting
export { DEFAULT_CATALOG_WAIT_MS } from './server/catalog-readiness.js'
// Its stdio transport, bounded: oversized requests answered with an error, reading paused while answers go unread
export {
  BoundedStdioServerTransport,
  DEFAULT_MAX_PENDING_WRITE_BYTES,
  DEFAULT_MAX_UNREAD_MS,
  DEFAULT_MAX_REQUEST_BYTES,
  type BoundedStdioOptions,
  type StdioTransportEnd,
} from './server/bounded-stdio-transport.js'
// What `CodeModeServer.catalog` holds
export type { CatalogTool, ServerSummary, ToolCatalog } from './upstream/tool-catalog.js'

// The config file: mcpServers
export {
  loadServersConfig,
  parseServersConfig,
  safeParseServersConfig,
  type HttpServerConfig,
  type ServersConfig,
  type ServersConfigOptions,
  type StdioServerConfig,
  type UpstreamServerConfig,
} from './upstream/server-config.js'
export type { VariableLookup } from './upstream/config-variables.js'

// Upstream servers: connected in parallel (awaited, or handed over while they connect), closed together
export {
  closeUpstreams,
  connectUpstreams,
  startUpstreams,
  type InProcessServerConfig,
  type UpstreamConfig,
  type UpstreamListeners,
  type UpstreamServer,
  type UpstreamTool,
} from './upstream/upstream-clients.js'

// A code runtime for the server's programs, by backend name
export { startBackend, type BackendBudgets, type BackendName } from './runtime-backend.js'

// Host-facing errors
export { McpProxyError, type McpProxyErrorCode, type McpProxyErrorDetails } from './errors.js'
