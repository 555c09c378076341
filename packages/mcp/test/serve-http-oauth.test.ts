/**
 * `code-runtime serve --http` as an OAuth 2.1 resource server: a test issuer on loopback publishes
 * its metadata and keys (JWKS) over real HTTP, the test signs access tokens with those keys, and
 * every kind of bad token is answered 401 (403 for a missing scope) with the challenge that names
 * the server's RFC 9728 metadata, and runs nothing.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { installedBin, makeTempDirectory } from './serve-harness.js'
import {
  connectV2,
  firstText,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  rawRequest,
  runServeToEnd,
  startHttpServe,
  type HttpServe,
} from './serve-http-harness.js'

const AUDIENCE = 'https://code-runtime.test.example/mcp'
const SCOPE = 'mcp:run'

describe('serve --http with an OAuth issuer', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let issuerServer: Server
  let issuer = ''
  let signingKey: CryptoKey
  let otherKey: CryptoKey
  let serve: HttpServe
  const now = (): number => Math.floor(Date.now() / 1000)

  before(async () => {
    temp = await makeTempDirectory('code-runtime-http-oauth-')
    const pair = await generateKeyPair('ES256')
    signingKey = pair.privateKey
    otherKey = (await generateKeyPair('ES256')).privateKey
    const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }
    issuerServer = createServer((request, response) => {
      response.setHeader('content-type', 'application/json')
      if (request.url === '/.well-known/oauth-authorization-server') {
        response.end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            response_types_supported: ['code'],
            jwks_uri: `${issuer}/jwks`,
          }),
        )
      } else if (request.url === '/jwks') response.end(JSON.stringify(jwks))
      else {
        response.statusCode = 404
        response.end('{}')
      }
    })
    await new Promise<void>(resolve => issuerServer.listen(0, '127.0.0.1', resolve))
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`
    const config = {
      mcpServers: {
        memory: { command: installedBin('mcp-server-memory'), env: { MEMORY_FILE_PATH: `${temp.path}/m.jsonl` } },
      },
    }
    serve = await startHttpServe(temp.path, config, [
      '--http',
      '0',
      '--auth-issuer',
      issuer,
      '--auth-audience',
      AUDIENCE,
      '--auth-scope',
      SCOPE,
      '--backend',
      'worker-thread',
      '--type-check',
      'off',
    ])
  })
  after(async () => {
    await serve?.stop('SIGKILL')
    issuerServer?.close()
    await temp?.remove()
  })

  function token(
    claims: Record<string, unknown> = {},
    header: { kid?: string; key?: CryptoKey } = {},
  ): Promise<string> {
    return new SignJWT({ iss: issuer, aud: AUDIENCE, sub: 'carol', exp: now() + 300, scope: SCOPE, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: header.kid ?? 'k1' })
      .sign(header.key ?? signingKey)
  }

  it('serves its protected-resource metadata (RFC 9728), naming the issuer', async () => {
    const answer = await rawRequest(new URL('/.well-known/oauth-protected-resource/mcp', serve.url), { method: 'GET' })
    assert.equal(answer.status, 200)
    const document = JSON.parse(answer.body) as Record<string, unknown>
    assert.equal(document.resource, AUDIENCE)
    assert.deepEqual(document.authorization_servers, [issuer])
    assert.deepEqual(document.scopes_supported, [SCOPE])
  })

  it("runs the program of a valid token's subject", async () => {
    const client = await connectV2(serve.url, await token(), 'modern')
    try {
      const result = await client.callTool({
        name: 'run_code',
        arguments: { code: 'return (await tools.memory_read_graph()).entities.length', description: 'count' },
      })
      assert.match(firstText(result), /^0\n\nsession: s_/)
    } finally {
      await client.close()
    }
    assert.equal(serve.auditLines().at(-1)?.principal, 'carol')
  })

  it('answers a missing token with 401 and a challenge naming the metadata', async () => {
    const answer = await rawRequest(serve.url, { headers: MCP_POST_HEADERS, body: INITIALIZE_BODY })
    assert.equal(answer.status, 401)
    const challenge = String(answer.headers['www-authenticate'])
    assert.match(challenge, /^Bearer /)
    // The resource is the audience: its metadata URL is what a client fetches to find the issuer.
    assert.match(
      challenge,
      /resource_metadata="https:\/\/code-runtime\.test\.example\/\.well-known\/oauth-protected-resource\/mcp"/,
    )
  })

  it('answers every bad token with 401, and runs nothing', async () => {
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    const bad: Record<string, string> = {
      expired: await token({ exp: now() - 600 }),
      'not yet valid': await token({ nbf: now() + 600 }),
      'another audience': await token({ aud: 'https://other.example/mcp' }),
      'another issuer': await token({ iss: 'https://evil.example' }),
      'alg none': `${encode({ alg: 'none' })}.${encode({ iss: issuer, aud: AUDIENCE, sub: 'mallory', exp: now() + 300, scope: SCOPE })}.`,
      'unknown kid': await token({}, { kid: 'k9' }),
      'another key': await token({}, { key: otherKey }),
      garbage: 'not.a.token',
    }
    const before = serve.auditLines().length
    for (const [what, text] of Object.entries(bad)) {
      const answer = await rawRequest(serve.url, {
        headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${text}` },
        body: INITIALIZE_BODY,
      })
      assert.equal(answer.status, 401, `${what}: ${answer.body}`)
      assert.match(String(answer.headers['www-authenticate']), /error="invalid_token"/, what)
    }
    assert.equal(serve.auditLines().length, before)
  })

  it('answers a valid token without the scope with 403 insufficient_scope', async () => {
    const answer = await rawRequest(serve.url, {
      headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${await token({ scope: 'other' })}` },
      body: INITIALIZE_BODY,
    })
    assert.equal(answer.status, 403)
    assert.match(String(answer.headers['www-authenticate']), /insufficient_scope/)
  })

  it('refuses to start when the issuer cannot be reached', async () => {
    const ended = await runServeToEnd(temp.path, { mcpServers: {} }, [
      '--http',
      '0',
      '--auth-issuer',
      'http://127.0.0.1:9',
      '--auth-audience',
      AUDIENCE,
    ])
    assert.equal(ended.code, 2)
    assert.match(ended.stderr, /the issuer's metadata cannot be had/)
  })
})
