// The MCP server: Code Mode in front of MCP servers
export { createCodeModeServer, type CodeModeServer, type CodeModeServerOptions } from './code-mode-server.js'
export { DEFAULT_MAX_SDK_CHARS, presentTools, TOOL_TYPES_TOOL_NAME, type ToolPresentation } from './run-code-description.js'

// The config file: mcpServers
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  loadServersConfig,
  parseServersConfig,
  safeParseServersConfig,
  type HttpServerConfig,
  type ServersConfig,
  type ServersConfigOptions,
  type StdioServerConfig,
  type UpstreamServerConfig,
} from './server-config.js'
export { SESSION_DIRECTORY_VARIABLE, type VariableLookup } from './config-variables.js'

// Upstream servers, their tools under the calling convention, and one run over them
export {
  closeUpstreams,
  connectUpstreams,
  UpstreamServer,
  type InProcessServerConfig,
  type UpstreamConfig,
  type UpstreamListeners,
  type UpstreamTool,
} from './upstream-clients.js'
export { assignToolMembers, preferredToolMember, type ServerToolName } from './tool-naming.js'
export { buildToolCatalog, declarationsFor, type CatalogTool, type ServerSummary, type ToolCatalog } from './tool-catalog.js'
export { decodeCallResult, describeCallFailure, type DecodedCallResult, type MediaBlock } from './upstream-results.js'
export {
  catalogCodeMode,
  MAX_MEDIA_BLOCKS,
  runProgram,
  TOOL_ERROR_CLASS,
  TOOLS_NAMESPACE,
  type CatalogRunLimits,
  type ProgramRunOptions,
  type ProgramRunOutput,
  type ToolCallCounts,
} from './program-run.js'

// Code runtime backends
export { BACKEND_NAMES, DEFAULT_BACKEND, startBackend, startChosenBackend, type BackendBudgets, type BackendName } from './runtime-backend.js'

// Host-facing errors
export { McpProxyError, type McpProxyErrorCode, type McpProxyErrorDetails } from './errors.js'
