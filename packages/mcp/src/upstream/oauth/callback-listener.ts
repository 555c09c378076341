/**
 * The loopback way of the browser step, shared: one HTTP listener on 127.0.0.1:PORT takes the
 * redirects of every login of the user waiting on that port, routed by their `state`
 * (`pending-redirects.ts` keeps the registrations). The login that could listen serves: its own
 * flows are answered in memory, another's are handed over through the store, a state nobody
 * waits for gets a 400 page and is handed to no one. A login that finds the port held by another
 * login registers its state and waits for the hand-over, and tries to listen itself now and then,
 * so the port is served again if the serving process goes away. A serving process whose own
 * login is over keeps serving while other logins still wait on its port (their deadlines bound
 * that): handing the port over instead would leave a gap in which the browser finds nobody.
 * What crosses from the browser is checked: only a GET of the callback path, a URL of at most
 * `MAX_REDIRECT_URL_CHARS`, each parameter once, and only the parameters of an authorization
 * response are kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpProxyError } from '../../errors.js'
import { CALLBACK_PATH, loopbackRedirectUrl, openBrowser, type RedirectReceiver } from './authorization-redirect.js'
import { isSameState, MAX_REDIRECT_URL_CHARS, PendingRedirects, stateHash } from './pending-redirects.js'
import type { TokenStore } from './token-store.js'

/** How long the browser step waits for the browser to come back, by default. */
export const LOGIN_WAIT_MS = 300_000
const MAX_LOGIN_WAIT_MS = 3_600_000
const POLL_MS = 100
const LISTEN_RETRY_MS = 500
/** Looks for the mark of a login listening on a taken port, `POLL_MS` apart. */
const MARK_LOOKS = 5

/** The wait of the browser step: `CODE_RUNTIME_LOGIN_WAIT_MS` when set (100 ms to an hour), else 5 minutes. */
export function loginWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.CODE_RUNTIME_LOGIN_WAIT_MS
  if (text === undefined || text === '') return LOGIN_WAIT_MS
  const value = Number(text)
  if (!Number.isInteger(value) || value < 100 || value > MAX_LOGIN_WAIT_MS)
    throw new McpProxyError(
      'MCP_PROXY_USAGE',
      `CODE_RUNTIME_LOGIN_WAIT_MS must be a whole number of milliseconds from 100 to ${MAX_LOGIN_WAIT_MS}, got ${JSON.stringify(text)}.`,
    )
  return value
}

/** The parameters of an authorization response (RFC 6749 4.1.2, 4.1.2.1; RFC 9207 `iss`). */
const RESPONSE_PARAMETERS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'] as const

