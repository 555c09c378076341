/**
 * How a login learns where to log in: by asking the server as a client would, with a real MCP
 * handshake and a `tools/list`, and reading the `WWW-Authenticate` challenge of the first 401.
 * A server may let `initialize` through and ask for a token only from `tools/list` on, so a
 * probe of the bare URL is not enough. The challenge names the RFC 9728 resource metadata and,
 * often, the scopes the server wants.
 */
import {
  Client,
  extractWWWAuthenticateParams,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client'
import { PACKAGE_INFO } from '../../package-info.js'

/** What a server's 401 said. */
export interface LoginChallenge {
  readonly resourceMetadataUrl?: URL
  readonly scope?: string
}

/** The probe's answer: the server's challenge, or `open` when it answered without one. */
export type ProbeAnswer = { readonly kind: 'challenge'; readonly challenge: LoginChallenge } | { readonly kind: 'open' }

const PROBE_TIMEOUT_MS = 30_000

/**
 * Connects to `url` without a token and lists its tools.
 * @throws what the connection threw when it failed for another reason than a 401.
 */
export async function probeLoginChallenge(
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeAnswer> {
  let challenge: LoginChallenge | undefined
  const watching: FetchLike = async (input, init) => {
    const response = await fetch(input, init)
    if (response.status === 401 && challenge === undefined) {
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response)
      challenge = {
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        ...(scope === undefined ? {} : { scope }),
      }
    }
    return response
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers } },
    fetch: watching,
  })
  const client = new Client({ name: PACKAGE_INFO.name, version: PACKAGE_INFO.version }, { capabilities: {} })
  try {
    await client.connect(transport, { timeout: timeoutMs })
    await client.listTools(undefined, { timeout: timeoutMs })
    return { kind: 'open' }
  } catch (error) {
    if (challenge !== undefined) return { kind: 'challenge', challenge }
    throw error
  } finally {
    await client.close().catch(() => undefined)
  }
}
