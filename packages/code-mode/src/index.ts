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
