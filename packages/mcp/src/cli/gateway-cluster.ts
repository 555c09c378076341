/**
 * `serve --http --nats`: this process is one gateway node of possibly several behind a load
 * balancer. Its sessions live on the runners and can be taken over by any node with the same
 * state key; a paused run's retry that lands on another node is forwarded to this one over a bus
 * of the nodes on the same NATS. The keys of both come from the state key (cluster-keys.ts), so a
 * deployment hands out one secret; with a random key (none given), only this node can serve its
 * sessions and runs, as the start line says.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { NatsCliConnection } from './cli-arguments.js'
import { deriveClusterKeys } from '../cluster/cluster-keys.js'
import { natsConnectionFields } from '../runtime-backend.js'
import { McpProxyError } from '../errors.js'
import type { ServiceCluster } from '../server/code-mode-service.js'

/** One gateway node's part of the cluster: what the service and the backend need, and how to leave. */
export interface GatewayNode {
  readonly cluster: ServiceCluster
  /** Lets the other nodes take this node's sessions over (the NATS backend's `adoptionKey`). */
  readonly adoptionKey: Uint8Array
  /**
   * How the backend connects: as given, and, without `--nats-inbox-prefix`, with an inbox prefix
   * made from the state key, so every node of the deployment is one caller identity to the
   * runners (a runner hands a session over only within one identity).
   */
  readonly connection: NatsCliConnection
  /** One line for the person who started the server. */
  readonly notice: string
  close(): Promise<void>
}

/**
 * Joins the gateway nodes' bus on `servers`.
 * @throws {McpProxyError} `MCP_PROXY_BACKEND_UNAVAILABLE` when NATS cannot be reached.
 */
export async function joinGatewayNodes(
  servers: readonly string[],
  connection: NatsCliConnection | undefined,
  stateKey: Uint8Array,
  sharedKey: boolean,
): Promise<GatewayNode> {
  const keys = deriveClusterKeys(stateKey)
  const node = randomBytes(12).toString('base64url')
  const shared: NatsCliConnection = {
    insecureNoAuth: false,
    ...connection,
    inboxPrefix:
      connection?.inboxPrefix ?? `_INBOX.gw-${createHash('sha256').update(keys.peers).digest('hex').slice(0, 24)}`,
  }
  // The backend says what the connection's credentials are; this is the same connection setup.
  const fields = await natsConnectionFields(shared, () => undefined)
  const { connectPeerBus } = await import('@code-runtime/nats')
  let bus
  try {
    bus = await connectPeerBus({ nats: { servers, ...fields }, node, key: keys.peers })
  } catch (error) {
    throw new McpProxyError(
      'MCP_PROXY_BACKEND_UNAVAILABLE',
      `--nats: the gateway nodes' bus could not connect: ${error instanceof Error ? error.message : String(error)}`,
      { value: servers.join(','), cause: error },
    )
  }
  return {
    cluster: { node, peers: bus, handleKey: keys.handles },
    adoptionKey: keys.adoption,
    connection: shared,
    notice: sharedKey
      ? `gateway node ${node}: any node with the same state key serves this node's sessions and paused runs.`
      : `gateway node ${node}: with a random state key, no other node can serve this node's sessions or paused runs.`,
    close: () => bus.close(),
  }
}
