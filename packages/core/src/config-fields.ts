/**
 * The config readers every package uses: backends for their config, Code Mode for its options,
 * the MCP proxy for its server file and command line. Each reads one field by name, applies its
 * default when the field is absent, and refuses anything else through {@link refuseConfigField},
 * so every message names the field's path, the rule and the value received. Nothing is
 * clamped, rounded or skipped silently.
 */
import { describeValue } from './errors.js'
import { configPlaceOf, joinConfigPath, nestConfigLabel, refuseConfigField, type ConfigLabel } from './config-place.js'
import { isPlainObject } from './object-checks.js'

/** A config object after {@link readConfigObject}: own fields only, unknown keys refused. */
export type ConfigRecord = Readonly<Record<string, unknown>>

/**
 * The largest delay Node's timers accept (2^31 − 1 ms, about 24.8 days): the upper bound of every
 * time budget and timeout, since each is enforced by a timer.
 */
export const MAX_TIMER_MS = 2_147_483_647

/** Own fields copied into a fresh record, so later reads see what was checked. */
function copyRecord(input: ConfigRecord): ConfigRecord {
  const record: Record<string, unknown> = {}
  for (const key of Object.keys(input)) record[key] = input[key]
  return record
}

/** Levenshtein distance, for the short names of fields. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let row = 1; row <= left.length; row++) {
    const current = [row]
    for (let column = 1; column <= right.length; column++) {
      const substitution = (previous[column - 1] as number) + (left[row - 1] === right[column - 1] ? 0 : 1)
      current.push(Math.min((previous[column] as number) + 1, (current[column - 1] as number) + 1, substitution))
    }
    previous = current
  }
  return previous[right.length] as number
}

/**
 * Refuses the first key of `record` not in `knownFields`, suggesting a known field within two
 * edits (a typo is the commonest config bug) and listing them all.
 * @throws the refusal of `label`, whose `field` is the unknown key's path and `value` the key.
 */
export function refuseUnknownConfigFields(
  label: ConfigLabel,
  record: ConfigRecord,
  knownFields: readonly string[],
): void {
  const place = configPlaceOf(label)
  for (const key of Object.keys(record)) {
    if (knownFields.includes(key)) continue
    const close = knownFields.find(candidate => editDistance(candidate.toLowerCase(), key.toLowerCase()) <= 2)
    const hint = close === undefined ? '' : ` (did you mean ${JSON.stringify(close)}?)`
    const where = place.path === undefined ? '' : `${place.path} has an `
    throw place.refuse({
      field: joinConfigPath(place.path, key),
      rule: 'unknown field',
      value: key,
      text: `${where}unknown field ${JSON.stringify(key)}${hint}; known fields are ${knownFields.join(', ')}`,
    })
  }
}

/**
 * Accepts `undefined` or `null` (all defaults) or a plain object whose keys are all in `knownFields`.
 * @param label a backend's name in messages, e.g. `worker-thread`, or a place of the caller's.
 * @throws for a non-object or an unknown key (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readConfigObject(label: ConfigLabel, input: unknown, knownFields: readonly string[]): ConfigRecord {
  if (input === undefined || input === null) return {}
  if (!isPlainObject(input)) {
    const place = configPlaceOf(label)
    const text =
      place.path === undefined
        ? `expected a plain object, got ${describeValue(input)}`
        : `${place.path} must be a plain object, got ${describeValue(input)}`
    throw place.refuse({ field: place.path, rule: 'must be a plain object', value: input, text })
  }
  refuseUnknownConfigFields(label, input, knownFields)
  return copyRecord(input)
}

/** Rule of {@link readRecordField}. */
export interface RecordFieldRule {
  /** What the value must be, for the message; default `an object`. */
  readonly expected?: string
  /** When given, any other key is refused. */
  readonly knownFields?: readonly string[]
}

/**
 * Reads a nested object that must be present: a plain object, its keys in `rule.knownFields`
 * when given. Read its fields with the place `nestConfigLabel(label, field)`.
 * @throws the refusal of `label`.
 */
export function readRecordField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  rule: RecordFieldRule = {},
): ConfigRecord {
  const value = config[field]
  if (!isPlainObject(value)) refuseConfigField(label, field, `must be ${rule.expected ?? 'an object'}`, value)
  if (rule.knownFields !== undefined) refuseUnknownConfigFields(nestConfigLabel(label, field), value, rule.knownFields)
  return copyRecord(value)
}