function page(title: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><title>code-runtime: ${title}</title><p>${text}</p>`
}

const DONE_PAGE = page(
  'login',
  'code-runtime got the answer of the login. You can close this tab and go back to the terminal.',
)
const UNKNOWN_PAGE = page(
  'unknown login',
  'code-runtime is not waiting for this login (it is over, it gave up, or this address was not sent by it). Start it again from the terminal.',
)

function answer(response: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
  response.end(body)
}

function cannotListen(port: number, error: Error): McpProxyError {
  return new McpProxyError(
    'MCP_PROXY_LOGIN_FAILED',
    `the login cannot listen on 127.0.0.1:${port} (${(error as { code?: string }).code ?? error.message}); pick another port with --callback-port, or use --no-browser.`,
    { cause: error },
  )
}

/** The redirect of a request, rebuilt from the parameters an authorization response has; else why not. */
function readCallback(request: IncomingMessage, port: number): { status: number; redirect?: string; state?: string } {
  const target = request.url ?? '/'
  if (target.length > MAX_REDIRECT_URL_CHARS) return { status: 414 }
  let url: URL
  try {
    url = new URL(target, 'http://127.0.0.1')
  } catch {
    return { status: 400 }
  }
  if (url.pathname !== CALLBACK_PATH) return { status: 404 }
  if (request.method !== 'GET') return { status: 405 }
  const kept = new URLSearchParams()
  for (const name of RESPONSE_PARAMETERS) {
    const values = url.searchParams.getAll(name)
    if (values.length > 1) return { status: 400 }
    if (values[0] !== undefined) kept.set(name, values[0])
  }
  const state = kept.get('state')
  if (state === null || state === '') return { status: 400 }
  const redirect = `${loopbackRedirectUrl(port)}?${kept.toString()}`
  // Encoded again it may grow: what is handed over stays within the bound the reader keeps too.
  if (redirect.length > MAX_REDIRECT_URL_CHARS) return { status: 414 }
  return { status: 200, redirect, state }
}

/** One flow of this process waiting for its redirect. */
interface OwnFlow {
  readonly state: string
  readonly deliver: (redirect: string) => void
}

class SharedCallback implements RedirectReceiver {
  #port: number
  readonly #pending: PendingRedirects
  readonly #say: (line: string) => void
  readonly #waitMs: number
  readonly #own = new Map<string, OwnFlow>()
  /** States handed over by this listener (or being handed), so a second redirect of one is refused. */
  readonly #handed = new Set<string>()
  #server: Server | undefined

  constructor(port: number, pending: PendingRedirects, say: (line: string) => void, waitMs: number) {
    this.#port = port
    this.#pending = pending
    this.#say = say
    this.#waitMs = waitMs
  }

  get redirectUrl(): string {
    return loopbackRedirectUrl(this.#port)
  }

  get isServing(): boolean {
    return this.#server !== undefined
  }

  /** Listens on the port; false when it is taken. */
  async listen(): Promise<boolean> {
    const server = createServer((request, response) => void this.#handle(request, response))
    server.on('clientError', (_error, socket) => socket.destroy())
    // A browser sends its request at once; a connection that does not is not one.
    server.requestTimeout = 10_000
    server.headersTimeout = 10_000
    const bound = await new Promise<Error | undefined>(resolve => {
      server.once('error', resolve)
      server.listen(this.#port, '127.0.0.1', () => resolve(undefined))
    })
    if (bound !== undefined) {
      if ((bound as { code?: unknown }).code === 'EADDRINUSE') return false
      throw cannotListen(this.#port, bound)
    }
    this.#server = server
    this.#port = (server.address() as AddressInfo).port
    await this.#pending.markListening(this.#port)
    return true
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const callback = readCallback(request, this.#port)
    if (callback.redirect === undefined || callback.state === undefined) {
      const texts: Record<number, string> = {
        400: 'code-runtime takes only a redirect of a login here.',
        404: 'code-runtime is not waiting for this.',
        405: 'code-runtime takes only a GET here.',
        414: 'That address is too long for a redirect of a login.',
      }
      answer(response, callback.status, texts[callback.status] ?? 'Refused.', 'text/plain; charset=utf-8')
      return
    }
    const hash = stateHash(callback.state)
    const own = this.#own.get(hash)
    if (own !== undefined && isSameState(own.state, callback.state)) {
      this.#own.delete(hash)
      answer(response, 200, DONE_PAGE)
      own.deliver(callback.redirect)
      return
    }
    if (this.#handed.has(hash)) return answer(response, 400, UNKNOWN_PAGE)
    this.#handed.add(hash)
    let handed
    try {
      handed = await this.#pending.handOver(callback.state, this.#port, callback.redirect)
    } catch {
      handed = 'unknown'
    }
    if (handed !== 'handed') {
      this.#handed.delete(hash)
      return answer(response, 400, UNKNOWN_PAGE)
    }
    answer(response, 200, DONE_PAGE)
  }

  async receive(authorizationUrl: URL): Promise<string> {
    const state = authorizationUrl.searchParams.get('state')
    if (state === null || state === '')
      throw new McpProxyError('MCP_PROXY_LOGIN_FAILED', 'the authorization URL carries no state; the login stops.')
    const deadline = Date.now() + this.#waitMs
    const hash = stateHash(state)
    let delivered: string | undefined
    if (!this.isServing) await this.#pending.register(state, this.#port, deadline)
    this.#own.set(hash, { state, deliver: redirect => (delivered = redirect) })
    try {
      if (this.isServing) this.#say(`Log in in your browser; if it does not open, open this URL:\n`)
      else
        this.#say(
          `Another code-runtime login listens on 127.0.0.1:${this.#port}; it passes this login's redirect on.\nLog in in your browser; if it does not open, open this URL:\n`,
        )
      this.#say(`  ${authorizationUrl.href}\n`)
      if (!(await openBrowser(authorizationUrl.href)))
        this.#say('(No browser could be opened here: open the URL above yourself, or use --no-browser over SSH.)')
      this.#say(`Waiting for the browser to come back to ${this.redirectUrl} ...`)
      let nextListen = Date.now() + LISTEN_RETRY_MS
      for (;;) {
        if (delivered !== undefined) return delivered
        if (!this.isServing) {
          const handed = await this.#pending.takeAnswer(state)
          if (handed !== undefined) return handed
          // The serving process went away: this one serves the port now.
          if (Date.now() >= nextListen) {
            nextListen = Date.now() + LISTEN_RETRY_MS
            await this.listen()
          }
        }
        if (Date.now() >= deadline)
          throw new McpProxyError(
            'MCP_PROXY_LOGIN_FAILED',
            `the browser did not come back to ${this.redirectUrl} within ${Number((this.#waitMs / 1000).toFixed(1))} s; the login is not done. Run it again, or use --no-browser and paste the address.`,
          )
        await new Promise(resolve => setTimeout(resolve, POLL_MS))
      }
    } finally {
      this.#own.delete(hash)
      await this.#pending.withdraw(state)
    }
  }

  async close(): Promise<void> {
    const server = this.#server
    if (server === undefined) return
    // Other logins waiting on this port keep it served until they are done or give up.
    let told = false
    for (;;) {
      let waiting = await this.#pending.waitingCount(this.#port)
      if (waiting === 0) {
        await this.#pending.unmarkListening(this.#port)
        // One that registered as the mark went away is served still.
        waiting = await this.#pending.waitingCount(this.#port)
        if (waiting === 0) break
        await this.#pending.markListening(this.#port)
      }
      if (!told) {
        this.#say(
          `Still listening on 127.0.0.1:${this.#port} for ${waiting} other login${waiting === 1 ? '' : 's'} waiting for the browser ...`,
        )
        told = true
      }
      await new Promise(resolve => setTimeout(resolve, POLL_MS * 2))
    }
    this.#server = undefined
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  }
}

/**
 * The loopback way on 127.0.0.1:`port` (0: any free port), shared with the user's other logins
 * on that port: listening when it is free, else waiting for the login that listens there.
 * @throws {McpProxyError} `MCP_PROXY_LOGIN_FAILED` when the port is taken by something that is
 *   not a login of this user; `MCP_PROXY_TOKEN_STORE_UNSAFE` when the store is not private.
 */
export async function loopbackRedirect(
  port: number,
  say: (line: string) => void,
  store: TokenStore,
  waitMs: number = loginWaitMs(),
): Promise<RedirectReceiver> {
  const pending = await PendingRedirects.open(store)
  const receiver = new SharedCallback(port, pending, say, waitMs)
  if (await receiver.listen()) return receiver
  // A login that has just bound the port marks it a moment later.
  for (let look = 0; look < MARK_LOOKS; look += 1) {
    if (await pending.hasLiveListener(port)) return receiver
    await new Promise(resolve => setTimeout(resolve, POLL_MS))
  }
  const taken = Object.assign(new Error('address in use'), { code: 'EADDRINUSE' })
  throw cannotListen(port, taken)
}
