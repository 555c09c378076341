/**
 * The config of `NatsCodeRuntime` (the caller's side) and of a runner's connection, validated
 * once when the plugin loads: where NATS is, how to authenticate, the subject prefix, the run
 * budgets every runner applies to this caller's runs, and how long to wait for a free runner and
 * for a silent one.
 */
import {
  DEFAULT_SHARED_BACKEND_CONFIG,
  MAX_TIMER_MS,
  readConfigObject,
  readIntegerField,
  readNumberField,
  readStringField,
  readStringListField,
  refuseConfigField,
  type ConfigRecord,
} from '@code-runtime/core/internal'
import { MIN_ADOPTION_KEY_BYTES } from './session-adoption.js'
import { DEFAULT_SUBJECT_PREFIX, SUBJECT_TOKEN_PATTERN } from './subjects.js'

/** TLS to NATS: files of PEM text, for a server with its own CA or one that asks for client certificates. */
export interface NatsTlsConfig {
  readonly caFile?: string
  readonly certFile?: string
  readonly keyFile?: string
}

/** How to reach NATS: its servers and credentials (user and password, a token, or a creds file). */
export interface NatsConnectionConfig {
  /** `nats://host:port` (or `tls://`) URLs; one is enough, the client learns the cluster from it. */
  readonly servers: readonly string[]
  readonly user?: string
  readonly pass?: string
  readonly token?: string
  /** An NKey/JWT credentials file (`nsc generate creds`), read when connecting. */
  readonly credsFile?: string
  /** TLS files; TLS is also used with `tls://` URLs or a server that requires it. */
  readonly tls?: NatsTlsConfig
  /**
   * First tokens of every inbox this side listens on, `_INBOX.<tenant>` in docs/SCALING.md's
   * layout, so a tenant's user may be allowed to read its own inboxes only. Runners count runs
   * per the first two tokens of a caller's inbox. Default: `_INBOX.<a random token>` for a caller
   * (its own identity), `_INBOX` for a runner.
   */
  readonly inboxPrefix?: string
  /** First token of every subject, so several deployments can share one NATS; default `code-runtime`. */
  readonly subjectPrefix: string
}

/** The caller's config: the connection, the budgets of its runs, and the waits. */
export interface NatsRuntimeConfig extends NatsConnectionConfig {
  /** Budget of busy time of each run, on the runner, in milliseconds (default 60 000). */
  readonly computeMs: number
  /** Wall-clock ceiling of each run, from run() to its result, in milliseconds (default 600 000). */
  readonly maxWallMs: number
  /** Cap on a run's output (logs plus value or message), in bytes (default 64 MiB). */
  readonly maxOutputBytes: number
  /** Longest wait for a runner with a free slot before the run fails `timeout` (default 30 000 ms). */
  readonly maxQueueMs: number
  /** How often each side says it is alive while a run goes on (default 500 ms). */
  readonly heartbeatMs: number
  /** Silence after which the other side counts as gone: the run fails (default 1 500 ms). */
  readonly lostAfterMs: number
  /** Most sessions this caller keeps open at once, each holding a slot of one runner (default 16; 0 turns sessions off). */
  readonly maxSessions: number
  /**
   * The deployment's secret for adoptable sessions (at least 32 bytes), the same on every caller
   * that may take over another's sessions: with it every session this runtime opens can be
   * adopted (`adoptSession`) by a caller of the same identity that holds the same key.
   */
  readonly adoptionKey?: Uint8Array
}

/** The config as users write it: `servers` required, every other field optional. */
export type NatsRuntimeConfigInput = Partial<Omit<NatsRuntimeConfig, 'servers'>> & {
  readonly servers: string | readonly string[]
}

export const DEFAULT_MAX_QUEUE_MS = 30_000
export const DEFAULT_HEARTBEAT_MS = 500
// With heartbeats every 500 ms, silence is noticed 1 500 to 2 000 ms after the other side went away.
export const DEFAULT_LOST_AFTER_MS = 1_500

export const CONNECTION_FIELDS = [
  'servers',
  'user',
  'pass',
  'token',
  'credsFile',
  'tls',
  'inboxPrefix',
  'subjectPrefix',
] as const
const TLS_FIELDS = ['caFile', 'certFile', 'keyFile'] as const
/** One to five subject tokens, no wildcards: `_INBOX.<tenant>` for a caller, `_INBOX_runners` for runners. */
const INBOX_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,4}$/
const RUNTIME_FIELDS = [
  ...CONNECTION_FIELDS,
  'computeMs',
  'maxWallMs',
  'maxOutputBytes',
  'maxQueueMs',
  'heartbeatMs',
  'lostAfterMs',
  'maxSessions',
  'adoptionKey',
] as const

