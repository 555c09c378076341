/**
 * Opening a NATS connection for a caller or a runner: the configured servers and credentials,
 * reconnecting for ever once connected (a restarted server is found again), and one clear error
 * when NATS cannot be reached at the start.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { CodeRuntimeError } from '@code-runtime/core'
import type { NatsConnectionConfig } from './config.js'

/** How long the first connection may take before start-up fails. */
const CONNECT_TIMEOUT_MS = 5_000

/**
 * Connects to NATS.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_UNAVAILABLE` naming the servers and NATS's reason.
 */
export async function connectNats(config: NatsConnectionConfig, name: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: [...config.servers],
      name,
      timeout: CONNECT_TIMEOUT_MS,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...config.user === undefined ? {} : { user: config.user, pass: config.pass },
      ...config.token === undefined ? {} : { token: config.token },
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new CodeRuntimeError('CODE_RUNTIME_UNAVAILABLE',
      `Cannot reach NATS at ${config.servers.join(', ')}: ${reason}. Start nats-server there, or fix servers and the credentials.`, { cause: error })
  }
}
