// Code Mode in one call: tools in; SDK, run_code and dispatch out
export {
  createCodeMode,
  DEFAULT_MAX_PARALLEL,
  DEFAULT_MAX_RESULT_CHARS,
  MAX_RESULT_CHARS_LIMIT,
  type CodeMode,
  type CodeModeOptions,
  type CodeModeRuntime,
} from './create-code-mode.js'
export { RUN_CODE_INPUT_SCHEMA, type RunCodeInput, type RunCodeOptions, type RunCodeOutput, type RunCodeTool } from './run-code-tool.js'

// Building blocks: dispatch, argument checks and rendering
export { ToolCallScheduler, RunEndedError, type ToolCallRecord } from './tool-call-scheduler.js'
export { compileArgumentCheck, type ArgumentCheck } from './argument-validation.js'
export { formatJsonValue, renderRunResult, truncateText } from './render-result.js'
export { runWithTools, structureRunResult } from './tool-run.js'

// Tool definitions
export {
  parseToolDescriptions,
  type CodeModeTool,
  type CodeModeToolAnnotations,
  type CodeModeToolContext,
  type CodeModeToolDescription,
  type JsonSchema,
} from './tool-definition.js'

// SDK emitter: tool definitions → model-facing TypeScript
export { emitSdk, type EmittedSdk } from './sdk-emitter.js'
export {
  DEFAULT_SDK_EMITTER_OPTIONS,
  resolveSdkEmitterOptions,
  TOOL_NAME_PROPERTY,
  type ResolvedSdkEmitterOptions,
  type SdkEmitterOptions,
} from './sdk-options.js'
export { assignMemberNames, preferredMemberName } from './tool-names.js'
export { schemaToTypeScript, type SchemaToTypeScriptOptions, type SchemaTypeScript } from './schema-to-typescript.js'

// Host-facing errors
export { CodeModeError, type CodeModeErrorCode, type CodeModeErrorDetails } from './errors.js'
