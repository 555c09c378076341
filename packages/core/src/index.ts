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
  type CodeRunFailure,
  type CodeRunFailureKind,
  type CodeRunOutcome,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRunUsage,
  type CodeRuntimeIsolation,
  type CodeRuntimeLanguage,
} from './types.js'

// Host-facing errors
export {
  CodeRuntimeError,
  CodeRuntimeFamilyError,
  describeValue,
  sessionLimitError,
  thrownMessage,
  type CodeRuntimeErrorCode,
  type CodeRuntimeErrorDetails,
  type CodeRuntimeFamilyErrorDetails,
} from './errors.js'

// Name rules and request validation
export {
  BINDING_NAME_PATTERN,
  DUNDER_PATTERN,
  ECMASCRIPT_READONLY_GLOBALS,
  ECMASCRIPT_RESERVED_WORDS,
  PYTHON_RESERVED_WORDS,
  RESERVED_GLOBALS,
  validateBindings,
  validateRunRequest,
  type ValidatedNamespace,
  type ValidatedRunRequest,
} from './binding-names.js'

// Lossless JSON
export {
  formatLosslessJsonRefusal,
  isLosslessJson,
  safeLosslessJsonText,
  safeSnapshotLosslessJson,
  snapshotLosslessJson,
  type LosslessJsonOptions,
  type LosslessJsonRefusal,
  type LosslessJsonSnapshot,
  type LosslessJsonText,
} from './lossless-json.js'
export { stringifyJsonValue } from './json-text.js'

// Output ledger
export {
  jsonStringByteLength,
  jsonValueByteLength,
  logsByteLength,
  OutputLedger,
  type OutputLedgerOptions,
} from './output-ledger.js'

// Config readers shared by every package
export {
  MAX_TIMER_MS,
  readBooleanField,
  readConfigObject,
  readIntegerField,
  readNumberField,
  readOneOfField,
  readRecordField,
  readStringField,
  readStringListField,
  readStringRecordField,
  refuseUnknownConfigFields,
  type ConfigRecord,
  type IntegerFieldRule,
  type NumberFieldRule,
  type RecordFieldRule,
} from './config-fields.js'
export { timerDelayMs } from './timer-delay.js'
export {
  configPlaceOf,
  joinConfigPath,
  nestConfigLabel,
  refuseConfigField,
  type ConfigLabel,
  type ConfigPlace,
  type ConfigRefusal,
} from './config-place.js'
export {
  DEFAULT_SHARED_BACKEND_CONFIG,
  readSharedBackendConfig,
  type SharedBackendConfig,
  type SharedBackendConfigOptions,
} from './shared-backend-config.js'
