/**
 * The browser step of a login: how the person reaches the authorization URL, and how the address
 * the authorization server sends them back to (with the code and the state) reaches us. Two
 * ways, one interface:
 * - pasted (`--no-browser`): the URL is printed, the person opens it anywhere (another machine,
 *   over SSH: no port forwarding needed) and pastes the address their browser was sent to, even
 *   though that page did not load;
 * - loopback (`callback-listener.ts`): one HTTP listener on 127.0.0.1 takes the redirects of
 *   every login of the user on that port, routed by state, and the system browser is opened where
 *   there is one (the URL is printed too, for when it is not).
 * The receiver hands back the redirect as it came; the login checks its state and code.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { McpProxyError } from '../../errors.js'

export const CALLBACK_PATH = '/callback'

/** One way of getting the person through the authorization URL and back. */
export interface RedirectReceiver {
  /** The redirect URI registered with the authorization server. */
  readonly redirectUrl: string
  /** Shows (or opens) `authorizationUrl` and resolves with the redirect URL the browser came back to, as text. */
  receive(authorizationUrl: URL): Promise<string>
  close(): Promise<void>
}

/** The redirect URI on loopback port `port`. */
export function loopbackRedirectUrl(port: number): string {
  return `http://127.0.0.1:${port}${CALLBACK_PATH}`
}

/** A free loopback port, for a redirect URI nobody listens on (the pasted way). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  await new Promise(resolve => server.close(resolve))
  return port
}

/** The pasted way: reads one line of `input` per attempt. */
export function pastedRedirect(redirectUrl: string, input: Readable, say: (line: string) => void): RedirectReceiver {
  const lines = createInterface({ input, crlfDelay: Infinity })
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = []
  const queued: string[] = []
  let isEnded = false
  const ended = (): McpProxyError =>
    new McpProxyError(
      'MCP_PROXY_LOGIN_FAILED',
      'the input ended before a redirect URL was pasted; the login is not done.',
    )
  lines.on('line', line => {
    if (line.trim() === '') return
    const next = waiting.shift()
    if (next === undefined) queued.push(line.trim())
    else next.resolve(line.trim())
  })
  lines.on('close', () => {
    isEnded = true
    for (const next of waiting.splice(0)) next.reject(ended())
  })
  return {
    redirectUrl,
    receive(authorizationUrl) {
      say(`Open this URL in a browser and log in:\n\n  ${authorizationUrl.href}\n`)
      say(
        `Your browser is then sent to ${redirectUrl}?code=... (the page may not load); paste that whole address here and press Enter:`,
      )
      const line = queued.shift()
      if (line !== undefined) return Promise.resolve(line)
      if (isEnded) return Promise.reject(ended())
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }))
    },
    close() {
      lines.close()
      return Promise.resolve()
    },
  }
}

/** Opens `url` in the system browser where there is one; false when there is none or it failed. */
export function openBrowser(url: string): Promise<boolean> {
  const command =
    process.platform === 'darwin'
      ? 'open'
      : process.platform === 'linux' && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
        ? 'xdg-open'
        : undefined
  if (command === undefined) return Promise.resolve(false)
  return new Promise(resolve => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true })
    child.once('error', () => resolve(false))
    child.once('exit', code => resolve(code === 0))
    child.unref()
  })
}
