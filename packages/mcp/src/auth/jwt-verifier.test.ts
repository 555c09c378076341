// Real tokens, signed here with keys made here, verified against a JWKS served over real HTTP.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { McpProxyError } from '../errors.js'
import { createJwtVerifier, grantedScopes, metadataUrls } from './jwt-verifier.js'
import { TokenRefusal, type TokenVerifier } from './principal.js'

const AUDIENCE = 'https://code-runtime.example/mcp'

interface Issuer {
  readonly url: string
  readonly server: Server
  /** Requests the issuer has served, by path. */
  readonly served: string[]
}

/** An issuer on loopback that serves RFC 8414 metadata (naming `issuerName`) and `jwks`. */
async function startIssuer(jwks: { keys: JWK[] }, issuerName?: (url: string) => string): Promise<Issuer> {
  const served: string[] = []
  let url = ''
  const server = createServer((request, response) => {
    served.push(request.url ?? '')
    response.setHeader('content-type', 'application/json')
    if (request.url === '/.well-known/oauth-authorization-server/tenant') {
      response.end(JSON.stringify({ issuer: issuerName?.(url) ?? url, jwks_uri: `${url.replace('/tenant', '')}/jwks` }))
    } else if (request.url === '/jwks') {
      response.end(JSON.stringify(jwks))
    } else {
      response.statusCode = 404
      response.end('{}')
    }
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tenant`
  return { url, server, served }
}

describe('createJwtVerifier', () => {
  let signingKey: CryptoKey
  let otherKey: CryptoKey
  let issuer: Issuer
  let verifier: TokenVerifier
  const now = Math.floor(Date.now() / 1000)

  before(async () => {
    const pair = await generateKeyPair('ES256')
    signingKey = pair.privateKey
    otherKey = (await generateKeyPair('ES256')).privateKey
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' }
    issuer = await startIssuer({ keys: [publicJwk] })
    ;({ verifier } = await createJwtVerifier({ issuer: issuer.url, audience: AUDIENCE }))
  })
  after(() => issuer.server.close())

  function token(
    claims: Record<string, unknown> = {},
    options: { key?: CryptoKey; kid?: string; alg?: string } = {},
  ): Promise<string> {
    const payload = {
      iss: issuer.url,
      aud: AUDIENCE,
      sub: 'alice',
      iat: now,
      exp: now + 300,
      scope: 'mcp:run other',
      ...claims,
    }
    return new SignJWT(payload)
      .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid ?? 'key-1', typ: 'at+jwt' })
      .sign(options.key ?? signingKey)
  }

  async function refusal(text: string | Promise<string>): Promise<TokenRefusal> {
    try {
      await verifier.verify(await text)
    } catch (error) {
      assert.ok(error instanceof TokenRefusal, `a TokenRefusal, got ${String(error)}`)
      return error
    }
    assert.fail('the token was accepted')
  }

  it('discovers the keys from the RFC 8414 metadata of an issuer with a path, and fetches them at start', async () => {
    assert.deepEqual(issuer.served.slice(0, 2), ['/.well-known/oauth-authorization-server/tenant', '/jwks'])
    const { issuerMetadata } = await createJwtVerifier({ issuer: issuer.url, audience: AUDIENCE })
    assert.equal(issuerMetadata.issuer, issuer.url)
  })

  it("accepts the issuer's token and names its subject, scopes and expiry", async () => {
    const principal = await verifier.verify(await token())
    assert.deepEqual(principal, { name: 'alice', scopes: ['mcp:run', 'other'], expiresAt: now + 300, via: 'jwt' })
  })

  it('refuses an expired token', async () => {
    const refused = await refusal(token({ exp: now - 120 }))
    assert.equal(refused.reason, 'invalid_token')
    assert.match(refused.message, /expired/)
  })

  it('refuses a token that is not valid yet, beyond the clock skew', async () => {
    assert.match((await refusal(token({ nbf: now + 600 }))).message, /not valid yet/)
    // Within the 30 s skew it passes: clocks of two machines are never equal.
    assert.equal((await verifier.verify(await token({ nbf: now + 10 }))).name, 'alice')
  })

  it('refuses a token for another audience, and one from another issuer', async () => {
    assert.match((await refusal(token({ aud: 'https://other.example/mcp' }))).message, /another audience/)
    assert.match((await refusal(token({ iss: 'https://evil.example' }))).message, /another issuer/)
  })

  it('refuses an unsigned token (alg none)', async () => {
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({
      iss: issuer.url,
      aud: AUDIENCE,
      sub: 'mallory',
      exp: now + 300,
      scope: 'mcp:run',
    })}.`
    assert.equal((await refusal(unsigned)).reason, 'invalid_token')
  })

  it('refuses a token signed with a shared secret (HS256), whatever the secret', async () => {
    const forged = await token({}, { alg: 'HS256', key: new TextEncoder().encode('x'.repeat(32)) as never })
    assert.match((await refusal(forged)).message, /algorithm/)
  })

  it('refuses a token with an unknown key id, and one signed by another key under the known id', async () => {
    assert.match((await refusal(token({}, { kid: 'key-9' }))).message, /key id/)
    assert.match((await refusal(token({}, { key: otherKey }))).message, /signature/)
  })

  it('refuses a token without a subject, and text that is no token', async () => {
    const noSubject = await new SignJWT({ scope: 'mcp:run' })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(issuer.url)
      .setAudience(AUDIENCE)
      .setExpirationTime(now + 300)
      .sign(signingKey)
    assert.equal((await refusal(noSubject)).reason, 'invalid_token')
    assert.equal((await refusal('not-a-token')).reason, 'invalid_token')
  })

  it('reads the keys from a JWKS file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'jwks-'))
    try {
      const pair = await generateKeyPair('RS256')
      const path = join(folder, 'jwks.json')
      writeFileSync(path, JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'file-key' }] }))
      const { verifier: fromFile } = await createJwtVerifier({ issuer: issuer.url, audience: AUDIENCE, jwks: path })
      const signed = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'file-key' })
        .setIssuer(issuer.url)
        .setAudience(AUDIENCE)
        .setSubject('bob')
        .setExpirationTime(now + 60)
        .sign(pair.privateKey)
      assert.equal((await fromFile.verify(signed)).name, 'bob')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('createJwtVerifier at start', () => {
  async function setupFailure(run: () => Promise<unknown>): Promise<McpProxyError> {
    try {
      await run()
    } catch (error) {
      assert.ok(McpProxyError.is(error), String(error))
      assert.equal(error.code, 'MCP_PROXY_AUTH_SETUP')
      return error
    }
    assert.fail('it started')
  }

  it('refuses metadata that names another issuer', async () => {
    const impostor = await startIssuer({ keys: [] }, () => 'https://real-issuer.example')
    try {
      const failure = await setupFailure(() => createJwtVerifier({ issuer: impostor.url, audience: AUDIENCE }))
      assert.match(failure.message, /names issuer "https:\/\/real-issuer\.example"/)
    } finally {
      impostor.server.close()
    }
  })

  it('says when the issuer cannot be reached, and refuses plain http off loopback', async () => {
    const unreachable = await setupFailure(() =>
      createJwtVerifier({ issuer: 'http://127.0.0.1:9/tenant', audience: AUDIENCE }),
    )
    assert.match(unreachable.message, /cannot be had/)
    const plain = await setupFailure(() => createJwtVerifier({ issuer: 'http://issuer.example', audience: AUDIENCE }))
    assert.match(plain.message, /https/)
  })

  it('says when the keys named by --auth-jwks cannot be had', async () => {
    const keyless = await startIssuer({ keys: [] })
    try {
      const failure = await setupFailure(() =>
        createJwtVerifier({
          issuer: keyless.url,
          audience: AUDIENCE,
          jwks: keyless.url.replace('/tenant', '/nowhere'),
        }),
      )
      assert.match(failure.message, /keys at .*\/nowhere cannot be had/)
    } finally {
      keyless.server.close()
    }
  })

  it('refuses algorithms outside the asymmetric allow-list', async () => {
    for (const algorithms of [['none'], ['HS256'], []]) {
      await setupFailure(() =>
        createJwtVerifier({
          issuer: 'https://issuer.example',
          audience: AUDIENCE,
          jwks: 'https://issuer.example/jwks',
          algorithms,
        }),
      )
    }
  })
})

describe('the parts of discovery and scopes', () => {
  it('builds the metadata addresses of RFC 8414 and OpenID discovery', () => {
    assert.deepEqual(
      metadataUrls(new URL('https://as.example/tenant/')).map(url => url.href),
      [
        'https://as.example/.well-known/oauth-authorization-server/tenant',
        'https://as.example/tenant/.well-known/openid-configuration',
      ],
    )
    assert.deepEqual(
      metadataUrls(new URL('https://as.example')).map(url => url.href),
      [
        'https://as.example/.well-known/oauth-authorization-server',
        'https://as.example/.well-known/openid-configuration',
      ],
    )
  })

  it('reads scopes from scope or scp', () => {
    assert.deepEqual(grantedScopes({ scope: 'a  b' }), ['a', 'b'])
    assert.deepEqual(grantedScopes({ scp: ['a', 1, 'c'] }), ['a', 'c'])
    assert.deepEqual(grantedScopes({ scp: 'a b' }), ['a', 'b'])
    assert.deepEqual(grantedScopes({}), [])
  })
})
