/**
 * The options of `openSession`, checked once against the backend's config: every field is
 * optional, each one the caller gives must be in range, and a refusal names the field.
 */
import { CodeRuntimeError, DEFAULT_MAX_KEPT_NAMES, type CodeSessionOptions } from '@code-runtime/core'
import {
  MAX_TIMER_MS,
  readConfigObject,
  readIntegerField,
  readNumberField,
  type ConfigPlace,
} from '@code-runtime/core/internal'
import type { RunBudgetLimits } from './budgets.js'

const MIB = 1024 * 1024

/** The smallest heap budget a session may ask for: room for the runtime's own context. */
export const MIN_SESSION_HEAP_BYTES = 16 * MIB

/**
 * The most a session may ask to keep: each kept name is a binding of the session's context,
 * re-checked on every run that declares new ones.
 */
export const MAX_KEPT_NAMES_LIMIT = 100_000

/** What a session runs with, fully defaulted. */
export interface ResolvedSessionOptions {
  readonly idleMs: number
  readonly maxKeptNames: number
  /** The heap budget the caller asked for; absent: the backend's heap cap. */
  readonly maxHeapBytes: number | undefined
  readonly budgets: RunBudgetLimits
}

/** The backend's values the options default to and are bounded by. */
export interface SessionDefaults {
  readonly sessionIdleMs: number
  readonly budgets: RunBudgetLimits
  readonly maxOldGenerationSizeMb: number
}

const FIELDS: readonly (keyof CodeSessionOptions)[] = [
  'idleMs',
  'maxHeapBytes',
  'computeMs',
  'maxWallMs',
  'maxKeptNames',
]

const PLACE: ConfigPlace = {
  refuse: ({ field, rule, value, text }) =>
    new CodeRuntimeError('CODE_RUNTIME_INVALID_REQUEST', `Invalid session options: ${text}.`, {
      ...(field === undefined ? {} : { field }),
      value,
      rule,
    }),
}

/**
 * Checks and defaults `openSession`'s options.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` naming the field, the rule and the value.
 */
export function resolveSessionOptions(input: unknown, defaults: SessionDefaults): ResolvedSessionOptions {
  const options = readConfigObject(PLACE, input, FIELDS)
  const timer = (field: string, fallback: number): number =>
    readNumberField(PLACE, options, field, { default: fallback, min: 0, minIsExclusive: true, max: MAX_TIMER_MS })
  const maxHeapBytes =
    options['maxHeapBytes'] === undefined
      ? undefined
      : readIntegerField(PLACE, options, 'maxHeapBytes', {
          min: MIN_SESSION_HEAP_BYTES,
          max: Math.floor(defaults.maxOldGenerationSizeMb * MIB),
          unit: 'bytes',
        })
  return {
    idleMs: timer('idleMs', defaults.sessionIdleMs),
    maxKeptNames: readIntegerField(PLACE, options, 'maxKeptNames', {
      default: DEFAULT_MAX_KEPT_NAMES,
      min: 1,
      max: MAX_KEPT_NAMES_LIMIT,
    }),
    maxHeapBytes,
    budgets: {
      computeMs: timer('computeMs', defaults.budgets.computeMs),
      maxWallMs: timer('maxWallMs', defaults.budgets.maxWallMs),
    },
  }
}

/** The heap cap to spawn a session's substrate with, in MiB. */
export function sessionHeapMb(options: ResolvedSessionOptions): number | undefined {
  return options.maxHeapBytes === undefined ? undefined : options.maxHeapBytes / MIB
}
