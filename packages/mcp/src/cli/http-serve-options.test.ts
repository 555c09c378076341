import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { McpProxyError } from '../errors.js'
import { parseListenAddress, readHttpServeOptions } from './http-serve-options.js'

function usageMessage(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    assert.ok(McpProxyError.is(error), String(error))
    assert.equal(error.code, 'MCP_PROXY_USAGE')
    return error.message
  }
  assert.fail('it was accepted')
}

describe('parseListenAddress', () => {
  it('reads a port alone as loopback, and a host with its port', () => {
    assert.deepEqual(parseListenAddress('8080'), { host: '127.0.0.1', port: 8080, isLoopback: true })
    assert.deepEqual(parseListenAddress('0'), { host: '127.0.0.1', port: 0, isLoopback: true })
    assert.deepEqual(parseListenAddress('0.0.0.0:9000'), { host: '0.0.0.0', port: 9000, isLoopback: false })
    assert.deepEqual(parseListenAddress('[::1]:9000'), { host: '::1', port: 9000, isLoopback: true })
    assert.deepEqual(parseListenAddress('[::]:9000'), { host: '::', port: 9000, isLoopback: false })
    assert.deepEqual(parseListenAddress('localhost:1'), { host: 'localhost', port: 1, isLoopback: true })
    assert.deepEqual(parseListenAddress('127.0.0.2:1'), { host: '127.0.0.2', port: 1, isLoopback: true })
    assert.deepEqual(parseListenAddress('mcp.internal:443'), { host: 'mcp.internal', port: 443, isLoopback: false })
  })

  it('refuses what is not [HOST:]PORT', () => {
    for (const text of ['', 'port', '65536', '-1', ':80', 'a b:80', '::1:80', '[nothost]:80', 'http://x:80']) {
      assert.match(
        usageMessage(() => parseListenAddress(text)),
        /--http/,
      )
    }
  })
})

describe('readHttpServeOptions', () => {
  it('is absent without --http, and then refuses the options that need it', () => {
    assert.equal(readHttpServeOptions({}), undefined)
    assert.match(
      usageMessage(() => readHttpServeOptions({ 'auth-keys': 'keys' })),
      /--auth-keys needs --http/,
    )
    assert.match(
      usageMessage(() => readHttpServeOptions({ 'insecure-no-auth': true })),
      /needs --http/,
    )
  })

  it('reads an OAuth setup and a keys file', () => {
    assert.deepEqual(
      readHttpServeOptions({
        http: '0.0.0.0:8080',
        'auth-issuer': 'https://issuer.example',
        'auth-audience': 'https://mcp.example/mcp',
        'auth-scope': 'mcp:run',
        'max-runs': '8',
      }),
      {
        listen: { host: '0.0.0.0', port: 8080, isLoopback: false },
        auth: {
          kind: 'oauth',
          issuer: 'https://issuer.example',
          audience: 'https://mcp.example/mcp',
          scope: 'mcp:run',
        },
        insecureNoAuth: false,
        auditValues: false,
        maxRuns: 8,
      },
    )
    assert.deepEqual(readHttpServeOptions({ http: '8080', 'auth-keys': 'team.keys', 'audit-values': true })?.auth, {
      kind: 'keys',
      keysFile: 'team.keys',
    })
  })

  it('refuses half an OAuth setup, two kinds of auth, and auth options that need the issuer', () => {
    assert.match(
      usageMessage(() => readHttpServeOptions({ http: '1', 'auth-issuer': 'https://i' })),
      /go together/,
    )
    assert.match(
      usageMessage(() =>
        readHttpServeOptions({ http: '1', 'auth-issuer': 'https://i', 'auth-audience': 'https://a', 'auth-keys': 'k' }),
      ),
      /choose one/,
    )
    assert.match(
      usageMessage(() => readHttpServeOptions({ http: '1', 'auth-scope': 's' })),
      /--auth-scope needs --auth-issuer/,
    )
  })

  it('refuses to listen beyond loopback without authentication, unless told --insecure-no-auth', () => {
    assert.match(
      usageMessage(() => readHttpServeOptions({ http: '0.0.0.0:8080' })),
      /beyond this machine without authentication: add --auth-keys FILE/,
    )
    assert.equal(readHttpServeOptions({ http: '0.0.0.0:8080', 'insecure-no-auth': true })?.insecureNoAuth, true)
    assert.equal(readHttpServeOptions({ http: '8080' })?.auth.kind, 'none')
    assert.match(
      usageMessage(() => readHttpServeOptions({ http: '8080', 'auth-keys': 'k', 'insecure-no-auth': true })),
      /drop one/,
    )
  })

  it('refuses run limits that are not whole numbers from 1', () => {
    for (const text of ['0', '1.5', '-2', 'many', '100001']) {
      assert.match(
        usageMessage(() => readHttpServeOptions({ http: '1', 'max-runs-per-principal': text })),
        /whole number/,
      )
    }
  })
})
