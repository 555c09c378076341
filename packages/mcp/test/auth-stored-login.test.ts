/**
 * The commands that use a stored login by themselves (`list`, `run`, `serve --http`) against a
 * local OAuth-protected MCP server whose access tokens live one second, so expiries come fast:
 * refreshes with no one asked, over several expiries; a revoked refresh token ending in "log in
 * again" with the exact command; a 503 during a refresh retried, the registration kept; two
 * processes refreshing at once making one refresh; a server without a login named as needing
 * one; the token a client presents to `serve --http` never sent upstream; no token printed.
 */
import assert from 'node:assert/strict'
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { assertNoSecrets, cliEnvironment, logInByPaste, runCli, startCli, writeServersConfig } from './auth-harness.js'
import { startOAuthUpstream, type OAuthUpstream } from './oauth-upstream.js'
import { installedBin, makeTempDirectory, waitFor } from './serve-harness.js'
import { connectV2, firstText, startHttpServe, writeKeysFile } from './serve-http-harness.js'

const FAST = ['--backend', 'worker-thread', '--type-check', 'off'] as const

describe('a stored login, used by the commands', () => {
  let upstream: OAuthUpstream
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serial = 0
  /** A user with a config naming `remote`, logged in unless told not to. */
  const user = async (
    options: { loggedIn?: boolean } = {},
  ): Promise<{ env: NodeJS.ProcessEnv; config: string; home: string; store: string }> => {
    serial += 1
    const home = join(temp.path, `user-${serial}`)
    const config = await writeServersConfig(home, { remote: { url: upstream.url } })
    const env = cliEnvironment(join(home, 'config'))
    if (options.loggedIn !== false) {
      const login = await logInByPaste('remote', config, env)
      assert.equal(login.code, 0, login.stderr)
    }
    return { env, config, home, store: join(home, 'config', 'code-runtime', 'oauth') }
  }
  const storedLogin = async (store: string): Promise<{ client: { client_id: string }; tokens?: unknown }> => {
    const [name] = (await readdir(store)).filter(file => file.endsWith('.json'))
    return JSON.parse(await readFile(join(store, name ?? ''), 'utf8')) as { client: { client_id: string } }
  }
  const program = async (home: string, source: string): Promise<string> => {
    const path = join(home, 'program.ts')
    await writeFile(path, source)
    return path
  }

  before(async () => {
    temp = await makeTempDirectory('code-runtime-stored-login-')
    upstream = await startOAuthUpstream({ accessTokenSeconds: 1 })
  })
  after(async () => {
    await upstream.close()
    await temp.remove()
  })

  it('lists the tools and runs a program with the login, refreshing it over several expiries unasked', async () => {
    const { env, config, home } = await user()
    const list = await runCli(['list', '--config', config], env)
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /remote_echo/)
    const refreshesBefore = upstream.counts.refreshGrants
    // Six calls 450 ms apart: the one-second tokens expire at least twice meanwhile.
    const run = await runCli(
      [
        'run',
        await program(
          home,
          'const said = []\nfor (let i = 0; i < 6; i++) {\n  said.push(await tools.remote_echo({ text: `call ${i}` }))\n  await new Promise(resolve => setTimeout(resolve, 450))\n}\nreturn said.join(", ")\n',
        ),
        '--config',
        config,
        ...FAST,
      ],
      env,
    )
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /call 0, call 1, call 2, call 3, call 4, call 5/)
    assert.ok(
      upstream.counts.refreshGrants - refreshesBefore >= 2,
      `${upstream.counts.refreshGrants - refreshesBefore} refreshes`,
    )
    assertNoSecrets(upstream.issuedSecrets, list.stdout, list.stderr, run.stdout, run.stderr)
  })

  it('refreshes on a 401 when the server stops taking a token that is not due yet', async () => {
    upstream.accessTokenSeconds = 60
    try {
      const { env, config } = await user()
      upstream.expireAccessTokens()
      const before = upstream.counts.refreshGrants
      const presented = upstream.presentedTokens.length
      const list = await runCli(['list', '--config', config], env)
      assert.equal(list.code, 0, list.stderr)
      assert.equal(upstream.counts.refreshGrants - before, 1)
      // The 60-second token was sent first, refused, then the refreshed one.
      const sent = upstream.presentedTokens.slice(presented)
      assert.ok(new Set(sent).size >= 2, `${sent.length} tokens presented`)
    } finally {
      upstream.accessTokenSeconds = 1
    }
  })

  it('says "log in again" with the exact command when the refresh token is revoked, and keeps the registration', async () => {
    const { env, config, store } = await user()
    const client = (await storedLogin(store)).client.client_id
    upstream.revokeRefreshTokens()
    upstream.expireAccessTokens()
    const list = await runCli(['list', '--config', config], env)
    assert.equal(list.code, 2)
    assert.match(
      list.stderr,
      /server "remote" needs you to log in again \(the authorization server refused its refresh token: invalid_grant\): run `code-runtime auth login remote --config [^`]+servers\.json`/,
    )
    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.match(status.stdout, /^remote .* needs you to log in again/m)
    const kept = await storedLogin(store)
    assert.equal(kept.client.client_id, client)
    assert.equal(kept.tokens, undefined)
    // The next login uses the same registration.
    const registrations = upstream.counts.registrations
    assert.equal((await logInByPaste('remote', config, env)).code, 0)
    assert.equal(upstream.counts.registrations, registrations)
    assert.equal((await runCli(['list', '--config', config], env)).code, 0)
    assertNoSecrets(upstream.issuedSecrets, list.stdout, list.stderr, status.stdout)
  })

  it('retries a refresh the authorization server answered 503, keeping the registration and the login', async () => {
    const { env, config, store, home } = await user()
    const client = (await storedLogin(store)).client.client_id
    upstream.expireAccessTokens()
    const failed = upstream.counts.failedTokenRequests
    upstream.failTokenRequests(1)
    const run = await runCli(
      [
        'run',
        await program(home, 'return await tools.remote_echo({ text: "after 503" })\n'),
        '--config',
        config,
        ...FAST,
      ],
      env,
    )
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /after 503/)
    assert.equal(upstream.counts.failedTokenRequests, failed + 1)
    assert.equal((await storedLogin(store)).client.client_id, client)
  })

  it('refreshes once for two processes that need it at once, and both work', async () => {
    const { env, config } = await user()
    upstream.expireAccessTokens()
    upstream.refreshDelayMs = 300
    // The refreshed token must outlive the wait of the second process for the lock: with this
    // file's one-second tokens a loaded machine lets it expire first, and a second refresh is right.
    const lifetime = upstream.accessTokenSeconds
    upstream.accessTokenSeconds = 60
    const before = upstream.counts.refreshGrants
    try {
      const first = startCli(['list', '--config', config], env)
      const second = startCli(['list', '--config', config], env)
      first.child.stdin.end()
      second.child.stdin.end()
      const [a, b] = await Promise.all([first.exited, second.exited])
      assert.equal(a.code, 0, a.stderr)
      assert.equal(b.code, 0, b.stderr)
      // Refresh tokens rotate here: a second refresh of the same one would have failed.
      assert.equal(upstream.counts.refreshGrants - before, 1)
    } finally {
      upstream.refreshDelayMs = 0
      upstream.accessTokenSeconds = lifetime
    }
  })

  it('says which login a 403 insufficient_scope needs, and the next login asks for that scope too', async () => {
    const { env, config, home } = await user()
    upstream.callScope = 'mcp:admin'
    try {
      const source = await program(home, 'return await tools.remote_echo({ text: "admin only" })\n')
      const refused = await runCli(['run', source, '--config', config, ...FAST], env)
      assert.equal(refused.code, 1, refused.stderr)
      assert.match(
        refused.stderr,
        /server "remote" needs a login with more scope \("mcp:tools mcp:admin"\): run `code-runtime auth login remote --config/,
      )
      assert.equal((await logInByPaste('remote', config, env)).code, 0)
      assert.deepEqual(upstream.lastAuthorization?.get('scope')?.split(' ').sort(), ['mcp:admin', 'mcp:tools'])
      const allowed = await runCli(['run', source, '--config', config, ...FAST], env)
      assert.equal(allowed.code, 0, allowed.stderr)
      assert.match(allowed.stdout, /admin only/)
    } finally {
      upstream.callScope = undefined
    }
  })

  it('refuses a store others may read instead of using its tokens', async () => {
    const { env, config, store } = await user()
    await chmod(store, 0o755)
    const list = await runCli(['list', '--config', config], env)
    assert.equal(list.code, 2)
    assert.match(
      list.stderr,
      /the login store \S+ has mode 0755, which lets others in, so its tokens are not used; run chmod 700/,
    )
  })

  it('names a server without a login as needing one, with the command', async () => {
    const { env, config } = await user({ loggedIn: false })
    const list = await runCli(['list', '--config', config], env)
    assert.equal(list.code, 2)
    assert.match(
      list.stderr,
      /server "remote" needs a login: run `code-runtime auth login remote --config \S+servers\.json`/,
    )
  })

  it('serves a server that needed a login once the person has logged in, without a restart', async () => {
    const { env, config, home } = await user({ loggedIn: false })
    const keys = await writeKeysFile(home, { alice: 'alice-key-0123456789abcdef0123456789' })
    // A second server keeps serve up while `remote` waits for its login.
    const memory = { command: installedBin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(home, 'memory.jsonl') } }
    const serve = await startHttpServe(
      home,
      { mcpServers: { remote: { url: upstream.url }, memory } },
      ['--http', '0', '--auth-keys', keys, ...FAST],
      env,
    )
    try {
      const client = await connectV2(serve.url, 'alice-key-0123456789abcdef0123456789', 'legacy')
      const description = async (): Promise<string> =>
        (await client.listTools()).tools.find(tool => tool.name === 'run_code')?.description ?? ''
      assert.match(await description(), /Unavailable until the user logs in \(no tools\): remote/)
      assert.equal((await logInByPaste('remote', config, env)).code, 0)
      await waitFor(async () => !(await description()).includes('Unavailable'), 'remote to be served')
      const result = await client.callTool({
        name: 'run_code',
        arguments: { description: 'echo after login', code: 'return await tools.remote_echo({ text: "now here" })' },
      })
      assert.match(firstText(result), /now here/)
      await client.close()
    } finally {
      await serve.stop()
    }
  })

  it('never forwards the token a client presents to serve --http upstream', async () => {
    const { env, home } = await user()
    const key = 'client-key-that-must-stay-here-0123456789abcdef'
    const keys = await writeKeysFile(home, { alice: key })
    // `locked` is the same server under another URL, which has no login.
    const locked = upstream.url.replace('127.0.0.1', 'localhost')
    const serve = await startHttpServe(
      home,
      { mcpServers: { remote: { url: upstream.url }, locked: { url: locked } } },
      ['--http', '0', '--auth-keys', keys, ...FAST],
      env,
    )
    try {
      const client = await connectV2(serve.url, key, 'legacy')
      const { tools } = await client.listTools()
      assert.match(
        tools.find(tool => tool.name === 'run_code')?.description ?? '',
        /Unavailable until the user logs in \(no tools\): locked \(run `code-runtime auth login locked`\)\./,
      )
      assert.match(serve.stderr(), /server "locked" needs a login: run `code-runtime auth login locked --config/)
      const result = await client.callTool({
        name: 'run_code',
        arguments: {
          description: 'echo through serve',
          code: 'return await tools.remote_echo({ text: "through serve" })',
        },
      })
      assert.match(firstText(result), /through serve/)
      await client.close()
      assert.equal(
        upstream.presentedTokens.some(token => token.includes(key)),
        false,
      )
      assert.ok(upstream.presentedTokens.every(token => upstream.issuedSecrets.includes(token)))
      assertNoSecrets(upstream.issuedSecrets, serve.stderr(), firstText(result))
    } finally {
      await serve.stop()
    }
  })
})