/** Rule of {@link readIntegerField}. */
export interface IntegerFieldRule {
  /** The value when the field is absent; without one the field is required. */
  readonly default?: number
  readonly min: number
  readonly max: number
  /** Unit named after the range in messages, e.g. `milliseconds`. */
  readonly unit?: string
}

function unitSuffix(unit: string | undefined): string {
  return unit === undefined ? '' : ` (${unit})`
}

/**
 * Reads an integer in `[min, max]`, or the default when the field is absent (`undefined`).
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readIntegerField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  rule: IntegerFieldRule,
): number {
  const value = config[field]
  if (value === undefined && rule.default !== undefined) return rule.default
  if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
    refuseConfigField(label, field, `must be an integer from ${rule.min} to ${rule.max}${unitSuffix(rule.unit)}`, value)
  }
  return value
}

/** Rule of {@link readNumberField}. */
export interface NumberFieldRule {
  /** The value when the field is absent; without one the field is required. */
  readonly default?: number
  /** Smallest value allowed; with `minIsExclusive`, values must be strictly above it. */
  readonly min: number
  readonly max: number
  readonly minIsExclusive?: boolean
  /** Unit named after the range in messages, e.g. `milliseconds`. */
  readonly unit?: string
}

/**
 * Reads a finite number in its range, fractions included, or the default when the field is
 * absent. Budgets are read so because the reference runtime accepts `computeMs: 5000.5`: a config
 * that loads there must load here. `NaN`, `±Infinity` and anything outside the range are refused.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readNumberField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  rule: NumberFieldRule,
): number {
  const value = config[field]
  if (value === undefined && rule.default !== undefined) return rule.default
  const isBelowMin = (number: number): boolean =>
    rule.minIsExclusive === true ? number <= rule.min : number < rule.min
  if (typeof value !== 'number' || !Number.isFinite(value) || isBelowMin(value) || value > rule.max) {
    const range =
      rule.minIsExclusive === true
        ? `greater than ${rule.min} and at most ${rule.max}`
        : `from ${rule.min} to ${rule.max}`
    refuseConfigField(label, field, `must be a finite number ${range}${unitSuffix(rule.unit)}`, value)
  }
  return value
}

/**
 * Reads a boolean, or the default when absent.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readBooleanField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  defaultValue: boolean,
): boolean {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (typeof value !== 'boolean') refuseConfigField(label, field, 'must be true or false', value)
  return value
}

/**
 * Reads one of a fixed set of strings, or the default when absent.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readOneOfField<T extends string>(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  choices: readonly T[],
  defaultValue: T,
): T {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    refuseConfigField(label, field, `must be one of ${choices.map(choice => JSON.stringify(choice)).join(', ')}`, value)
  }
  return value as T
}

/**
 * Reads a non-empty string, or the default when absent; without a default the field is required.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readStringField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  defaultValue?: string,
): string {
  const value = config[field]
  if (value === undefined && defaultValue !== undefined) return defaultValue
  if (typeof value !== 'string' || value === '') refuseConfigField(label, field, 'must be a non-empty string', value)
  return value
}

/**
 * Reads an array of strings (empty strings included) as a frozen copy, or the default when absent.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readStringListField<Default extends readonly string[] | undefined>(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  defaultValue: Default,
): readonly string[] | Default {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (!Array.isArray(value)) refuseConfigField(label, field, 'must be an array of strings', value)
  const items: unknown[] = [...(value as unknown[])]
  items.forEach((item, index) => {
    if (typeof item !== 'string')
      refuseConfigField(nestConfigLabel(label, field), String(index), 'must be a string', item)
  })
  return Object.freeze(items as string[])
}

/**
 * Reads a plain object of string values (an environment, HTTP headers) as a frozen copy, or the
 * default when absent.
 * @throws the refusal of `label` (`CODE_RUNTIME_INVALID_CONFIG` for a string label).
 */
export function readStringRecordField(
  label: ConfigLabel,
  config: ConfigRecord,
  field: string,
  defaultValue: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (!isPlainObject(value)) refuseConfigField(label, field, 'must be an object of string values', value)
  const record: Record<string, string> = {}
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') refuseConfigField(nestConfigLabel(label, field), key, 'must be a string', item)
    record[key] = item
  }
  return Object.freeze(record)
}
