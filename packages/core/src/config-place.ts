/**
 * Where a config field is read and what a refusal throws. Every package reads its config through
 * core's readers; they differ only in the message prefix, the error class and how deep in a
 * document the record sits, which a {@link ConfigPlace} carries. A refusal's text always names
 * the field's path, the rule and the value received.
 */
import { CodeRuntimeError, describeValue } from './errors.js'

/** One refused field, as the readers describe it. */
export interface ConfigRefusal {
  /** Path of the field at fault, e.g. `computeMs` or `mcpServers.files.args[0]`; absent for a whole root config. */
  readonly field: string | undefined
  /** The rule it broke, in words: `must be an integer from 1 to 10`. */
  readonly rule: string
  /** The offending value, as received. */
  readonly value: unknown
  /** One clause naming the path, the rule and the value, without prefix or full stop: `timeoutMs must be ..., got 0`. */
  readonly text: string
}

/** A place config is read at: a path inside a document and how a refusal becomes an error. */
export interface ConfigPlace {
  /** The path of the record being read, put before each field name; absent at the root. */
  readonly path?: string
  /** Builds the error a refusal throws. */
  readonly refuse: (refusal: ConfigRefusal) => Error
}

/**
 * A backend's label (`worker-thread`: refusals are `CODE_RUNTIME_INVALID_CONFIG` errors reading
 * `Invalid worker-thread config: ...`), or a {@link ConfigPlace} of the caller's own.
 */
export type ConfigLabel = string | ConfigPlace

/** The place of a label; a string label refuses with a {@link CodeRuntimeError}. */
export function configPlaceOf(label: ConfigLabel): ConfigPlace {
  if (typeof label !== 'string') return label
  return {
    refuse: ({ field, rule, value, text }) =>
      new CodeRuntimeError('CODE_RUNTIME_INVALID_CONFIG', `Invalid ${label} config: ${text}.`, {
        ...(field === undefined ? {} : { field }),
        value,
        rule,
      }),
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/**
 * The path of `key` inside the record at `path`, as a reader of the document would write it:
 * `a.b`, `a[0]`, `a["two words"]`. At the root the key is the path.
 */
export function joinConfigPath(path: string | undefined, key: string): string {
  if (path === undefined || path === '') return key
  if (/^\d+$/.test(key)) return `${path}[${key}]`
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
}

/** The place of the record (or list) at `key` of the record `label` reads. */
export function nestConfigLabel(label: ConfigLabel, key: string): ConfigPlace {
  const place = configPlaceOf(label)
  return { path: joinConfigPath(place.path, key), refuse: place.refuse }
}

/**
 * Throws the refusal of `field` (of the record `label` reads) for breaking `rule`: the one way
 * every reader, and every caller with a rule of its own, refuses a value.
 * @param rule what the value must be, starting with a verb: `must be ...`, `has both ...`.
 */
export function refuseConfigField(label: ConfigLabel, field: string, rule: string, value: unknown): never {
  const place = configPlaceOf(label)
  const path = joinConfigPath(place.path, field)
  throw place.refuse({ field: path, rule, value, text: `${path} ${rule}, got ${describeValue(value)}` })
}
