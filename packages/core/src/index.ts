// What a user of the seam needs: the seam itself, its vocabulary, its errors and
// startCodeRuntime. What backends and the project's other packages share to build on the seam
// (request validation, config readers) is at `@code-runtime/core/internal`, and lossless JSON with
// the output ledger at `@code-runtime/core/json`, so this list stays the contract a caller reads.

// The seam
export { CodeRuntime, CODE_RUNTIME_SERVICE_NAME } from './code-runtime.js'
export { DEFAULT_MAX_KEPT_NAMES } from './code-session.js'
export type { CodeSession, CodeSessionEndReason, CodeSessionOptions } from './code-session.js'
export { startCodeRuntime, type CodeRuntimeBackend, type StartedCodeRuntime } from './start-runtime.js'

// Vocabulary
export {
  CODE_RUN_FAILURE_KINDS,
  MAX_REUSE_KEY_LENGTH,
  type CodeBindingCall,
  type CodeBindingCallOutcome,
  type CodeBindingCallRecord,
  type CodeBindingErrorClass,
  type CodeBindingFunction,
  type CodeBindingNamespace,
  type CodeJsonValue,
  type CodeRunBudget,
  type CodeRunFailureFacts,
  type CodeRunSessionEnd,
  type CodeRunFailure,
  type CodeRunFailureKind,
  type CodeRunOutcome,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRunUsage,
  type CodeRuntimeIsolation,
  type CodeRuntimeLanguage,
} from './types.js'

// What the project's checkers and decoders return: the value, or why not
export type { Checked } from './checked.js'

// Host-facing errors
export {
  CodeRuntimeError,
  CodeRuntimeFamilyError,
  type CodeRuntimeErrorCode,
  type CodeRuntimeErrorDetails,
  type CodeRuntimeFamilyErrorDetails,
} from './errors.js'
