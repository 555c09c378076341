import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TokenStore, tokenStoreDirectory } from './token-store.js'
import { withFileLock } from './store-lock.js'
import type { StoredLogin } from './stored-login.js'

function login(serverUrl: string, issuer: string, loggedInAt = 1): StoredLogin {
  return {
    serverUrl,
    issuer,
    resource: serverUrl,
    client: { client_id: 'client-1' },
    redirectUrl: 'http://127.0.0.1:1/callback',
    discovery: { authorizationServerUrl: issuer },
    tokens: { accessToken: 'at', tokenType: 'Bearer', refreshToken: 'rt', obtainedAt: 1, expiresAt: 5 },
    loggedInAt,
  }
}

function freshStore(): TokenStore {
  return new TokenStore(join(mkdtempSync(join(tmpdir(), 'token-store-')), 'code-runtime', 'oauth'))
}

void describe('tokenStoreDirectory', () => {
  void it('lives under XDG_CONFIG_HOME, else ~/.config, and ignores a relative XDG_CONFIG_HOME', () => {
    assert.equal(tokenStoreDirectory({ XDG_CONFIG_HOME: '/x/cfg' }), '/x/cfg/code-runtime/oauth')
    assert.match(tokenStoreDirectory({ XDG_CONFIG_HOME: 'rel' }), /\.config\/code-runtime\/oauth$/)
  })
})

void describe('TokenStore', () => {
  void it('creates a 0700 directory of 0600 files and reads back the newest login of a server', async () => {
    const store = freshStore()
    assert.deepEqual(await store.loginsOf('https://a.example/mcp'), [])
    await store.save(login('https://a.example/mcp', 'https://old.example', 1))
    await store.save(login('https://a.example/mcp', 'https://new.example', 2))
    assert.equal(statSync(store.directory).mode & 0o777, 0o700)
    for (const name of readdirSync(store.directory)) {
      assert.equal(statSync(join(store.directory, name)).mode & 0o777, 0o600, name)
    }
    assert.equal((await store.loginOf('https://a.example/mcp'))?.issuer, 'https://new.example')
    assert.equal((await store.loginsOf('https://a.example/mcp')).length, 2)
  })

  void it('replaces the login of the same server, issuer and resource in place, leaving no temporary file', async () => {
    const store = freshStore()
    await store.save(login('https://a.example/mcp', 'https://as.example', 1))
    await store.save({ ...login('https://a.example/mcp', 'https://as.example', 2), client: { client_id: 'client-2' } })
    assert.equal(readdirSync(store.directory).length, 1)
    assert.equal((await store.loginOf('https://a.example/mcp'))?.client.client_id, 'client-2')
  })

  void it('removes exactly the logins of one server', async () => {
    const store = freshStore()
    await store.save(login('https://a.example/mcp', 'https://as.example'))
    await store.save(login('https://a.example/mcp', 'https://as2.example'))
    await store.save(login('https://b.example/mcp', 'https://as.example'))
    assert.equal(await store.remove('https://a.example/mcp'), 2)
    assert.deepEqual(await store.loginsOf('https://a.example/mcp'), [])
    assert.equal((await store.all()).length, 1)
    assert.equal((await store.loginOf('https://b.example/mcp'))?.serverUrl, 'https://b.example/mcp')
  })

  void it('refuses a store others may read, naming the fix', async () => {
    const store = freshStore()
    await store.save(login('https://a.example/mcp', 'https://as.example'))
    chmodSync(store.directory, 0o755)
    await assert.rejects(store.loginOf('https://a.example/mcp'), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'MCP_PROXY_TOKEN_STORE_UNSAFE')
      assert.match(error.message, /mode 0755/)
      assert.match(error.message, /chmod 700/)
      return true
    })
  })

  void it('refuses a login file others may read', async () => {
    const store = freshStore()
    await store.save(login('https://a.example/mcp', 'https://as.example'))
    const [name] = readdirSync(store.directory)
    chmodSync(join(store.directory, name ?? ''), 0o644)
    await assert.rejects(store.loginOf('https://a.example/mcp'), { code: 'MCP_PROXY_TOKEN_STORE_UNSAFE' })
  })

  void it('refuses a store that is a symbolic link', async () => {
    const base = mkdtempSync(join(tmpdir(), 'token-store-'))
    const real = join(base, 'real')
    mkdirSync(real, { mode: 0o700 })
    symlinkSync(real, join(base, 'oauth'))
    await assert.rejects(new TokenStore(join(base, 'oauth')).all(), { code: 'MCP_PROXY_TOKEN_STORE_UNSAFE' })
  })

  void it('skips a file that is not a login instead of using half of it', async () => {
    const store = freshStore()
    await store.save(login('https://a.example/mcp', 'https://as.example'))
    const [name] = readdirSync(store.directory)
    writeFileSync(join(store.directory, name ?? ''), '{"version":1,', { mode: 0o600 })
    assert.deepEqual(await store.loginsOf('https://a.example/mcp'), [])
    assert.equal(await store.remove('https://a.example/mcp'), 1)
  })
})

void describe('withFileLock', () => {
  void it('runs holders of one lock one at a time', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock')
    let inside = 0
    let most = 0
    await Promise.all(
      Array.from({ length: 4 }, () =>
        withFileLock(path, async () => {
          inside += 1
          most = Math.max(most, inside)
          await new Promise(resolve => setTimeout(resolve, 20))
          inside -= 1
        }),
      ),
    )
    assert.equal(most, 1)
  })

  void it('takes over the lock of a process that died holding it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock')
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    writeFileSync(path, `${dead} ${Date.now()}\n`, { mode: 0o600 })
    assert.equal(await withFileLock(path, () => Promise.resolve('taken'), 2_000), 'taken')
  })

  void it('gives up on a live holder after the wait, with MCP_PROXY_LOGIN_FAILED', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock')
    writeFileSync(path, `${process.pid} ${Date.now()}\n`, { mode: 0o600 })
    await assert.rejects(
      withFileLock(path, () => Promise.resolve(), 100),
      { code: 'MCP_PROXY_LOGIN_FAILED' },
    )
  })
})
