/**
 * Small shared readers for backend config. Each reads one field by name, applies its default
 * when the field is absent, and refuses anything else with a message naming the field, the rule
 * and the value received. Nothing is clamped, rounded or skipped silently.
 */
import { CodeRuntimeError, describeValue } from './errors.js'

/** A config object after {@link readConfigObject}: own fields only, unknown keys refused. */
export type ConfigRecord = Readonly<Record<string, unknown>>

/**
 * The largest delay Node's timers accept (2^31 − 1 ms, about 24.8 days): the upper bound of every
 * time budget and timeout, since each is enforced by a timer.
 */
export const MAX_TIMER_MS = 2_147_483_647

function refuseConfig(label: string, field: string, rule: string, value: unknown): never {
  throw new CodeRuntimeError(
    'CODE_RUNTIME_INVALID_CONFIG',
    `Invalid ${label} config: ${field} ${rule}, got ${describeValue(value)}.`,
    { field, value, rule },
  )
}

/**
 * True for `{...}` and `Object.create(null)` objects of any realm. A Map, a Date or a class
 * instance would otherwise pass as "no fields set" and its contents be ignored silently.
 */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

/**
 * Accepts `undefined` (all defaults) or a plain object whose keys are all in `knownFields`.
 * @param label names the config in messages, e.g. `worker-thread`.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` for a non-object or an unknown key.
 */
export function readConfigObject(label: string, input: unknown, knownFields: readonly string[]): ConfigRecord {
  if (input === undefined || input === null) return {}
  if (!isPlainObject(input)) {
    throw new CodeRuntimeError('CODE_RUNTIME_INVALID_CONFIG',
      `Invalid ${label} config: expected a plain object, got ${describeValue(input)}.`, { value: input })
  }
  const record: Record<string, unknown> = {}
  for (const key of Object.keys(input)) {
    if (!knownFields.includes(key)) {
      throw new CodeRuntimeError('CODE_RUNTIME_INVALID_CONFIG',
        `Invalid ${label} config: unknown field ${JSON.stringify(key)}; known fields are ${knownFields.join(', ')}.`,
        { field: key, rule: 'unknown field' })
    }
    record[key] = (input as Record<string, unknown>)[key]
  }
  return record
}

/** Rule of {@link readIntegerField}. */
export interface IntegerFieldRule {
  readonly default: number
  readonly min: number
  readonly max: number
}

/**
 * Reads an integer in `[min, max]`, or the default when the field is absent (`undefined`).
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG`
 */
export function readIntegerField(label: string, config: ConfigRecord, field: string, rule: IntegerFieldRule): number {
  const value = config[field]
  if (value === undefined) return rule.default
  if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
    refuseConfig(label, field, `must be an integer from ${rule.min} to ${rule.max}`, value)
  }
  return value
}

/** Rule of {@link readNumberField}. */
export interface NumberFieldRule {
  readonly default: number
  /** Smallest value allowed; with `minIsExclusive`, values must be strictly above it. */
  readonly min: number
  readonly max: number
  readonly minIsExclusive?: boolean
}

/**
 * Reads a finite number in its range, fractions included, or the default when the field is
 * absent. Budgets are read so because the reference runtime accepts `computeMs: 5000.5`: a config
 * that loads there must load here. `NaN`, `±Infinity` and anything outside the range are refused.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG`
 */
export function readNumberField(label: string, config: ConfigRecord, field: string, rule: NumberFieldRule): number {
  const value = config[field]
  if (value === undefined) return rule.default
  const isBelowMin = (number: number): boolean => rule.minIsExclusive === true ? number <= rule.min : number < rule.min
  if (typeof value !== 'number' || !Number.isFinite(value) || isBelowMin(value) || value > rule.max) {
    const range = rule.minIsExclusive === true
      ? `greater than ${rule.min} and at most ${rule.max}`
      : `from ${rule.min} to ${rule.max}`
    refuseConfig(label, field, `must be a finite number ${range}`, value)
  }
  return value
}

/**
 * Reads a boolean, or the default when absent.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG`
 */
export function readBooleanField(label: string, config: ConfigRecord, field: string, defaultValue: boolean): boolean {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (typeof value !== 'boolean') refuseConfig(label, field, 'must be true or false', value)
  return value
}

/**
 * Reads one of a fixed set of strings, or the default when absent.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG`
 */
export function readOneOfField<T extends string>(label: string, config: ConfigRecord, field: string,
  choices: readonly T[], defaultValue: T): T {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    refuseConfig(label, field, `must be one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}`, value)
  }
  return value as T
}

/**
 * Reads a non-empty string, or the default when absent.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG`
 */
export function readStringField(label: string, config: ConfigRecord, field: string, defaultValue: string): string {
  const value = config[field]
  if (value === undefined) return defaultValue
  if (typeof value !== 'string' || value === '') refuseConfig(label, field, 'must be a non-empty string', value)
  return value
}
