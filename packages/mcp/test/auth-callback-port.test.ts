/**
 * Several `code-runtime auth login` processes of one user on one loopback callback port: the
 * first listens and serves every flow, routing each redirect by its `state`; the others register
 * their state in the store's `pending/` folder and get their redirect handed over. The test plays
 * the browser for each login (the authorization URL it printed, followed to its redirect, which
 * is requested on the callback port), against the real bin and two OAuth-protected test servers.
 */
import assert from 'node:assert/strict'
import { readdir } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { AUTHORIZATION_URL, cliEnvironment, runCli, startCli, writeServersConfig, type CliRun } from './auth-harness.js'
import { followAuthorization, startOAuthUpstream, type OAuthUpstream } from './oauth-upstream.js'
import { makeTempDirectory } from './serve-harness.js'

/** A loopback port free right now, to pin with --callback-port. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise(resolve => server.close(resolve))
  return port
}

describe('code-runtime auth login: one callback port for every login', () => {
  let remote: OAuthUpstream
  let other: OAuthUpstream
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serial = 0
  const freshUser = async (): Promise<{ env: NodeJS.ProcessEnv; config: string; pending: string }> => {
    serial += 1
    const home = join(temp.path, `user-${serial}`)
    const config = await writeServersConfig(home, { remote: { url: remote.url }, other: { url: other.url } })
    const configHome = join(home, 'config')
    return { env: cliEnvironment(configHome), config, pending: join(configHome, 'code-runtime', 'oauth', 'pending') }
  }
  const login = (name: string, config: string, port: number, env: NodeJS.ProcessEnv): CliRun => {
    const run = startCli(['auth', 'login', name, '--config', config, '--callback-port', String(port)], env)
    run.child.stdin.end()
    return run
  }
  /** As the browser: from the printed authorization URL to the page of the callback port. */
  const browse = async (authorizationUrl: string, port: number): Promise<Response> => {
    const callback = await followAuthorization(authorizationUrl)
    assert.ok(callback.startsWith(`http://127.0.0.1:${port}/callback?`), callback)
    return fetch(callback)
  }

  before(async () => {
    temp = await makeTempDirectory('code-runtime-callback-')
    remote = await startOAuthUpstream()
    other = await startOAuthUpstream()
  })
  after(async () => {
    await remote.close()
    await other.close()
    await temp.remove()
  })

  it('serves two logins at once on one pinned port, routing by state; refuses a state nobody waits for', async () => {
    const { env, config, pending } = await freshUser()
    const port = await freePort()
    const first = login('remote', config, port, env)
    const [, firstUrl = ''] = await first.waitForStderr(AUTHORIZATION_URL)
    const second = login('other', config, port, env)
    const [, secondUrl = ''] = await second.waitForStderr(AUTHORIZATION_URL)
    assert.match(second.output.stderr, new RegExp(`Another code-runtime login listens on 127\\.0\\.0\\.1:${port}`))

    // The second login's registration: named by a hash, never by the state; private.
    const secondState = new URL(secondUrl).searchParams.get('state') ?? ''
    const registered = await readdir(pending)
    assert.deepEqual(registered.filter(name => name.endsWith('.wait')).length, 1)
    assert.ok(registered.includes(`listener-${port}.json`))
    assert.equal(
      registered.some(name => name.includes(secondState)),
      false,
    )

    // What nobody waits for, and what is not a callback, is refused and handed to no one.
    const callbackBase = `http://127.0.0.1:${port}/callback`
    const unknown = await fetch(`${callbackBase}?code=stolen&state=nobody-registered-this`)
    assert.equal(unknown.status, 400)
    assert.match(await unknown.text(), /not waiting for this login/)
    assert.equal((await fetch(`${callbackBase}?code=c&state=a&state=b`)).status, 400)
    assert.equal((await fetch(callbackBase, { method: 'POST' })).status, 405)
    assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status, 404)
    assert.equal((await fetch(`${callbackBase}?state=${'x'.repeat(5000)}`)).status, 414)
    assert.equal(
      (await readdir(pending)).some(name => name.endsWith('.answer')),
      false,
    )

    // The listening login finishes its own, and keeps the port for the one still waiting.
    const firstCallback = await followAuthorization(firstUrl)
    const firstPage = await fetch(firstCallback)
    assert.equal(firstPage.status, 200)
    assert.match(await firstPage.text(), /You can close this tab/)
    await first.waitForStderr(/Logged in to "remote"/)
    await first.waitForStderr(new RegExp(`Still listening on 127\\.0\\.0\\.1:${port} for 1 other login`))
    // Its own redirect again: consumed once, refused now.
    assert.equal((await fetch(firstCallback)).status, 400)

    const secondPage = await browse(secondUrl, port)
    assert.equal(secondPage.status, 200)
    assert.match(await secondPage.text(), /You can close this tab/)
    const [firstEnd, secondEnd] = await Promise.all([first.exited, second.exited])
    assert.equal(firstEnd.code, 0, firstEnd.stderr)
    assert.equal(secondEnd.code, 0, secondEnd.stderr)
    assert.match(secondEnd.stderr, /Logged in to "other"/)

    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.match(status.stdout, /^remote .* logged in \(/m)
    assert.match(status.stdout, /^other .* logged in \(/m)
    // Nothing is left waiting: the registration went with its use, the listener's mark with it.
    assert.deepEqual(await readdir(pending), [])
  })

  it('logs in to two servers in one command through one listener', async () => {
    const { env, config, pending } = await freshUser()
    const port = await freePort()
    const both = startCli(
      ['auth', 'login', 'remote', 'other', '--config', config, '--callback-port', String(port)],
      env,
    )
    both.child.stdin.end()
    const [, remoteUrl = ''] = await both.waitForStderr(
      new RegExp(`Logging in to "remote"[\\s\\S]*?${AUTHORIZATION_URL.source}`, 'm'),
    )
    assert.equal((await browse(remoteUrl, port)).status, 200)
    const [, otherUrl = ''] = await both.waitForStderr(
      new RegExp(`Logging in to "other"[\\s\\S]*?${AUTHORIZATION_URL.source}`, 'm'),
    )
    assert.equal((await browse(otherUrl, port)).status, 200)
    const done = await both.exited
    assert.equal(done.code, 0, done.stderr)
    assert.match(done.stderr, /Logged in to "remote"[\s\S]*Logged in to "other"/)
    const status = await runCli(['auth', 'status', '--config', config], env)
    assert.match(status.stdout, /^remote .* logged in \(/m)
    assert.match(status.stdout, /^other .* logged in \(/m)
    assert.deepEqual(await readdir(pending), [])
  })

  it('a login waiting on a shared port gives up after its wait, removing its registration', async () => {
    const { env, config, pending } = await freshUser()
    const port = await freePort()
    const first = login('remote', config, port, env)
    const [, firstUrl = ''] = await first.waitForStderr(AUTHORIZATION_URL)
    const impatient = login('other', config, port, { ...env, CODE_RUNTIME_LOGIN_WAIT_MS: '1500' })
    await impatient.waitForStderr(AUTHORIZATION_URL)
    assert.equal((await readdir(pending)).filter(name => name.endsWith('.wait')).length, 1)
    const given = await impatient.exited
    assert.equal(given.code, 2, given.stderr)
    assert.match(
      given.stderr,
      new RegExp(`the browser did not come back to http://127\\.0\\.0\\.1:${port}/callback within 1\\.5 s`),
    )
    assert.deepEqual(await readdir(pending), [`listener-${port}.json`])

    // The listening login is not held up by the one that left.
    assert.equal((await browse(firstUrl, port)).status, 200)
    const done = await first.exited
    assert.equal(done.code, 0, done.stderr)
    assert.doesNotMatch(done.stderr, /Still listening/)
    assert.deepEqual(await readdir(pending), [])
  })

  it('fails as before on a port held by something that is not a login', async () => {
    const { env, config } = await freshUser()
    const squatter = createServer((_request, response) => response.end('not code-runtime'))
    await new Promise<void>(resolve => squatter.listen(0, '127.0.0.1', resolve))
    const { port } = squatter.address() as AddressInfo
    try {
      const refused = await runCli(
        ['auth', 'login', 'remote', '--config', config, '--callback-port', String(port)],
        env,
      )
      assert.equal(refused.code, 2, refused.stderr)
      assert.match(refused.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`))
    } finally {
      await new Promise(resolve => squatter.close(resolve))
    }
  })

  it('a waiting login takes the port over when the listening process goes away', async () => {
    const { env, config, pending } = await freshUser()
    const port = await freePort()
    const first = login('remote', config, port, env)
    await first.waitForStderr(AUTHORIZATION_URL)
    const second = login('other', config, port, env)
    const [, secondUrl = ''] = await second.waitForStderr(AUTHORIZATION_URL)
    first.child.kill('SIGKILL')
    await first.exited
    const callback = await followAuthorization(secondUrl)
    // The waiting login tries to listen twice a second.
    let page: Response | undefined
    for (let tries = 0; page === undefined && tries < 50; tries += 1) {
      page = await fetch(callback).catch(() => undefined)
      if (page === undefined) await new Promise(resolve => setTimeout(resolve, 100))
    }
    assert.equal(page?.status, 200)
    const done = await second.exited
    assert.equal(done.code, 0, done.stderr)
    assert.match(done.stderr, /Logged in to "other"/)
    assert.deepEqual(await readdir(pending), [])
  })
})
