// The door for code-runtime's own packages and for backends built like them (nats.js keeps
// `internal_mod.ts` beside `mod.ts` for the same reason): what a backend needs to keep the
// contract the same way every backend here does, and the readers and checks the packages above
// the seam share. The seam, its vocabulary and its errors are at the root, `@code-runtime/core`;
// lossless JSON and the output ledger at `@code-runtime/core/json`, which a sandbox loads too.

// The one shape of a checker's or decoder's answer
export type { Checked } from './checked.js'

// Messages about received values, and the errors every backend throws alike
export { describeValue, sessionLimitError, thrownMessage } from './errors.js'

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

// The globals a program gets beyond ECMAScript's, and the ones it does not
export { PROGRAM_GLOBALS, WITHHELD_PROGRAM_GLOBALS } from './program-globals.js'

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

// The two object checks every package makes of values it did not create
export { isObjectRecord, isPlainObject } from './object-checks.js'
// JSON Pointer segments (schema references, validator error paths)
export { unescapeJsonPointerSegment } from './json-pointer.js'
