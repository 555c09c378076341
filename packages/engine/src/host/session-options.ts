/**
 * The options of `openSession`, checked once against the backend's config: every field is
 * optional, each one the caller gives must be in range, and a refusal names the field.
 */
import {
  CodeRuntimeError,
  MAX_TIMER_MS,
  readConfigObject,
  readIntegerField,
  readNumberField,
  type CodeSessionOptions,
  type ConfigPlace,
} from '@code-runtime/core'
import type { RunBudgetLimits } from './budgets.js'

const MIB = 1024 * 1024

/** The smallest heap budget a session may ask for: room for the runtime's own context. */
export const MIN_SESSION_HEAP_BYTES = 16 * MIB

/** What a session runs with, fully defaulted. */
export interface ResolvedSessionOptions {
  readonly idleMs: number
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

const FIELDS: readonly (keyof CodeSessionOptions)[] = ['idleMs', 'maxHeapBytes', 'computeMs', 'maxWallMs']

const PLACE: ConfigPlace = {
  refuse: ({ field, rule, value, text }) => new CodeRuntimeError('CODE_RUNTIME_INVALID_REQUEST', `Invalid session options: ${text}.`,
    { ...field === undefined ? {} : { field }, value, rule }),
}

/**
 * Checks and defaults `openSession`'s options.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_REQUEST` naming the field, the rule and the value.
 */
export function resolveSessionOptions(input: unknown, defaults: SessionDefaults): ResolvedSessionOptions {
  const options = readConfigObject(PLACE, input, FIELDS)
  const timer = (field: string, fallback: number): number =>
    readNumberField(PLACE, options, field, { default: fallback, min: 0, minIsExclusive: true, max: MAX_TIMER_MS })
  const maxHeapBytes = options['maxHeapBytes'] === undefined
    ? undefined
    : readIntegerField(PLACE, options, 'maxHeapBytes', { min: MIN_SESSION_HEAP_BYTES, max: Math.floor(defaults.maxOldGenerationSizeMb * MIB), unit: 'bytes' })
  return {
    idleMs: timer('idleMs', defaults.sessionIdleMs),
    maxHeapBytes,
    budgets: { computeMs: timer('computeMs', defaults.budgets.computeMs), maxWallMs: timer('maxWallMs', defaults.budgets.maxWallMs) },
  }
}

/** The heap cap to spawn a session's substrate with, in MiB. */
export function sessionHeapMb(options: ResolvedSessionOptions): number | undefined {
  return options.maxHeapBytes === undefined ? undefined : options.maxHeapBytes / MIB
}
