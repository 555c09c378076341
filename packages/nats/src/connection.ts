/**
 * Opening a NATS connection for a caller or a runner: the configured servers, credentials (user
 * and password, a token, or an NKey/JWT creds file), TLS files and inbox prefix, reconnecting for
 * ever once connected (a restarted server is found again), and one clear error when NATS cannot
 * be reached at the start.
 */
import { readFile } from 'node:fs/promises'
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node'
import { CodeRuntimeError } from '@code-runtime/core'
import type { NatsConnectionConfig } from './config.js'

/** How long the first connection may take before start-up fails. */
const CONNECT_TIMEOUT_MS = 5_000

/** True when `config` authenticates to NATS in some way. */
export function hasNatsCredentials(
  config: Pick<NatsConnectionConfig, 'user' | 'token' | 'credsFile' | 'tls'>,
): boolean {
  return (
    config.user !== undefined ||
    config.token !== undefined ||
    config.credsFile !== undefined ||
    config.tls?.certFile !== undefined
  )
}

async function connectionOptions(
  config: NatsConnectionConfig,
  name: string,
  inboxPrefix: string | undefined,
): Promise<ConnectionOptions> {
  const options: ConnectionOptions = {
    servers: [...config.servers],
    name,
    timeout: CONNECT_TIMEOUT_MS,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ...(inboxPrefix === undefined ? {} : { inboxPrefix }),
    ...(config.user === undefined ? {} : { user: config.user, pass: config.pass }),
    ...(config.token === undefined ? {} : { token: config.token }),
    ...(config.tls === undefined ? {} : { tls: { ...config.tls } }),
  }
  if (config.credsFile !== undefined) {
    let creds: Uint8Array
    try {
      creds = await readFile(config.credsFile)
    } catch (error) {
      throw new CodeRuntimeError(
        'CODE_RUNTIME_INVALID_CONFIG',
        `Cannot read the NATS credentials file ${config.credsFile}: ${(error as Error).message}.`,
        { field: 'credsFile', cause: error },
      )
    }
    options.authenticator = credsAuthenticator(creds)
  }
  return options
}

/**
 * Connects to NATS, with `inboxPrefix` for the inboxes of its requests (the config's, unless given).
 * @throws {CodeRuntimeError} `CODE_RUNTIME_UNAVAILABLE` naming the servers and NATS's reason;
 *   `CODE_RUNTIME_INVALID_CONFIG` when the creds file cannot be read.
 */
export async function connectNats(
  config: NatsConnectionConfig,
  name: string,
  inboxPrefix = config.inboxPrefix,
): Promise<NatsConnection> {
  const options = await connectionOptions(config, name, inboxPrefix)
  try {
    return await connect(options)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new CodeRuntimeError(
      'CODE_RUNTIME_UNAVAILABLE',
      `Cannot reach NATS at ${config.servers.join(', ')}: ${reason}. Start nats-server there, or fix servers and the credentials.`,
      { cause: error },
    )
  }
}
