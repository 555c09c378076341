/**
 * `code-runtime auth login|status|logout`: the person's side of OAuth for the `url` servers of
 * the config. What they read goes to stderr (login's prompts) or stdout (status); a token never
 * does. The logins themselves are `upstream/oauth/`'s.
 */
import { EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { McpProxyError } from '../errors.js'
import { loadServersConfig, type HttpServerConfig } from '../upstream/server-config.js'
import {
  freeLoopbackPort,
  loopbackRedirectUrl,
  pastedRedirect,
  type RedirectReceiver,
} from '../upstream/oauth/authorization-redirect.js'
import { loopbackRedirect } from '../upstream/oauth/callback-listener.js'
import { logIn } from '../upstream/oauth/login-flow.js'
import type { StoredLogin } from '../upstream/oauth/stored-login.js'
import { TokenStore } from '../upstream/oauth/token-store.js'
import { writeErrorLine } from './terminal-output.js'

type AuthCommand = Extract<CliCommand, { command: 'auth' }>

function usage(message: string): McpProxyError {
  return new McpProxyError('MCP_PROXY_USAGE', `${message}; see code-runtime auth --help.`)
}

/** The `url` server named `name`, or a refusal that lists them. */
function findServer(
  servers: readonly HttpServerConfig[],
  name: string,
  all: readonly { name: string }[],
): HttpServerConfig {
  const server = servers.find(candidate => candidate.name === name)
  if (server !== undefined) return server
  const names = servers.map(candidate => candidate.name)
  const listed = names.length === 0 ? 'the config has no url server' : `its url servers are ${names.join(', ')}`
  if (all.some(candidate => candidate.name === name))
    throw usage(`"${name}" is a local (command) server, which needs no login; ${listed}`)
  throw usage(`no server "${name}" in the config; ${listed}`)
}

/** The loopback port of a redirect URI we registered, if it is one. */
function portOf(redirectUrl: string | undefined): number | undefined {
  if (redirectUrl === undefined) return undefined
  const url = new URL(redirectUrl)
  return url.hostname === '127.0.0.1' && url.port !== '' ? Number(url.port) : undefined
}

async function openReceiver(
  command: AuthCommand,
  previous: StoredLogin | undefined,
  store: TokenStore,
): Promise<RedirectReceiver> {
  const say = (line: string): void => void process.stderr.write(`${line}\n`)
  const remembered = portOf(previous?.redirectUrl)
  if (command.isBrowserless) {
    const port = command.callbackPort ?? remembered ?? (await freeLoopbackPort())
    return pastedRedirect(loopbackRedirectUrl(port), process.stdin, say)
  }
  // A port another login of this user listens on is shared with it (see callback-listener.ts).
  if (command.callbackPort !== undefined) return loopbackRedirect(command.callbackPort, say, store)
  // The last login's port keeps its registration valid; when something else holds it now, any port will do.
  if (remembered !== undefined)
    return loopbackRedirect(remembered, say, store).catch((error: unknown) => {
      if (McpProxyError.is(error) && error.code === 'MCP_PROXY_TOKEN_STORE_UNSAFE') throw error
      return loopbackRedirect(0, say, store)
    })
  return loopbackRedirect(0, say, store)
}

function describeLogin(login: StoredLogin | undefined, now: number): string {
  if (login === undefined) return 'no login'
  const tokens = login.tokens
  if (tokens === undefined) return `needs you to log in again (issuer ${login.issuer})`
  const expiry =
    tokens.expiresAt === undefined
      ? 'no expiry given'
      : tokens.expiresAt > now
        ? `access token valid for ${Math.round((tokens.expiresAt - now) / 1000)} s`
        : 'access token expired'
  const refresh = tokens.refreshToken === undefined ? 'no refresh token' : 'refreshed by itself'
  const scope = tokens.scope === undefined || tokens.scope === '' ? '' : `, scope ${tokens.scope}`
  return `logged in (issuer ${login.issuer}${scope}; ${expiry}, ${refresh})`
}

/** Runs `code-runtime auth ...`; resolves the exit code. */
export async function authCommand(command: AuthCommand): Promise<number> {
  if (command.configPath === undefined) throw usage('auth needs --config, the file that lists the url servers')
  const config = await loadServersConfig(command.configPath)
  const servers = config.servers.filter((server): server is HttpServerConfig => server.transport === 'http')
  const store = new TokenStore()
  switch (command.action) {
    case 'login': {
      const names = [...new Set([command.server ?? '', ...(command.moreServers ?? [])])]
      const wanted = names.map(name => findServer(servers, name, config.servers))
      await store.check()
      // One listener (or one stdin) for every server asked for, on the first one's remembered port.
      const receiver = await openReceiver(command, await store.loginOf(wanted[0]?.url ?? ''), store)
      const say = (line: string): void => void process.stderr.write(`${line}\n`)
      const failed: string[] = []
      try {
        for (const server of wanted) {
          if (wanted.length > 1) say(`Logging in to "${server.name}" ...`)
          let result
          try {
            result = await logIn(server, { store, receiver, say })
          } catch (error) {
            // One server's failure does not keep the others from their login.
            if (!McpProxyError.is(error) || wanted.length === 1) throw error
            writeErrorLine(process.stderr, error.message)
            failed.push(`"${server.name}"`)
            continue
          }
          if (result.kind === 'not-needed')
            say(`"${server.name}" answers without a login; there is nothing to log in to.`)
          else
            say(
              `Logged in to "${server.name}" (issuer ${result.login.issuer}); the login is kept in ${store.directory}.`,
            )
        }
      } finally {
        await receiver.close()
      }
      if (failed.length === 0) return EXIT_SUCCESS
      throw new McpProxyError('MCP_PROXY_LOGIN_FAILED', `no login to ${failed.join(', ')} (see above).`)
    }
    case 'status': {
      const shown = command.server === undefined ? servers : [findServer(servers, command.server, config.servers)]
      const now = Date.now()
      for (const server of shown) {
        process.stdout.write(`${server.name}  ${server.url}  ${describeLogin(await store.loginOf(server.url), now)}\n`)
      }
      if (shown.length === 0) process.stdout.write('The config has no url server.\n')
      return EXIT_SUCCESS
    }
    case 'logout': {
      const server = findServer(servers, command.server ?? '', config.servers)
      const removed = (await store.check()) ? await store.withLock(server.url, () => store.remove(server.url)) : 0
      process.stderr.write(
        removed === 0 ? `"${server.name}" had no login.\n` : `Logged out of "${server.name}" (its login is deleted).\n`,
      )
      return EXIT_SUCCESS
    }
  }
}
