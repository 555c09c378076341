/**
 * A server that needed a login when a command started becomes available once the person has
 * logged in from another terminal, without a restart: the store is looked at every few seconds
 * (a stat and a small read), and a login newer than the one that failed is tried once. Nothing
 * here waits on the person; a `serve` goes on serving the other servers meanwhile.
 */
import type { TokenStore } from './token-store.js'

/** How often the store is looked at. */
export const LOGIN_WATCH_MS = 2_000

/**
 * Calls `tryLogin` each time `serverUrl` has a login with tokens newer than the last one seen,
 * until it resolves true. The timer never keeps the process alive.
 * @returns stops the watch.
 */
export function watchForLogin(
  store: TokenStore,
  serverUrl: string,
  tryLogin: () => Promise<boolean>,
  intervalMs = LOGIN_WATCH_MS,
): () => void {
  let seenAt: number | undefined
  let isLooking = false
  let isStopped = false
  const look = async (): Promise<void> => {
    const login = await store.loginOf(serverUrl).catch(() => undefined)
    if (login?.tokens === undefined || login.loggedInAt === seenAt) return
    seenAt = login.loggedInAt
    if (!isStopped && (await tryLogin())) stop()
  }
  const timer = setInterval(() => {
    if (isLooking) return
    isLooking = true
    void look().finally(() => {
      isLooking = false
    })
  }, intervalMs)
  timer.unref()
  // The login that has already failed is not tried again: only a new one is.
  void store
    .loginOf(serverUrl)
    .then(login => {
      seenAt ??= login?.loggedInAt
    })
    .catch(() => undefined)
  const stop = (): void => {
    isStopped = true
    clearInterval(timer)
  }
  return stop
}