/** Reads the connection fields of a config already checked by `readConfigObject`. */
export function readConnectionFields(label: string, config: ConfigRecord): NatsConnectionConfig {
  const servers =
    typeof config.servers === 'string' ? [config.servers] : readStringListField(label, config, 'servers', undefined)
  if (servers === undefined || servers.length === 0)
    refuseConfigField(label, 'servers', 'must be a nats:// URL or a non-empty list of them', config.servers)
  for (const [index, server] of servers.entries()) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s]+$/.test(server) && !/^[^\s/:]+:\d+$/.test(server)) {
      refuseConfigField(label, `servers[${index}]`, 'must be a URL such as nats://127.0.0.1:4222', server)
    }
  }
  const connection: { -readonly [K in keyof NatsConnectionConfig]: NatsConnectionConfig[K] } = {
    servers: Object.freeze([...servers]),
    subjectPrefix: readStringField(label, config, 'subjectPrefix', DEFAULT_SUBJECT_PREFIX),
  }
  if (!SUBJECT_TOKEN_PATTERN.test(connection.subjectPrefix)) {
    refuseConfigField(
      label,
      'subjectPrefix',
      'must be one subject token: letters, digits, - and _',
      connection.subjectPrefix,
    )
  }
  for (const field of ['user', 'pass', 'token', 'credsFile', 'inboxPrefix'] as const) {
    if (config[field] !== undefined) connection[field] = readStringField(label, config, field)
  }
  if (connection.inboxPrefix !== undefined && !INBOX_PREFIX_PATTERN.test(connection.inboxPrefix)) {
    refuseConfigField(
      label,
      'inboxPrefix',
      'must be one to five subject tokens such as _INBOX.tenant-a (letters, digits, - and _)',
      connection.inboxPrefix,
    )
  }
  if (config.tls !== undefined) {
    const tls = readConfigObject(`${label}.tls`, config.tls, TLS_FIELDS)
    const files: { -readonly [K in keyof NatsTlsConfig]: NatsTlsConfig[K] } = {}
    for (const field of TLS_FIELDS) {
      if (tls[field] !== undefined) files[field] = readStringField(`${label}.tls`, tls, field)
    }
    if ((files.certFile === undefined) !== (files.keyFile === undefined)) {
      refuseConfigField(
        `${label}.tls`,
        files.certFile === undefined ? 'certFile' : 'keyFile',
        'must be given with the other of certFile and keyFile',
        files.certFile ?? files.keyFile,
      )
    }
    connection.tls = Object.freeze(files)
  }
  if ((connection.user === undefined) !== (connection.pass === undefined)) {
    refuseConfigField(
      label,
      connection.user === undefined ? 'user' : 'pass',
      'must be given with the other of user and pass',
      config[connection.user === undefined ? 'user' : 'pass'],
    )
  }
  return connection
}

/**
 * Validates and defaults the caller's config.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field, the rule and the value.
 */
export function resolveNatsRuntimeConfig(input: unknown): NatsRuntimeConfig {
  const label = 'nats'
  const config = readConfigObject(label, input, RUNTIME_FIELDS)
  const defaults = DEFAULT_SHARED_BACKEND_CONFIG
  const budget = (field: string, fallback: number): number =>
    readNumberField(label, config, field, { default: fallback, min: 0, minIsExclusive: true, max: MAX_TIMER_MS })
  const heartbeatMs = readIntegerField(label, config, 'heartbeatMs', {
    default: DEFAULT_HEARTBEAT_MS,
    min: 10,
    max: 60_000,
  })
  const lostAfterMs = readIntegerField(label, config, 'lostAfterMs', {
    default: DEFAULT_LOST_AFTER_MS,
    min: 20,
    max: MAX_TIMER_MS,
  })
  if (lostAfterMs < 2 * heartbeatMs)
    refuseConfigField(label, 'lostAfterMs', `must be at least twice heartbeatMs (${heartbeatMs})`, lostAfterMs)
  const connection = readConnectionFields(label, config)
  // Runners count a caller's runs by its inbox's first two tokens: one token would make every inbox its own caller.
  if (connection.inboxPrefix !== undefined && !connection.inboxPrefix.includes('.')) {
    refuseConfigField(
      label,
      'inboxPrefix',
      "must be two or more subject tokens, the tenant's own: _INBOX.<tenant>",
      connection.inboxPrefix,
    )
  }
  const adoptionKey = readAdoptionKey(label, config.adoptionKey)
  return Object.freeze({
    ...connection,
    ...(adoptionKey === undefined ? {} : { adoptionKey }),
    computeMs: budget('computeMs', defaults.computeMs),
    maxWallMs: budget('maxWallMs', defaults.maxWallMs),
    maxOutputBytes: readIntegerField(label, config, 'maxOutputBytes', {
      default: defaults.maxOutputBytes,
      min: 4,
      max: Number.MAX_SAFE_INTEGER,
    }),
    maxQueueMs: budget('maxQueueMs', DEFAULT_MAX_QUEUE_MS),
    heartbeatMs,
    lostAfterMs,
    maxSessions: readIntegerField(label, config, 'maxSessions', { default: defaults.maxSessions, min: 0, max: 4096 }),
  })
}

/**
 * A secret key of at least {@link MIN_ADOPTION_KEY_BYTES} bytes, copied so a later change by the
 * caller cannot change it. A refusal names only its type and length: a key never enters a message.
 */
export function readAdoptionKey(label: string, value: unknown, field = 'adoptionKey'): Uint8Array | undefined {
  if (value === undefined) return undefined
  if (!(value instanceof Uint8Array) || value.length < MIN_ADOPTION_KEY_BYTES) {
    refuseConfigField(
      label,
      field,
      `must be a Uint8Array of at least ${MIN_ADOPTION_KEY_BYTES} random bytes`,
      value instanceof Uint8Array ? `${value.length} bytes` : typeof value,
    )
  }
  return Uint8Array.from(value)
}
