// What a user of Code Mode needs, and nothing else: the one call (`createCodeMode`) with the
// `run_code` tool it returns, the tool and SDK types, the SDK emitter and schema converter on
// their own (for prompts built by hand), and the package's error. Dispatch, argument checks and
// rendering are internal: `createCodeMode` is the one run path.

// Code Mode in one call: tools in; SDK, run_code and dispatch out
export {
  createCodeMode,
  DEFAULT_MAX_RESULT_CHARS,
  MAX_RESULT_CHARS_LIMIT,
  type CodeMode,
  type CodeModeOptions,
  type CodeModeRuntime,
} from './create-code-mode.js'
// Sessions: run_code whose variables persist between runs (createCodeMode's `session` option, or one per user)
export { createCodeModeSession, type CodeModeSession, type CodeModeSessionRuntime } from './run/code-mode-session.js'
export {
  RUN_CODE_SESSION_HANDLE_SENTENCE,
  RUN_CODE_SESSION_SENTENCE,
  type RunCodeFailure,
  type RunCodeFailureKind,
  type RunCodeOptions,
  type RunCodeOutput,
  type RunCodeTool,
  type ToolCallStart,
} from './run/run-code-tool.js'
// run_code at the edge, for front ends that list the tool themselves (an MCP server): one listing, one decoder of its arguments
export {
  listRunCode,
  safeParseRunCodeInput,
  type DecodedRunCodeInput,
  type RunCodeInput,
  type RunCodeListing,
  type RunCodeSessionMode,
} from './run/run-code-input.js'
// Approvals: calls that wait for a person (createCodeMode's `approve` hook), and the decisions in the call record
export {
  toolNeedsApproval,
  type ApproveToolCall,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
  type ToolCallApproval,
  type ToolCallRecord,
} from './run/tool-approval.js'
// The arguments of a call as a person approving it reads them: every field named, none dropped
export {
  APPROVAL_SUMMARY_LIMITS,
  showProgramText,
  summarizeApprovalArguments,
  type ApprovalSummary,
} from './run/approval-summary.js'
// OpenTelemetry spans of each run (createCodeMode's `tracing` option): what they record beyond counts and kinds
export type { CodeModeTracingOptions } from './run/run-trace.js'
// The type check before a run: modes, diagnostics, and their text for a model
export {
  DEFAULT_TYPE_CHECK_MODE,
  formatProgramDiagnostics,
  type ProgramCheck,
  type ProgramDiagnostic,
  type ProgramDiagnosticCategory,
  type TypeCheckMode,
} from './type-check/program-check.js'
// The checks run in one child process per process; a command about to exit ends it and waits
export { stopTypeChecker } from './type-check/checker-process.js'
// For a REPL: whether the lines typed so far leave the program unfinished (read another line)
export { programNeedsMoreInput } from './type-check/unfinished-program.js'
// A value as the model reads it (pretty JSON, strings as they are), for front ends that print results
export { formatJsonValue } from './run/render-result.js'

// Tool definitions
export {
  type CodeModeTool,
  type CodeModeToolAnnotations,
  type CodeModeToolContext,
  type CodeModeToolDescription,
  type JsonSchema,
} from './tools/tool-definition.js'
// Schemas as tool authors write them: JSON Schema, or Zod 4.2+ and any Standard JSON Schema
export type { StandardToolSchema, ToolSchema } from './tools/tool-schema.js'
// A framework's own schema (JSON Schema plus its check) as a tool schema: for framework adapters
export {
  foreignToolSchema,
  type ForeignSchemaCheck,
  type ForeignSchemaIssue,
  type ForeignToolSchemaSource,
} from './tools/foreign-tool-schema.js'

// SDK emitter: tool definitions → model-facing TypeScript
export { emitSdk, fenceTypeScript, type EmittedSdk } from './sdk/sdk-emitter.js'
export { DEFAULT_SDK_EMITTER_OPTIONS, type SdkEmitterOptions } from './sdk/sdk-options.js'
export { preferredMemberName } from './sdk/tool-names.js'
export {
  schemaToTypeScript,
  type SchemaToTypeScriptOptions,
  type SchemaTypeScript,
} from './sdk/schema-to-typescript.js'

// Host-facing errors
export { CodeModeError, type CodeModeErrorCode, type CodeModeErrorDetails } from './errors.js'
