/**
 * The keys gateway nodes share, each derived from the one state key a deployment gives every node
 * (`--state-key`): one secret to distribute, and a key per job, so that what one job signs can
 * never pass for another's (a session handle for a bus message, say). The state key itself signs
 * the paused runs' `requestState` (request-states.ts), as on a single node.
 */
import { hkdfSync } from 'node:crypto'

/** The keys of one deployment's gateway nodes. */
export interface ClusterKeys {
  /** Signs the session handles clients pass back (signed-handles.ts). */
  readonly handles: Uint8Array
  /** Proves to a runner that a node may take over a session another node opened (`@code-runtime/nats`). */
  readonly adoption: Uint8Array
  /** Authenticates the messages nodes send each other over NATS (`@code-runtime/nats` peer bus). */
  readonly peers: Uint8Array
}

function derive(stateKey: Uint8Array, job: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', stateKey, new Uint8Array(0), `code-runtime gateway ${job}`, 32))
}

/** The keys derived from `stateKey` (at least 32 bytes: the caller checked it). */
export function deriveClusterKeys(stateKey: Uint8Array): ClusterKeys {
  return {
    handles: derive(stateKey, 'session handles'),
    adoption: derive(stateKey, 'session adoption'),
    peers: derive(stateKey, 'peer bus'),
  }
}
