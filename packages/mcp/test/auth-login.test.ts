/**
 * `code-runtime auth login|status|logout` against a local OAuth-protected MCP server and its
 * authorization server (`oauth-upstream.ts`): the login by a pasted redirect (no browser, as over
 * SSH) with discovery from the 401 of `tools/list`, dynamic registration, PKCE, state and
 * resource; a wrong state refused; three failed attempts ending the login; a store others may
 * read refused; logout removing exactly one server's login. One authorization server for the file.
 */
import assert from 'node:assert/strict'
import { chmod, mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  assertNoSecrets,
  AUTHORIZATION_URL,
  cliEnvironment,
  logInByPaste,
  runCli,
  startCli,
  writeServersConfig,
} from './auth-harness.js'
import { followAuthorization, REQUIRED_SCOPE, startOAuthUpstream, type OAuthUpstream } from './oauth-upstream.js'
import { makeTempDirectory } from './serve-harness.js'

describe('code-runtime auth', () => {
  let upstream: OAuthUpstream
  let other: OAuthUpstream
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serial = 0
  /** A fresh config home (an empty store) with a config naming `remote` and `other`. */
  const freshUser = async (): Promise<{ env: NodeJS.ProcessEnv; config: string; home: string }> => {
    serial += 1
    const home = join(temp.path, `user-${serial}`)
    const config = await writeServersConfig(home, { remote: { url: upstream.url }, other: { url: other.url } })
    return { env: cliEnvironment(join(home, 'config')), config, home }
  }

  before(async () => {
    temp = await makeTempDirectory('code-runtime-auth-')
    upstream = await startOAuthUpstream()
    other = await startOAuthUpstream()
  })
  after(async () => {
    await upstream.close()
    await other.close()
    await temp.remove()
  })

  it('logs in by a pasted redirect: discovery from the 401, registration, PKCE, state, resource and scope', async () => {
    const { env, config, home } = await freshUser()
    const before = { ...upstream.counts }
    const login = await logInByPaste('remote', config, env)
    assert.equal(login.code, 0, login.stderr)
    assert.match(login.stderr, /Logged in to "remote" \(issuer http:\/\/127\.0\.0\.1:\d+\)/)
    assert.equal(upstream.counts.registrations, before.registrations + 1)
    assert.equal(upstream.counts.codeGrants, before.codeGrants + 1)
    const query = upstream.lastAuthorization
    assert.equal(query?.get('code_challenge_method'), 'S256')
    assert.match(query?.get('code_challenge') ?? '', /^[\w-]{43}$/)
    assert.ok((query?.get('state') ?? '').length >= 32)
    assert.equal(query?.get('resource'), upstream.url)
    assert.equal(query?.get('scope'), REQUIRED_SCOPE)

    const store = join(home, 'config', 'code-runtime', 'oauth')
    const files = await readdir(store)
    assert.equal(files.length, 1)

    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.equal(status.code, 0, status.stderr)
    assert.match(
      status.stdout,
      /^remote {2}http:\S+ {2}logged in \(issuer http:\S+, scope mcp:tools; access token valid for \d+ s, refreshed by itself\)$/m,
    )
    assert.match(status.stdout, /^other {2}http:\S+ {2}no login$/m)
    assertNoSecrets(upstream.issuedSecrets, login.stdout, login.stderr, status.stdout, status.stderr)
  })

  it('logs in through the loopback listener when no browser can be opened, printing the URL', async () => {
    const { env, config } = await freshUser()
    const login = startCli(['auth', 'login', 'remote', '--config', config], env)
    const [, url] = await login.waitForStderr(AUTHORIZATION_URL)
    // As the person's browser: the authorization server sends it back to our listener.
    const callback = await followAuthorization(url ?? '')
    assert.match(callback, /^http:\/\/127\.0\.0\.1:\d+\/callback\?/)
    const page = await fetch(callback)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /You can close this tab/)
    login.child.stdin.end()
    const ended = await login.exited
    assert.equal(ended.code, 0, ended.stderr)
    assert.match(ended.stderr, /No browser could be opened here/)
    assert.match(ended.stderr, /Logged in to "remote"/)
  })

  it("refuses a redirect whose state is not the request's, and gives up after 3 attempts", async () => {
    const { env, config, home } = await freshUser()
    const login = startCli(['auth', 'login', 'remote', '--config', config, '--no-browser'], env)
    const [, url] = await login.waitForStderr(AUTHORIZATION_URL)
    const forged = new URL(await followAuthorization(url ?? ''))
    forged.searchParams.set('state', 'forged-state')
    // A forged state, an error answer carrying a forged state too, and something that is not a URL.
    const errorAnswer = new URL(forged.href)
    errorAnswer.searchParams.set('error', 'access_denied')
    login.child.stdin.end(`${forged.href}\n${errorAnswer.href}\nnot a url\n`)
    const ended = await login.exited
    assert.equal(ended.code, 2, ended.stderr)
    assert.match(ended.stderr, /Attempt 1 of 3 failed: its state does not match/)
    assert.match(ended.stderr, /Attempt 2 of 3 failed: its state does not match/)
    assert.match(ended.stderr, /Attempt 3 of 3 failed: that is not a URL/)
    assert.match(ended.stderr, /gave up after 3 authorization attempts/)
    // Nothing was exchanged, nothing stored.
    assert.deepEqual(await readdir(join(home, 'config', 'code-runtime', 'oauth')).catch(() => []), [])
  })

  it('refuses a store others may read, before asking anything', async () => {
    const { env, config, home } = await freshUser()
    const store = join(home, 'config', 'code-runtime', 'oauth')
    await mkdir(store, { recursive: true })
    await chmod(store, 0o755)
    const login = await runCli(['auth', 'login', 'remote', '--config', config, '--no-browser'], env)
    assert.equal(login.code, 2)
    assert.match(login.stderr, /^code-runtime: the login store \S+ has mode 0755, which lets others in.*chmod 700/m)
    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.equal(status.code, 2)
    assert.match(status.stderr, /has mode 0755/)
  })

  it('logs out of one server, removing exactly its login', async () => {
    const { env, config, home } = await freshUser()
    assert.equal((await logInByPaste('remote', config, env)).code, 0)
    assert.equal((await logInByPaste('other', config, env)).code, 0)
    const store = join(home, 'config', 'code-runtime', 'oauth')
    assert.equal((await readdir(store)).filter(name => name.endsWith('.json')).length, 2)
    const logout = await runCli(['auth', 'logout', 'remote', '--config', config], env)
    assert.equal(logout.code, 0, logout.stderr)
    assert.match(logout.stderr, /Logged out of "remote"/)
    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.match(status.stdout, /^remote .* no login$/m)
    assert.match(status.stdout, /^other .* logged in/m)
    const again = await runCli(['auth', 'logout', 'remote', '--config', config], env)
    assert.match(again.stderr, /"remote" had no login/)
  })

  it('names the url servers when asked for one the config does not have, or a local one', async () => {
    const { env, config } = await freshUser()
    const missing = await runCli(['auth', 'login', 'nope', '--config', config], env)
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /no server "nope" in the config; its url servers are remote, other/)
    const usage = await runCli(['auth', 'logon', 'remote', '--config', config], env)
    assert.match(usage.stderr, /auth needs one of login, status, logout, got "logon"/)
  })
})
