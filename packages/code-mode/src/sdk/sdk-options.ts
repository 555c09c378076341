/**
 * Options of the SDK emitter: the two global names the program sees. Checked once against the
 * same rules the runtime applies to binding names, so an SDK never promises a global the
 * runtime would refuse.
 */
import {
  BINDING_NAME_PATTERN,
  ECMASCRIPT_READONLY_GLOBALS,
  ECMASCRIPT_RESERVED_WORDS,
  PYTHON_RESERVED_WORDS,
  readConfigObject,
  refuseConfigField,
  RESERVED_GLOBALS,
  type ConfigRecord,
} from '@code-runtime/core/internal'
import { codeModeErrorPlace } from '../errors.js'
import { TYPESCRIPT_LIB_GLOBALS } from './typescript-globals.js'

/** Options of `emitSdk`: the global names the program sees. */
export interface SdkEmitterOptions {
  /** The global object holding one async method per tool. */
  readonly namespace?: string
  /** The global class of rejected tool calls. */
  readonly errorClassName?: string
}

/** Emitter options after {@link resolveSdkEmitterOptions}: complete and checked. */
export type ResolvedSdkEmitterOptions = Required<SdkEmitterOptions>

/** The global names used when none are given: `tools` and `ToolCallError`. */
export const DEFAULT_SDK_EMITTER_OPTIONS: ResolvedSdkEmitterOptions = Object.freeze({
  namespace: 'tools',
  errorClassName: 'ToolCallError',
})

/** The property of each rejected call's error that names the member that was called. */
export const TOOL_NAME_PROPERTY = 'toolName'

const KNOWN_FIELDS = Object.keys(DEFAULT_SDK_EMITTER_OPTIONS)

const PLACE = codeModeErrorPlace('CODE_MODE_INVALID_OPTIONS', 'SDK options')

function readGlobalName(record: ConfigRecord, field: keyof SdkEmitterOptions): string {
  const value = record[field]
  if (value === undefined) return DEFAULT_SDK_EMITTER_OPTIONS[field]
  if (typeof value !== 'string' || !BINDING_NAME_PATTERN.test(value)) {
    refuseConfigField(
      PLACE,
      field,
      'must match [A-Za-z_][A-Za-z0-9_]* (ASCII letters, digits and _, not starting with a digit)',
      value,
    )
  }
  if (ECMASCRIPT_RESERVED_WORDS.has(value) || PYTHON_RESERVED_WORDS.has(value)) {
    refuseConfigField(PLACE, field, 'must not be a reserved word of JavaScript or Python', value)
  }
  if (ECMASCRIPT_READONLY_GLOBALS.has(value) || RESERVED_GLOBALS.has(value) || TYPESCRIPT_LIB_GLOBALS.has(value)) {
    refuseConfigField(PLACE, field, 'must not be a global the runtime or the standard library already has', value)
  }
  return value
}

/**
 * Checks emitter options and returns them complete and frozen.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` for an unknown field or a name that
 *   cannot be a global, naming the field and the rule.
 */
export function resolveSdkEmitterOptions(input: unknown): ResolvedSdkEmitterOptions {
  if (input === undefined) return DEFAULT_SDK_EMITTER_OPTIONS
  const record = readConfigObject(PLACE, input, KNOWN_FIELDS)
  const namespace = readGlobalName(record, 'namespace')
  const errorClassName = readGlobalName(record, 'errorClassName')
  if (namespace === errorClassName)
    refuseConfigField(PLACE, 'errorClassName', 'must differ from namespace', errorClassName)
  return Object.freeze({ namespace, errorClassName })
}
